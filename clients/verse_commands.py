"""What a person types in a Verse Chronicles room, as the engine command to send (pure).

`commands.parse` reads the words every room knows (help, quit, look, raw, as) and hands
the rest here when the room's ruleset is Verse (`welcome.ruleset`, looked up in
`rulesets.py`). The words follow Verse's rules: `declare` a round's Turn Events (V20),
answer a window with `dodge`, `block`, `hold ...`, `quick ...`, `counter ...`,
`opportunity ...`, `adapt ...` or `pass` (V22, V23), `pause`/`resume` (V24), `end` the
turn; the GM also has `start`, `refuse`, `close`, `skip`, `health`, `mana` and
`rewind`. A combatant is shown with its health (or, of another side, its coarse
health) and its conditions.
"""

from __future__ import annotations

from typing import Any

from clients.lines import (
    CommandError,
    Context,
    Data,
    Role,
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
from clients.verse_narration import VERSE_TELLING
from clients.words import Words, coarse_health

ANSWERS = ("dodge", "block", "holder_dodge")
"""Window options answered by the word alone (docs/protocol.md, `window`)."""


def verse_line(verb: str, args: list[str], context: Context) -> Data:
    """The command a Verse line means (the words every room knows are read already)."""
    if context.role == "gm":
        command = _gm(verb, args, context)
        if command is not None:
            return command
    return _play(verb, args, context)


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


def verse_help(role: Role) -> str:
    """What the screen prints for `help` in a Verse room, for the GM or a player."""
    return _GM_HELP + "\n" + _PLAY_HELP if role == "gm" else _PLAY_HELP


# --- a combatant at a glance ----------------------------------------------------------


def _health(combatant: Data) -> str:
    """Health in numbers for one's own side, the coarse state of another's."""
    if "health" in combatant:
        return f"health {combatant['health']}"
    return coarse_health(combatant)


def _conditions(combatant: Data) -> list[str]:
    """Verse's conditions (every one is visible at the table: dead, stunned, prone...)."""
    return [str(c.get("name", "?")) for c in combatant.get("conditions", []) if isinstance(c, dict)]


VERSE = Words(
    name="verse",
    read=verse_line,
    gm_only=frozenset(_GM_ONLY),
    help=verse_help,
    telling=VERSE_TELLING,
    health=_health,
    marks=_conditions,
)
"""Verse's entry in the ruleset table (`rulesets.py`)."""
