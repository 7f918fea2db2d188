"""What a person types, as the engine command to send: a pure function, no network.

`parse(text, context)` reads one line and returns what to do: a `Command` (a command
map for `Client.send`, docs/protocol.md "Engine commands"), `ActAs` (pick who acts),
`ShowHelp`, `Quit` or `Nothing`; a line it cannot read raises `CommandError` with a
stable code and a message saying how to write it. It never sends anything itself, so
a bad line changes nothing.

`context` is what the screen knows: the role, the combatants this seat controls, who
acts by default, and the open window (answers need its id and default to its
subject). The server still decides everything: the parser only spares people from
writing JSON, and `raw {...}` sends any command map as it is.

The words follow the rules' own: `declare` a round's Turn Events (V20), answer a window
with `dodge`, `block`, `hold ...`, `quick ...`, `counter ...`, `opportunity ...`,
`adapt ...` or `pass` (V22, V23), `pause`/`resume` (V24), `end` the turn.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Data = dict[str, Any]
Role = Literal["gm", "player", "spectator", "host"]


class CommandError(ValueError):
    """A line that is not a command: `code` is stable, `message` says how to write it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class OpenWindow:
    """The window the screen shows: its id, kind, whose action it answers, who is asked
    (with their options) and who has answered."""

    id: int
    kind: str
    about: str = ""
    asked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    answered: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    role: Role
    controls: tuple[str, ...] = ()
    actor: str = ""  # who acts when the line does not say (`as <id>`)
    window: OpenWindow | None = None


@dataclass(frozen=True)
class Command:
    command: Data


@dataclass(frozen=True)
class ActAs:
    combatant: str


@dataclass(frozen=True)
class ShowHelp:
    text: str


@dataclass(frozen=True)
class Look:
    """Print the fight at a glance (a screen-side command: nothing is sent)."""


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Nothing:
    pass


Parsed = Command | ActAs | ShowHelp | Look | Quit | Nothing

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
    if verb in ("help", "?"):
        return ShowHelp(help_text(context.role))
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
        return parse(rest, Context(context.role, context.controls, who, context.window))
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
        window = _int(args[0], "window") if args else _window(context).id
        return {"type": "CloseWindow", "window": window}
    if verb == "health":
        who, amount = _two(args, "health <combatant> <health>")
        return {"type": "SetHealth", "combatant": who, "health": _int(amount, "health")}
    if verb == "mana":
        who, amount = _two(args, "mana <combatant> <mana>")
        return {"type": "SetMana", "combatant": who, "mana": _int(amount, "mana")}
    if verb == "rewind":
        if len(args) != 1:
            raise CommandError("missing_argument", "rewind <seq>: the event to go back to")
        return {"type": "Rewind", "to_version": _int(args[0], "seq")}
    return None


# --- what players (and the GM for its combatants) type --------------------------------


def _play(verb: str, args: list[str], context: Context) -> Data:
    if verb == "pause":
        return {"type": "Pause", "by": _actor(context)}
    if verb == "resume":
        return {"type": "Resume", "by": _actor(context)}
    if verb == "declare":
        return _declare(args, context)
    if verb == "withdraw":
        turn = _turn(args, "withdraw [turn N]")
        return {"type": "Withdraw", "actor": _actor(context), "turn": turn}
    if verb == "end":
        return {"type": "EndTurn", "actor": _actor(context)}
    if verb == "pass":
        window = _window(context)
        return {"type": "PassWindow", "actor": _asked(context, window), "window": window.id}
    if verb in ANSWERS or verb == "holder-dodge":
        return _answer(context, verb.replace("-", "_"), None)
    if verb == "hold":
        planning = context.window is not None and context.window.kind == "planning"
        if not args and planning:
            actor = _actor(context)
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
        turn = _int(args[1], "turn") - 1
        if turn < 0:
            raise CommandError("bad_number", "turns count from 1")
        args = args[2:]
    if not args:
        raise CommandError("missing_argument", "declare <action> [then <action> ...]")
    actor = _actor(context)
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
    window = _window(context)
    actor = _asked(context, window)
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
        return _tagged("Move", actor=actor, path=[_cell(a) for a in args])
    if verb == "hold":
        return _tagged("HoldAction", actor=actor)
    if verb == "cast":
        return _cast(args, actor)
    if verb == "charge":
        targets = [a for a in args if "," not in a]
        cells = [_cell(a) for a in args if "," in a]
        return _tagged("ChargeSpell", actor=actor, targets=targets, target=_one_cell(cells))
    if verb == "stance":
        return _tagged("SetStance", actor=actor, stance=_one(args, "stance <stance>"))
    if verb == "use":
        return _tagged("UseItem", actor=actor, item=_one(args, "use <item>"))
    if verb == "face":
        return _tagged("Face", actor=actor, facing=_int(_one(args, "face <0-7>"), "facing"))
    if verb in ("ascend", "descend"):
        return _tagged("ChangeAscension", actor=actor, levels=1 if verb == "ascend" else -1)
    if verb == "stealth":
        return _tagged("StealthCheck", sneaker=actor, observer=_one(args, "stealth <observer>"))
    if verb == "mount":
        return _tagged("Mount", actor=actor, ride=_one(args, "mount <ride>"))
    if verb == "dismount":
        return _tagged("Dismount", actor=actor, cell=_cell(_one(args, "dismount <x,y>")))
    if verb == "awareness":
        awareness = _one(args, "awareness <alert|on_guard|distracted|preoccupied>")
        return _tagged("SetAwareness", actor=actor, awareness=awareness)
    if verb == "knock":
        target, item = _two(args, "knock <target> <item>")
        return _tagged("KnockAway", actor=actor, target=target, item=item)
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
    return _tagged(kind, actor=actor, target=target, weapon=weapon)


def _cast(args: list[str], actor: str) -> Data:
    """`cast "Magic Missile" g1 +1`: the spell, its targets (ids) or a cell (`x,y`) to
    aim at, and `+N` extra Spell Dice."""
    if not args:
        raise CommandError("missing_argument", 'cast "<spell>" [targets] [x,y] [+N]')
    spell, extra, targets, cells = args[0], 0, [], []
    for word in args[1:]:
        if word.startswith("+"):
            extra = _int(word[1:], "extra Spell Dice")
        elif "," in word:
            cells.append(_cell(word))
        elif word.lower() != "at":
            targets.append(word)
    return _tagged(
        "CastSpell",
        actor=actor,
        spell=spell,
        targets=targets,
        target=_one_cell(cells),
        extra_spell_dice=extra,
    )


# --- small readers --------------------------------------------------------------------


def _tagged(kind: str, **fields: Any) -> Data:
    return {"$type": kind, **fields}


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


def _actor(context: Context) -> str:
    """Who acts: the one named (`as`), else a player's only combatant."""
    if context.actor:
        return context.actor
    if context.role == "gm":
        raise CommandError("who_acts", "say whose action it is: as <combatant> ...")
    if len(context.controls) == 1:
        return context.controls[0]
    if not context.controls:
        raise CommandError("no_combatant", "this seat controls no combatant")
    raise CommandError("who_acts", f"say who acts: as <{'|'.join(context.controls)}> ...")


def _asked(context: Context, window: OpenWindow) -> str:
    """Who answers: the one named, else the one of a player's combatants the window
    waits for. The GM always names it: it could otherwise answer for a player."""
    if context.actor:
        return context.actor
    waiting = [c for c in window.asked if c not in window.answered]
    if context.role == "player":
        waiting = [c for c in waiting if c in context.controls]
        if len(waiting) == 1:
            return waiting[0]
        if not waiting and len(context.controls) == 1:
            return context.controls[0]  # not asked: the server says so (not_asked)
    names = "|".join(waiting) or "combatant"
    raise CommandError("who_acts", f"say who answers window {window.id}: as <{names}> ...")


def _window(context: Context) -> OpenWindow:
    if context.window is None:
        raise CommandError("no_window", "no window is open")
    return context.window


def _int(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise CommandError("bad_number", f"{what} must be a whole number, not {word!r}") from None


def _cell(word: str) -> Data:
    parts = word.strip("()").split(",")
    if len(parts) != 2:
        raise CommandError("bad_cell", f"a cell is x,y (like 3,2), not {word!r}")
    return _tagged("Cell", x=_int(parts[0], "x"), y=_int(parts[1], "y"))


def _one_cell(cells: list[Data]) -> Data | None:
    if len(cells) > 1:
        raise CommandError("too_many_arguments", "aim at one cell at most")
    return cells[0] if cells else None


def _one(args: list[str], usage: str) -> str:
    if len(args) != 1:
        raise CommandError("missing_argument" if not args else "too_many_arguments", usage)
    return args[0]


def _two(args: list[str], usage: str) -> tuple[str, str]:
    if len(args) != 2:
        raise CommandError("missing_argument" if len(args) < 2 else "too_many_arguments", usage)
    return args[0], args[1]


def _turn(args: list[str], usage: str) -> int:
    if not args:
        return 0
    if len(args) != 2 or args[0].lower() != "turn":
        raise CommandError("missing_argument", usage)
    turn = _int(args[1], "turn") - 1
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


def help_text(role: Role) -> str:
    """What the screen prints for `help`."""
    if role == "gm":
        return _GM_HELP + "\n" + _PLAY_HELP
    if role == "player":
        return _PLAY_HELP
    return "You are watching: the fight prints as it happens. look: the fight now; quit: leave."
