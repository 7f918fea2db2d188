"""What a person types in a World of Tael room, as the engine command to send (pure).

`commands.parse` reads the words every room knows and hands the rest here when the
room's ruleset is Tael (`welcome.ruleset`, looked up in `rulesets.py`). Tael is played
turn by turn (TR1): there is no planning window to declare in, so on its turn a
combatant's actions are sent at once (docs/protocol.md, "World of Tael commands"). The
words are the rules' own:

* the Action Phase (T2-T9): `attack <target> [weapon]`, `offhand <target> [weapon]`
  (T5), `cast <spell> [at] <target> ...` (T4), `punch <target> [bonus]`, `move x,y ...`,
  `dash`, `sprint`, `brace`, `hide`, `help <ally>`, `check <skill> [bonus]`,
  `surrender [bonus]`, `pick up <weapon> [bonus]`, `equip <main> [off] [bonus]`,
  `stance tanking|dodging` (T7), and `end` to end it;
* the Preparation Phase (T2): `prepare <move>` announces the move; when a reaction
  window offers it, typing the move's name (`riposte`, `covering shot`) or
  `use <move>` answers with it, `... with <weapon>` strikes back with another weapon
  in hand; `pass` lets the window go by;
* the GM: `start`, `end` (whoever's turn it is), `end combat` (T10), `hp <combatant>
  <n>`, `remove-status <combatant> <status>`, `close`, `skip`, `rewind <seq>`,
  `pause`, `resume`, `refuse`, and anything above after `as <combatant>`.

Several words join into one name where a name may have spaces (`attack bandit hand
axe`, `prepare Covering Shot`); quotes work too. `bonus` at the end of a generic bonus
action spends the Bonus Action instead of an Action (T9). `help` followed by a name
is Tael's Help action, not the program's help (`claims`). A combatant is shown with
its hit points (or, of another side, its coarse health), its statuses (T6) and whether
it fainted or died (T8).
"""

from __future__ import annotations

from clients.lines import (
    CommandError,
    Context,
    Data,
    Role,
    acting,
    cell,
    one,
    open_window,
    pass_window,
    tagged,
    two,
    waiting_one,
    whole_number,
)
from clients.tael_folding import TAEL_FOLDING
from clients.tael_narration import TAEL_TELLING
from clients.words import Words, coarse_health

TAEL_GM_ONLY = ("start", "refuse", "close", "skip", "hp", "health", "remove-status", "rewind")
VERSE_ONLY = (
    "declare",
    "withdraw",
    "dodge",
    "block",
    "holder-dodge",
    "hold",
    "quick",
    "counter",
    "opportunity",
    "adapt",
)
STANCES = ("tanking", "dodging")
BONUS = "bonus"


def tael_line(verb: str, args: list[str], context: Context) -> Data:
    """The command a Tael line means (the words after `help`, `raw` and `as` are read)."""
    if context.role == "gm":
        found = _gm(verb, args, context)
        if found is not None:
            return found
    return _play(verb, args, context)


# --- the GM's own commands ------------------------------------------------------------


def _gm(verb: str, args: list[str], context: Context) -> Data | None:
    if verb == "start":
        return {"type": "StartCombat"}
    if verb == "pause":
        return {"type": "Pause", "by": "gm"}
    if verb == "resume":
        return {"type": "Resume", "by": "gm"}
    if verb == "refuse":
        return {"type": "RefusePause"}
    if verb == "close":
        window = whole_number(args[0], "window") if args else open_window(context).id
        return {"type": "CloseWindow", "window": window}
    if verb == "end" and [a.lower() for a in args] == ["combat"]:
        return {"type": "EndCombat"}
    if (verb == "end" and not args and not context.actor) or verb == "skip":
        return {"type": "EndTurn", "actor": ""}  # whoever's turn it is
    if verb in ("hp", "health"):
        who, amount = two(args, "hp <combatant> <hit points>")
        points = whole_number(amount, "hit points")
        return {"type": "SetHitPoints", "combatant": who, "hit_points": points}
    if verb == "remove-status":
        if len(args) < 2:
            raise CommandError("missing_argument", "remove-status <combatant> <status>")
        return {"type": "RemoveStatus", "combatant": args[0], "status": " ".join(args[1:])}
    if verb == "rewind":
        if len(args) != 1:
            raise CommandError("missing_argument", "rewind <seq>: the event to go back to")
        return {"type": "Rewind", "to_version": whole_number(args[0], "seq")}
    return None


# --- what players (and the GM for its combatants) type --------------------------------


def _play(verb: str, args: list[str], context: Context) -> Data:
    answer = _move_answer([verb, *args], context)
    if answer is not None:
        return answer
    if verb == "pass":
        return pass_window(context)
    if verb == "use":
        return _use(args, context)
    if verb in ("pause", "resume"):
        return {"type": verb.capitalize(), "by": acting(context)}
    if verb == "end":
        if args:
            raise CommandError("gm_only", "only the GM may end combat")
        return {"type": "EndTurn", "actor": acting(context)}
    if verb == "prepare":
        if not args:
            raise CommandError("missing_argument", "prepare <move>: the move to announce")
        return {"type": "Prepare", "actor": acting(context), "move": " ".join(args)}
    if verb in VERSE_ONLY:
        raise CommandError(
            "unknown_command",
            f"World of Tael is played turn by turn: no {verb!r} here (on your turn act "
            "at once; in a reaction window type your prepared move or pass). Type 'help'",
        )
    return _action(verb, args, acting(context))


def _action(verb: str, args: list[str], actor: str) -> Data:
    """One thing done in the Action Phase (T2-T9)."""
    if verb in ("attack", "offhand", "off-hand"):
        if not args:
            raise CommandError("missing_argument", f"{verb} <target> [weapon]")
        return {
            "type": "AttackAction",
            "actor": actor,
            "target": args[0],
            "weapon": " ".join(args[1:]),
            "off_hand": verb != "attack",
        }
    if verb == "cast":
        return _cast(args, actor)
    if verb == "move":
        if not args:
            raise CommandError("missing_argument", "move <x,y> [<x,y> ...]: each tile")
        return {"type": "MoveTiles", "actor": actor, "path": [cell(a) for a in args]}
    if verb in ("dash", "sprint", "brace", "hide"):
        if args:
            raise CommandError("too_many_arguments", f"{verb} takes nothing more")
        return {"type": verb.capitalize(), "actor": actor}
    if verb == "help":
        return {"type": "Help", "actor": actor, "target": one(args, "help <fainted ally>")}
    if verb == "stance":
        stance = one(args, "stance tanking|dodging").lower()
        if stance not in STANCES:
            raise CommandError("bad_stance", f"a stance is tanking or dodging, not {stance!r}")
        return {"type": "ChooseStance", "actor": actor, "stance": stance}
    return _bonus_action(verb, args, actor)


def _bonus_action(verb: str, args: list[str], actor: str) -> Data:
    """The generic bonus actions (T9): an Action, or with `bonus` the Bonus Action."""
    as_bonus = bool(args) and args[-1].lower() == BONUS
    rest = args[:-1] if as_bonus else args
    if verb == "punch":
        target = one(rest, "punch <target> [bonus]")
        return {"type": "Punch", "actor": actor, "target": target, "as_bonus": as_bonus}
    if verb == "check":
        skill = one(rest, "check <skill> [bonus]")
        return {"type": "SkillCheck", "actor": actor, "skill": skill, "as_bonus": as_bonus}
    if verb == "surrender":
        if rest:
            raise CommandError("too_many_arguments", "surrender [bonus]")
        return {"type": "Surrender", "actor": actor, "as_bonus": as_bonus}
    if verb in ("pick", "pickup"):
        if verb == "pick" and rest[:1] == ["up"]:
            rest = rest[1:]
        if not rest:
            raise CommandError("missing_argument", "pick up <weapon> [bonus]")
        weapon = " ".join(rest)
        return {"type": "PickUp", "actor": actor, "weapon": weapon, "as_bonus": as_bonus}
    if verb == "equip":
        if not 1 <= len(rest) <= 2:
            raise CommandError(
                "missing_argument" if not rest else "too_many_arguments",
                'equip <main hand> [<off hand>] [bonus]: quote names with spaces, "-" for '
                "an empty hand",
            )
        main, off = (_hand(rest[0]), _hand(rest[1]) if len(rest) > 1 else "")
        return {
            "type": "EquipWeapon",
            "actor": actor,
            "main_hand": main,
            "off_hand": off,
            "as_bonus": as_bonus,
        }
    raise CommandError("unknown_command", f"no command {verb!r}: type 'help'")


def _hand(word: str) -> str:
    return "" if word == "-" else word


def _cast(args: list[str], actor: str) -> Data:
    """`cast Ember Spray at bandit cultist`, or `cast "Ember Spray" bandit cultist`."""
    lowered = [a.lower() for a in args]
    if "at" in lowered:
        split = lowered.index("at")
        spell, targets = " ".join(args[:split]), args[split + 1 :]
    else:
        spell, targets = (args[0], args[1:]) if args else ("", [])
    if not spell or not targets:
        raise CommandError("missing_argument", "cast <spell> [at] <target> [<target> ...]")
    return {"type": "SpellAction", "actor": actor, "spell": spell, "targets": targets}


# --- answering a reaction window with a prepared move (T2) ----------------------------


def _move_answer(words: list[str], context: Context) -> Data | None:
    """The line names a move the open window offers the one answering: use it."""
    window = context.window
    if window is None:
        return None
    who = waiting_one(context, window)
    if not who:
        return None
    name, weapon = _with_weapon(words)
    for option in window.asked.get(who, ()):
        if option.lower() == name.lower():
            return _answer(context, who, option, weapon)
    return None


def _use(args: list[str], context: Context) -> Data:
    """`use <move> [with <weapon>]`: answer the open window with a prepared move."""
    window = open_window(context)
    if not args:
        raise CommandError("missing_argument", "use <move> [with <weapon>]")
    who = waiting_one(context, window) or acting(context)
    name, weapon = _with_weapon(args)
    offered = window.asked.get(who, ())
    chosen = next((o for o in offered if o.lower() == name.lower()), name)
    if offered and chosen not in offered:
        choices = ", ".join(offered)
        raise CommandError("not_offered", f"{who} may answer window {window.id} with {choices}")
    return _answer(context, who, chosen, weapon)


def _with_weapon(words: list[str]) -> tuple[str, str]:
    """`Riposte with parrying dagger` -> ("Riposte", "parrying dagger")."""
    lowered = [w.lower() for w in words]
    if "with" in lowered[1:]:
        split = lowered.index("with", 1)
        return " ".join(words[:split]), " ".join(words[split + 1 :])
    return " ".join(words), ""


def _answer(context: Context, who: str, option: str, weapon: str) -> Data:
    window = open_window(context)
    strike = None
    if weapon:
        strike = tagged("PreparedStrike", actor=who, target=window.about, weapon=weapon)
    return {"type": "Answer", "actor": who, "window": window.id, "option": option, "action": strike}


# --- help -----------------------------------------------------------------------------

_PLAY_HELP = """\
World of Tael is played turn by turn. On your turn (your Action Phase):
  attack <target> [weapon]      offhand <target> [weapon]     punch <target> [bonus]
  cast <spell> [at] <target> ...      move x,y [x,y ...]      stance tanking|dodging
  dash | sprint | brace | hide | help <fainted ally> | check <skill> [bonus]
  surrender [bonus] | pick up <weapon> [bonus] | equip <main> [<off>|-] [bonus]
  end (ends the Action Phase: your Preparation Phase begins)
In your Preparation Phase: prepare <move> (announced, hidden from the other side)
When a reaction window offers your move: type its name (e.g. riposte), or
  use <move> [with <weapon>]; or pass
Any time: pause | resume | as <combatant> [command] | raw <json command>
  look (the fight at a glance) | help | quit"""

_GM_HELP = """\
The GM:
  start | end (whoever's turn it is) | end combat | pause | resume | refuse | close [window]
  hp <combatant> <n> | remove-status <combatant> <status> | rewind <seq> | raw <json command>
For your combatants, anything a player types, after 'as <combatant>':
  as bandit attack kaelen   as bandit shield up   as cultist pass   as bandit end
"""


def tael_help(role: Role) -> str:
    """What the screen prints for `help` in a Tael room."""
    return _GM_HELP + "\n" + _PLAY_HELP if role == "gm" else _PLAY_HELP


def _claims(verb: str, args: list[str]) -> bool:
    """`help <ally>` is the Help action (T9); `help` alone is the program's help."""
    return verb == "help" and bool(args)


# --- a combatant at a glance ----------------------------------------------------------


def _hit_points(combatant: Data) -> str:
    """Hit points for one's own side, the coarse state of another's."""
    if "hit_points" in combatant:
        return f"hit points {combatant['hit_points']}"
    return coarse_health(combatant)


def _marks(combatant: Data) -> list[str]:
    """Its statuses (T6), then whether it fainted or died (T8)."""
    marks = [str(s.get("name", "?")) for s in combatant.get("statuses", []) if isinstance(s, dict)]
    return marks + [flag for flag in ("fainted", "dead") if combatant.get(flag) is True]


def _able(combatant: Data) -> bool:
    """Not dead, fainted or surrendered (T10: what ends a fight)."""
    return not (combatant.get("dead") or combatant.get("fainted") or combatant.get("surrendered"))


TAEL = Words(
    name="tael",
    read=tael_line,
    gm_only=frozenset(TAEL_GM_ONLY),
    help=tael_help,
    telling=TAEL_TELLING,
    health=_hit_points,
    marks=_marks,
    claims=_claims,
    folding=TAEL_FOLDING,
    able=_able,
)
"""Tael's entry in the ruleset table (`rulesets.py`)."""
