"""What a person types in a Verse Chronicles room, as the engine command to send (pure).

`commands.parse` reads the words every room knows (help, quit, look, raw, as) and hands
the rest here when the room's ruleset is Verse (`welcome.ruleset`, looked up in
`rulesets.py`). The words follow Verse's rules: `declare` a round's Turn Events (V20),
answer a window with `dodge`, `block`, `hold ...`, `quick ...`, `counter ...`,
`opportunity ...`, `adapt ...` or `pass` (V22, V23), `pause`/`resume` (V24), `end` the
turn. In Turn Based Combat (V25) nothing is declared: the action words alone (`attack
g1 spear`) send the action itself; `declare turn 2 pass` declares a turn that does
nothing. The GM also has `start`, `refuse`, `close`, `skip`, `health`, `mana`,
`condition`/`uncondition` (SetCondition, RemoveCondition), `end combat`, `rewind`,
`add <sheet file> <id> <side> <x,y> [facing]` (AddCombatant, the sheet file read by the
screen and made a record by `verse_sheets.py`), `remove <id>` (RemoveCombatant) and
`recover <id> <item>` (RecoverItem), `approve`/`unapprove <id> counter|quick`
(ApproveFeat, WithdrawApproval: Verse Master approval, R73); after a health override
it is told what the override leaves alone (`advice`: health 0 is not Dead, the engine
keeps them apart).
The World of Tael GM's `hp`, `status` and `remove-status` are refused with their Verse
words (`TAEL_GM_WORDS`); `knock` only answers a Quick Response window (R54). An
answer goes to the window whose prompt was seen (`lines.answer_window`), a declaration
only while the planning window seen is open (`lines.still_planning`). A combatant is
shown with its health, armour and mana (or, of another side, its coarse health), its
conditions and what it dropped or has Broken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from clients.lines import (
    AddFromSheet,
    CommandError,
    Context,
    Data,
    Role,
    acting,
    answer_window,
    cell,
    end_combat,
    one,
    one_cell,
    open_window,
    pass_window,
    still_planning,
    tagged,
    two,
    whole_number,
    window_of,
)
from clients.verse_sheets import verse_combatant
from clients.words import Words

ANSWERS = ("dodge", "block", "holder_dodge")
"""Window options answered by the word alone (docs/protocol.md, `window`)."""


def verse_line(verb: str, args: list[str], context: Context) -> Data | AddFromSheet:
    """The command a Verse line means (the words every room knows are read already)."""
    if context.role == "gm":
        if verb == "add":
            return _add(args)
        command = _gm(verb, args, context)
        if command is not None:
            return command
    return _play(verb, args, context)


# --- the GM's own commands ------------------------------------------------------------

_GM_ONLY = (
    "start",
    "refuse",
    "close",
    "skip",
    "health",
    "mana",
    "rewind",
    "condition",
    "uncondition",
    "add",
    "remove",
    "recover",
    "approve",
    "unapprove",
)

APPROVALS = {"counter": "counter", "quick": "quick_response", "quick_response": "quick_response"}


def _approval(verb: str, args: list[str]) -> Data:
    """`approve bram counter`, `unapprove bram quick`: Verse Master approval (R73)."""
    usage = f"{verb} <combatant> counter|quick"
    if len(args) != 2:
        raise CommandError("missing_argument", usage)
    kind = APPROVALS.get(args[1].lower())
    if kind is None:
        raise CommandError("bad_argument", f"{usage}: not {args[1]!r}")
    command = "ApproveFeat" if verb == "approve" else "WithdrawApproval"
    return {"type": command, "combatant": args[0], "kind": kind}


ADD_USAGE = "add <sheet file> <id> <side> <x,y> [facing 0-7]  (add goblin.toml g3 goblins 2,1)"


def _add(args: list[str]) -> AddFromSheet:
    """`add goblin.toml g3 goblins 2,1 [facing]`: a combatant made from a sheet file,
    as `combat create` makes one from an encounter's entry; the screen reads the file."""
    if not 4 <= len(args) <= 5:
        raise CommandError("missing_argument" if len(args) < 4 else "too_many_arguments", ADD_USAGE)
    path, who, side, at = args[:4]
    facing = whole_number(args[4], "facing") if len(args) == 5 else 0
    return AddFromSheet(path, who, side, cell(at), facing)


CONDITIONS = (
    "Dead",
    "Unconscious",
    "Stunned",
    "Knocked Out",
    "Exhausted",
    "Prone",
    "Bleed",
    "Shaken",
    "Blinded",
    "Paranoid Insanity",
    "Armour Fragile",
)
"""The conditions the Verse text names (docs/rules.md): `condition g1 dead` means Dead,
since the engine matches a condition's name exactly and `dead` would be another one."""


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
    if verb == "end" and [a.lower() for a in args][:1] == ["combat"]:
        return end_combat(args)
    if verb == "remove":
        return {"type": "RemoveCombatant", "combatant": one(args, "remove <combatant>")}
    if verb in ("approve", "unapprove"):
        return _approval(verb, args)
    if verb == "recover":
        if len(args) < 2:
            raise CommandError("missing_argument", "recover <combatant> <item>")
        return {"type": "RecoverItem", "combatant": args[0], "item": " ".join(args[1:])}
    if verb == "condition":
        return _set_condition(args, context)
    if verb == "uncondition":
        if len(args) < 2:
            raise CommandError("missing_argument", "uncondition <combatant> <condition>")
        who, name = args[0], _condition_name(args[1:], context.combatant(args[0]))
        return {"type": "RemoveCondition", "combatant": who, "condition": name}
    return None


def _set_condition(args: list[str], context: Context) -> Data:
    """`condition g1 Stunned 2`: SetCondition for 2 round ends; without a number, until
    removed. A name of several words needs no quotes: `condition g1 Knocked Out`."""
    usage = "condition <combatant> <condition> [rounds]"
    if len(args) < 2:
        raise CommandError("missing_argument", usage)
    who, rest = args[0], args[1:]
    rounds = None
    if len(rest) > 1 and rest[-1].lstrip("-").isdigit():
        rounds = whole_number(rest[-1], "rounds")
        rest = rest[:-1]
    if rest[0].lstrip("-").isdigit():  # `condition g1 2`: the rounds without a name
        raise CommandError("missing_argument", f"name the condition first: {usage}")
    name = _condition_name(rest, context.combatant(who))
    return {"type": "SetCondition", "combatant": who, "condition": name, "rounds": rounds}


def _condition_name(words: list[str], combatant: Mapping[str, Any]) -> str:
    """The condition as the engine names it: one the combatant has or the text names,
    matched without regard to case; another name is a condition of the GM's own."""
    typed = " ".join(words)
    has = [str(c.get("name")) for c in combatant.get("conditions", []) if isinstance(c, Mapping)]
    for name in (*has, *CONDITIONS):
        if name.lower() == typed.lower():
            return name
    return typed


def advice(command: Data, context: Context) -> str | None:
    """What the GM should know when a health override is accepted: health and the Dead
    condition are kept apart (the engine's GM overrides), so `health g1 0` does not kill
    and `health g1 5` does not raise the dead."""
    if command.get("type") != "SetHealth":
        return None
    who, health = str(command.get("combatant")), command.get("health")
    dead = any(
        isinstance(c, Mapping) and c.get("name") == "Dead"
        for c in context.combatant(who).get("conditions", [])
    )
    if health == 0 and not dead:
        return (
            f"health 0 is not Dead: {who} stays in the fight until you add the condition "
            f"(condition {who} Dead)"
        )
    if isinstance(health, int) and health > 0 and dead:
        return f"{who} stays Dead until you remove the condition (uncondition {who} Dead)"
    return None


# --- what players (and the GM for its combatants) type --------------------------------


def _play(verb: str, args: list[str], context: Context) -> Data:
    if verb == "pause":
        return {"type": "Pause", "by": acting(context)}
    if verb == "resume":
        return {"type": "Resume", "by": acting(context)}
    if verb == "declare":
        if context.turn_based:
            raise CommandError(
                "turn_based",
                "this fight is turn based (V25): nothing is declared; on your turn type "
                "the action itself (attack g1 spear, move 1,0 2,0, ...), then end",
            )
        return _declare(args, context)
    if verb == "withdraw":
        turn = _turn(args, "withdraw [turn N]")
        actor = acting(context)
        still_planning(context, actor)
        return {"type": "Withdraw", "actor": actor, "turn": turn}
    if verb == "end":
        if [a.lower() for a in args][:1] == ["combat"]:
            raise CommandError("gm_only", "only the GM may end combat")
        return {"type": "EndTurn", "actor": acting(context)}
    if verb == "pass":
        return pass_window(context)
    if verb in ANSWERS or verb == "holder-dodge":
        return _answer(context, verb.replace("-", "_"), None)
    if verb == "hold":
        if not args and _planning(context):
            actor = acting(context)
            still_planning(context, actor)
            return _declaration(actor, [{"$type": "HoldAction", "actor": actor}], 0)
        if not args and context.turn_based and context.window is None:
            return _taken(["hold"], context)
        if not args:
            raise CommandError("missing_argument", "hold <action>: what the held action does")
        return _answer(context, "hold", lambda actor, bound: _action(args, actor, bound))
    if verb == "quick":
        if not args:
            raise CommandError("missing_argument", "quick <action>: the Quick Response")
        return _answer(
            context,
            "quick_response",
            lambda actor, bound: _action(args, actor, bound, quick=True),
        )
    if verb in ("counter", "opportunity"):
        kind = "Counter" if verb == "counter" else "OpportunityAttack"
        return _answer(context, verb, lambda actor, bound: _strike(kind, args, actor, bound))
    if verb == "adapt":
        if not args:
            return _answer(context, "adapt", None)
        return _answer(context, "adapt", lambda actor, bound: _action(args, actor, bound))
    if verb == "knock":
        raise _knock_is_quick()
    if verb in TAEL_GM_WORDS:
        raise CommandError(
            "not_in_verse",
            f"'{verb}' is a World of Tael GM command; in this Verse Chronicles room: "
            f"{TAEL_GM_WORDS[verb]}",
        )
    if verb in TURN_ACTIONS:
        if context.turn_based:
            return _taken([verb, *args], context)
        raise CommandError(
            "unknown_command",
            f"in Live Combat actions are declared in the planning window (V20): "
            f"declare {verb} ... ; type 'help'",
        )
    raise CommandError("unknown_command", f"no command {verb!r}: type 'help'")


TURN_ACTIONS = (
    "attack",
    "ascend-attack",
    "move",
    "cast",
    "charge",
    "stance",
    "use",
    "face",
    "ascend",
    "descend",
    "stealth",
    "mount",
    "dismount",
    "awareness",
)
"""The action words a turn-based room takes on their own, as `declare` takes them."""

TAEL_GM_WORDS = {
    "hp": "health <combatant> <n>",
    "status": "condition <combatant> <condition> [rounds]",
    "remove-status": "uncondition <combatant> <condition>",
}
"""The World of Tael GM's words, and what a Verse room has instead."""


def _knock_is_quick() -> CommandError:
    """R54: knocking an item away is a Quick Response, the answer to a window that
    offers it, never a declared or turn-based action (the server refuses those)."""
    return CommandError(
        "quick_response_only",
        "knocking an item away is a Quick Response (R54): when a window offers "
        "quick_response, type quick knock <target> <item>",
    )


def _taken(words: list[str], context: Context) -> Data:
    """V25: in Turn Based Combat an action is sent as it is taken, the command itself
    (`{"type": "Attack", ...}`) rather than declared inside a `Declare`."""
    action = _action(words, acting(context), context)
    kind = action.pop("$type")
    return {"type": kind, **action}


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
    still_planning(context, actor)
    if [a.lower() for a in args] == ["pass"]:  # V20: this turn declares nothing
        return _declaration(actor, [], turn)
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


def _planning(context: Context) -> bool:
    """Whether a bare `hold` declares (the window its actor saw is a planning one)."""
    actor = context.actor or (context.controls[0] if len(context.controls) == 1 else "")
    window = window_of(context, actor) if actor else context.window
    return window is not None and window.kind == "planning"


def _answer(context: Context, option: str, action: Callable[[str, Context], Data] | None) -> Data:
    """`Answer` the window the person saw asking the one who answers (`answer_window`);
    `action` builds the answer's action in that window's context (a counter strikes
    that window's subject)."""
    actor, window = answer_window(context)
    offered = window.asked.get(actor, ())
    if offered and option not in offered:
        choices = ", ".join(offered)
        raise CommandError("not_offered", f"{actor} may answer window {window.id} with {choices}")
    bound = replace(context, window=window)
    return {
        "type": "Answer",
        "actor": actor,
        "window": window.id,
        "option": option,
        "action": action(actor, bound) if action is not None else None,
    }


def _action(words: list[str], actor: str, context: Context, *, quick: bool = False) -> Data:
    """One game action (docs/protocol.md, "Game actions"), tagged as nested records are;
    `quick`: a Quick Response's, the only place a knock goes (R54)."""
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
            raise CommandError(
                "missing_argument",
                "move <x,y> [<x,y> ...]: every step, one adjacent cell after another",
            )
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
        # V26: one move covers as many levels as the speed allows ("ascend 2").
        if len(args) > 1:
            raise CommandError("too_many_arguments", f"{verb} [levels]")
        count = whole_number(args[0], "levels") if args else 1
        if count < 1:
            raise CommandError("bad_number", f"{verb} [levels]: levels is a whole number from 1")
        return tagged("ChangeAscension", actor=actor, levels=count if verb == "ascend" else -count)
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
        if not quick:
            raise _knock_is_quick()
        target, item = two(args, "knock <target> <item>")
        return tagged("KnockAway", actor=actor, target=target, item=item)
    raise CommandError("unknown_action", f"no action {verb!r}: type 'help'")


ANSWERING_STRIKES = ("Counter", "OpportunityAttack")


def _strike(kind: str, args: list[str], actor: str, context: Context) -> Data:
    """An attack of some kind: `<target> [weapon]`. A counter or an opportunity
    (answers typed in a hurry) defaults to the window's subject (the attacker, the
    mover) and to the weapon in hand (`weapon_in_hand`); an attack names its weapon
    or is unarmed."""
    if len(args) > 2:
        raise CommandError("too_many_arguments", f"{kind}: <target> [weapon]")
    target = args[0] if args else ""
    if not target and kind in ANSWERING_STRIKES and context.window is not None:
        target = context.window.about
    if not target:
        raise CommandError("missing_argument", "whom? <target> [weapon]")
    weapon = args[1] if len(args) > 1 else ""
    if not weapon and kind in ANSWERING_STRIKES:
        weapon = weapon_in_hand(context.combatant(actor))
    return tagged(kind, actor=actor, target=target, weapon=weapon)


def weapon_in_hand(combatant: Mapping[str, Any]) -> str:
    """The first item the card shows in hand that is not Broken (V6: the server's own
    default is the sheet's first weapon in hand); "" (unarmed) when the card shows
    none, as for another side's combatant."""
    broken = set(combatant.get("broken", ()))
    for item in combatant.get("hands", ()):
        if isinstance(item, str) and item not in broken:
            return item
    return ""


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
Declare in the planning window (several actions: 'then' or ';'):
  declare attack g1 longsword          declare move 1,0 then attack g1 spear
  declare turn 2 attack g2 spear       declare hold       declare cast "Magic Missile" g1 +1
  declare turn 2 pass (that turn does nothing; 'pass' alone passes every turn left)
  turns count from 1 in initiative order: with two turns a round (V16), turn 1 is the
    one at your highest initiative, turn 2 the one at your lower ('declare' alone: turn 1)
  move x,y ... lists every step, one adjacent cell after another, not only where it ends:
    from 0,0 to 2,0 is 'declare move 1,0 2,0'; 'move 2,0' from 0,0 is not a step (the
    declaration is refused: not_adjacent)
  other actions: stance <s>, use <item>, face <n>, ascend [levels], descend [levels],
  charge [targets], stealth <observer>, mount <ride>, dismount x,y
  a spell over 10 MC is charged (V12): one action a round, the cast the first; in each
    later round 'declare charge', or the spell is lost at the round's end
  withdraw [turn N]
Answer the open window (the prompt lists your options):
  dodge | block | holder-dodge | hold <action> | quick knock <target> <item>
  counter [target] [weapon] | opportunity [target] [weapon] | adapt [<action>] | pass
  (a counter or opportunity strikes the window's subject with your weapon in hand;
  a knock is only a Quick Response, when a window offers quick_response)
In a turn-based fight, nothing is declared: on your turn type each action as it is
  taken (attack g1 spear, move 1,0 2,0, cast "Magic Missile" g1, charge, hold, ...),
  then end
Any time: pause | resume | as <combatant> [command] | raw <json command>
  look (the fight at a glance) | help | quit"""

_GM_HELP = """\
The GM:
  start | pause | resume | refuse (a player's pause: as if never made) | close [window] | skip
  end combat [agreed] (the fight is over; agreed: everyone agreed to stop) | rewind <seq>
  raw <json command>
  health <combatant> <n> | mana <combatant> <n>   (health 0 is not Dead: add it below)
  condition <combatant> <condition> [rounds]   (condition g1 Dead; condition g1 Stunned 2)
  uncondition <combatant> <condition>          (uncondition g1 Dead: health never lifts it)
  add <sheet file> <id> <side> <x,y> [facing]  (add goblin.toml g3 goblins 2,1: a sheet
    file as in an encounter, its path from where you started 'combat')
  remove <combatant>                           (takes it out of the fight)
  recover <combatant> <item>   (a dropped or Broken weapon or item back in hand, whole)
  approve <combatant> counter|quick   (Counter or Quick Response without the feat, R73)
  unapprove <combatant> counter|quick (takes that approval back)
  plays [<combatant> ...]   (whom you are prompted for: yours; 'plays' alone lists them)
  invites | revoke <code> [reissue]   (the room's invite codes; reissue: a fresh one)
For your combatants, anything a player types, after 'as <combatant>' (the prompts
  say so: '>>> Goblin (g1): dodge | block | pass  [window 7]  (as g1 ...)'):
  as g1 declare attack ayla scimitar   as g1 dodge   as g2 pass
"""


def verse_help(role: Role) -> str:
    """What the screen prints for `help` in a Verse room, for the GM or a player."""
    return _GM_HELP + "\n" + _PLAY_HELP if role == "gm" else _PLAY_HELP


VERSE = Words(
    name="verse",
    read=verse_line,
    gm_only=frozenset(_GM_ONLY),
    help=verse_help,
    advice=advice,
    new_combatant=verse_combatant,
)
"""Verse's entry in the ruleset table (`rulesets.py`)."""
