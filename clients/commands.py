"""What a person types, as the engine command to send: a pure function, no network.

`parse(text, context)` reads one line and returns what to do: a `Command` (a command
map for `Client.send`, docs/protocol.md "Engine commands"), `ActAs` (pick who acts),
`ShowHelp`, `Quit` or `Nothing`; a line it cannot read raises `CommandError` with a
stable code and a message saying how to write it. It never sends anything itself, so
a bad line changes nothing.

`context` is what the screen knows: the role, the combatants this seat controls, who
acts by default, the open window (answers need its id and default to its subject) and
the room's ruleset. The server still decides everything: the parser only spares people
from writing JSON, and `raw {...}` sends any command map as it is.

The words every room knows are read here (help, quit, look, raw, as); the rest is the
ruleset's own grammar, since the rule systems' commands differ: World of Tael's is in
`tael_commands.py`, Verse's below. Verse's words follow its rules: `declare` a round's
Turn Events (V20), answer a window with `dodge`, `block`, `hold ...`, `quick ...`,
`counter ...`, `opportunity ...`, `adapt ...` or `pass` (V22, V23), `pause`/`resume`
(V24), `end` the turn.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from clients.lines import (
    ActAs,
    Command,
    CommandError,
    Context,
    Data,
    Look,
    Nothing,
    OpenWindow,
    Parsed,
    Quit,
    Role,
    ShowHelp,
    acting,
    answering,
    cell,
    one,
    one_cell,
    open_window,
    pass_window,
    tagged,
    two,
    whole_number,
)
from clients.tael_commands import TAEL_GM_ONLY, tael_help, tael_line

__all__ = [
    "ActAs",
    "Command",
    "CommandError",
    "Context",
    "Look",
    "Nothing",
    "OpenWindow",
    "Parsed",
    "Quit",
    "Role",
    "ShowHelp",
    "help_text",
    "parse",
]

ANSWERS = ("dodge", "block", "holder_dodge")
"""Window options answered by the word alone (docs/protocol.md, `window`)."""


def parse(text: str, context: Context) -> Parsed:
    """The meaning of one typed line (see the module's docstring)."""
    try:
        words = shlex.split(text, comments=False)
    except ValueError as error:
        raise CommandError("bad_quotes", f"cannot read the line: {error}") from None
    if not words:
        return Nothing()
    verb = words[0].lower()
    tael = context.ruleset == "tael"
    helping = tael and verb == "help" and len(words) > 1  # Tael's Help action (T9)
    if verb in ("help", "?") and not (helping and context.role in ("gm", "player")):
        return ShowHelp(help_text(context.role, context.ruleset))
    if verb in ("quit", "exit"):
        return Quit()
    if verb == "look":
        return Look()
    if context.role == "spectator":
        raise CommandError("read_only", "spectators watch: only 'help' and 'quit' work here")
    if context.role == "host":
        raise CommandError("read_only", "a host token only creates encounters")
    if verb == "raw":
        return Command(_raw(text.strip()[3:].strip()))
    if verb == "as":
        if len(words) < 2:
            raise CommandError("missing_argument", "as <combatant> [command]")
        who = words[1]
        if context.role == "player" and who not in context.controls:
            mine = ", ".join(context.controls) or "none"
            raise CommandError("not_yours", f"{who} is not yours to play (yours: {mine})")
        if len(words) == 2:
            return ActAs(who)
        rest = shlex.join(words[2:])
        acting_as = Context(context.role, context.controls, who, context.window, context.ruleset)
        return parse(rest, acting_as)
    if tael:
        if context.role != "gm" and verb in TAEL_GM_ONLY:
            raise CommandError("gm_only", f"only the GM may {verb}")
        return Command(tael_line(verb, words[1:], context))
    if context.role == "gm":
        command = _gm(verb, words[1:], context)
        if command is not None:
            return Command(command)
    elif verb in _GM_ONLY:
        raise CommandError("gm_only", f"only the GM may {verb}")
    return Command(_play(verb, words[1:], context))


# --- the GM's own commands ------------------------------------------------------------

_GM_ONLY = ("start", "refuse", "close", "skip", "health", "mana", "rewind")


def _gm(verb: str, args: list[str], context: Context) -> Data | None:
    if verb == "start":
        return {"type": "StartCombat"}
    if verb == "pause":
        return {"type": "Pause", "by": "gm"}
    if verb == "resume":
        return {"type": "Resume", "by": "gm"}
    if verb == "refuse":
        return {"type": "RefusePause"}
    if verb == "skip":
        return {"type": "SkipTurn"}
    if verb == "close":
        window = whole_number(args[0], "window") if args else open_window(context).id
        return {"type": "CloseWindow", "window": window}
    if verb == "health":
        who, amount = two(args, "health <combatant> <health>")
        return {"type": "SetHealth", "combatant": who, "health": whole_number(amount, "health")}
    if verb == "mana":
        who, amount = two(args, "mana <combatant> <mana>")
        return {"type": "SetMana", "combatant": who, "mana": whole_number(amount, "mana")}
    if verb == "rewind":
        if len(args) != 1:
            raise CommandError("missing_argument", "rewind <seq>: the event to go back to")
        return {"type": "Rewind", "to_version": whole_number(args[0], "seq")}
    return None


# --- what players (and the GM for its combatants) type --------------------------------


def _play(verb: str, args: list[str], context: Context) -> Data:
    if verb == "pause":
        return {"type": "Pause", "by": acting(context)}
    if verb == "resume":
        return {"type": "Resume", "by": acting(context)}
    if verb == "declare":
        return _declare(args, context)
    if verb == "withdraw":
        turn = _turn(args, "withdraw [turn N]")
        return {"type": "Withdraw", "actor": acting(context), "turn": turn}
    if verb == "end":
        return {"type": "EndTurn", "actor": acting(context)}
    if verb == "pass":
        return pass_window(context)
    if verb in ANSWERS or verb == "holder-dodge":
        return _answer(context, verb.replace("-", "_"), None)
    if verb == "hold":
        planning = context.window is not None and context.window.kind == "planning"
        if not args and planning:
            actor = acting(context)
            return _declaration(actor, [{"$type": "HoldAction", "actor": actor}], 0)
        if not args:
            raise CommandError("missing_argument", "hold <action>: what the held action does")
        return _answer(context, "hold", lambda actor: _action(args, actor, context))
    if verb == "quick":
        if not args:
            raise CommandError("missing_argument", "quick <action>: the Quick Response")
        return _answer(context, "quick_response", lambda actor: _action(args, actor, context))
    if verb in ("counter", "opportunity"):
        kind = "Counter" if verb == "counter" else "OpportunityAttack"
        return _answer(context, verb, lambda actor: _strike(kind, args, actor, context))
    if verb == "adapt":
        if not args:
            return _answer(context, "adapt", None)
        return _answer(context, "adapt", lambda actor: _action(args, actor, context))
    raise CommandError("unknown_command", f"no command {verb!r}: type 'help'")


def _declare(args: list[str], context: Context) -> Data:
    turn = 0
    if args and args[0].lower() == "turn":
        if len(args) < 2:
            raise CommandError("missing_argument", "declare turn <N> <action>")
        turn = whole_number(args[1], "turn") - 1
        if turn < 0:
            raise CommandError("bad_number", "turns count from 1")
        args = args[2:]
    if not args:
        raise CommandError("missing_argument", "declare <action> [then <action> ...]")
    actor = acting(context)
    actions = [_action(part, actor, context) for part in _split_actions(args)]
    return _declaration(actor, actions, turn)


def _declaration(actor: str, actions: list[Data], turn: int) -> Data:
    return {"type": "Declare", "actor": actor, "actions": actions, "turn": turn}


def _split_actions(args: list[str]) -> list[list[str]]:
    """`attack g1 then move 1,0` and `attack g1; move 1,0` are two actions."""
    parts: list[list[str]] = [[]]
    for word in args:
        if word.lower() == "then" or word == ";":
            parts.append([])
            continue
        ends = word.endswith(";")
        word = word.rstrip(";")
        if word:
            parts[-1].append(word)
        if ends:
            parts.append([])
    parts = [part for part in parts if part]
    if not parts:
        raise CommandError("missing_argument", "declare <action> [then <action> ...]")
    return parts


def _answer(context: Context, option: str, action: Any) -> Data:
    window = open_window(context)
    actor = answering(context, window)
    offered = window.asked.get(actor, ())
    if offered and option not in offered:
        choices = ", ".join(offered)
        raise CommandError("not_offered", f"{actor} may answer window {window.id} with {choices}")
    return {
        "type": "Answer",
        "actor": actor,
        "window": window.id,
        "option": option,
        "action": action(actor) if action is not None else None,
    }


def _action(words: list[str], actor: str, context: Context) -> Data:
    """One game action (docs/protocol.md, "Game actions"), tagged as nested records are."""
    verb, args = words[0].lower(), words[1:]
    if verb in ("attack", "ascend-attack", "counter", "opportunity"):
        kind = {
            "attack": "Attack",
            "ascend-attack": "AscendAttack",
            "counter": "Counter",
            "opportunity": "OpportunityAttack",
        }[verb]
        return _strike(kind, args, actor, context)
    if verb == "move":
        if not args:
            raise CommandError("missing_argument", "move <x,y> [<x,y> ...]: each step")
        return tagged("Move", actor=actor, path=[cell(a) for a in args])
    if verb == "hold":
        return tagged("HoldAction", actor=actor)
    if verb == "cast":
        return _cast(args, actor)
    if verb == "charge":
        targets = [a for a in args if "," not in a]
        cells = [cell(a) for a in args if "," in a]
        return tagged("ChargeSpell", actor=actor, targets=targets, target=one_cell(cells))
    if verb == "stance":
        return tagged("SetStance", actor=actor, stance=one(args, "stance <stance>"))
    if verb == "use":
        return tagged("UseItem", actor=actor, item=one(args, "use <item>"))
    if verb == "face":
        return tagged("Face", actor=actor, facing=whole_number(one(args, "face <0-7>"), "facing"))
    if verb in ("ascend", "descend"):
        return tagged("ChangeAscension", actor=actor, levels=1 if verb == "ascend" else -1)
    if verb == "stealth":
        return tagged("StealthCheck", sneaker=actor, observer=one(args, "stealth <observer>"))
    if verb == "mount":
        return tagged("Mount", actor=actor, ride=one(args, "mount <ride>"))
    if verb == "dismount":
        return tagged("Dismount", actor=actor, cell=cell(one(args, "dismount <x,y>")))
    if verb == "awareness":
        awareness = one(args, "awareness <alert|on_guard|distracted|preoccupied>")
        return tagged("SetAwareness", actor=actor, awareness=awareness)
    if verb == "knock":
        target, item = two(args, "knock <target> <item>")
        return tagged("KnockAway", actor=actor, target=target, item=item)
    raise CommandError("unknown_action", f"no action {verb!r}: type 'help'")


def _strike(kind: str, args: list[str], actor: str, context: Context) -> Data:
    """An attack of some kind: `<target> [weapon]`; a counter or an opportunity
    defaults to the window's subject (the attacker, the mover)."""
    if len(args) > 2:
        raise CommandError("too_many_arguments", f"{kind}: <target> [weapon]")
    target = args[0] if args else ""
    if not target and kind in ("Counter", "OpportunityAttack") and context.window is not None:
        target = context.window.about
    if not target:
        raise CommandError("missing_argument", "whom? <target> [weapon]")
    weapon = args[1] if len(args) > 1 else ""
    return tagged(kind, actor=actor, target=target, weapon=weapon)


def _cast(args: list[str], actor: str) -> Data:
    """`cast "Magic Missile" g1 +1`: the spell, its targets (ids) or a cell (`x,y`) to
    aim at, and `+N` extra Spell Dice."""
    if not args:
        raise CommandError("missing_argument", 'cast "<spell>" [targets] [x,y] [+N]')
    spell, extra, targets, cells = args[0], 0, [], []
    for word in args[1:]:
        if word.startswith("+"):
            extra = whole_number(word[1:], "extra Spell Dice")
        elif "," in word:
            cells.append(cell(word))
        elif word.lower() != "at":
            targets.append(word)
    return tagged(
        "CastSpell",
        actor=actor,
        spell=spell,
        targets=targets,
        target=one_cell(cells),
        extra_spell_dice=extra,
    )


# --- small readers --------------------------------------------------------------------


def _raw(text: str) -> Data:
    if not text:
        raise CommandError("missing_argument", 'raw {"type": "...", ...}: a command map')
    try:
        data = json.loads(text)
    except ValueError as error:
        raise CommandError("bad_json", f"not JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise CommandError("bad_json", 'a command is a JSON object with a "type"')
    return data


def _turn(args: list[str], usage: str) -> int:
    if not args:
        return 0
    if len(args) != 2 or args[0].lower() != "turn":
        raise CommandError("missing_argument", usage)
    turn = whole_number(args[1], "turn") - 1
    if turn < 0:
        raise CommandError("bad_number", "turns count from 1")
    return turn


# --- help -----------------------------------------------------------------------------

_PLAY_HELP = """\
Declare in the planning window (several actions: 'then' or ';'; turns count from 1):
  declare attack g1 longsword          declare move 1,0 then attack g1 spear
  declare turn 2 attack g2 spear       declare hold       declare cast "Magic Missile" g1 +1
  other actions: move x,y ..., stance <s>, use <item>, face <n>, ascend, descend,
  charge [targets], stealth <observer>, mount <ride>, dismount x,y, knock <target> <item>
  withdraw [turn N]
Answer the open window (the prompt lists your options):
  dodge | block | holder-dodge | hold <action> | quick <action>
  counter [target] [weapon] | opportunity [target] [weapon] | adapt [<action>] | pass
On your turn (turn based): end
Any time: pause | resume | as <combatant> [command] | raw <json command>
  look (the fight at a glance) | help | quit"""

_GM_HELP = """\
The GM:
  start | pause | resume | refuse (overrule a player's pause) | close [window] | skip
  health <combatant> <n> | mana <combatant> <n> | rewind <seq> | raw <json command>
For your combatants, anything a player types, after 'as <combatant>':
  as g1 declare attack ayla scimitar   as g1 dodge   as g2 pass
"""


def help_text(role: Role, ruleset: str = "verse") -> str:
    """What the screen prints for `help` (each ruleset has its own words)."""
    if role in ("gm", "player") and ruleset == "tael":
        return tael_help(role)
    if role == "gm":
        return _GM_HELP + "\n" + _PLAY_HELP
    if role == "player":
        return _PLAY_HELP
    return "You are watching: the fight prints as it happens. look: the fight now; quit: leave."
