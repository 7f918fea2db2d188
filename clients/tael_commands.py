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
  <n>`, `remove-status <combatant> <status>`, `status <combatant> <status> <turns>
  [<damage dice>] [skips]` (TR37), `close`, `skip`, `rewind <seq>`,
  `pause`, `resume`, `refuse`, and anything above after `as <combatant>`; `add` and
  `remove` are refused here with the reason (the server takes them in Verse rooms only),
  and the Verse GM's `condition`, `uncondition`, `recover` and `mana` with what a Tael
  room has instead (`VERSE_GM_WORDS`; `health` is taken as `hp`).

Several words join into one name where a name may have spaces (`attack bandit hand
axe`, `prepare Covering Shot`); quotes work too. `bonus` at the end of a generic bonus
action spends the Bonus Action instead of an Action (T9). `help` followed by a name
is Tael's Help action, not the program's help (`claims`).
"""

from __future__ import annotations

from clients.lines import (
    CommandError,
    Context,
    Data,
    OpenWindow,
    Role,
    acting,
    cell,
    end_combat,
    one,
    open_window,
    pass_window,
    refuse_closed,
    tagged,
    two,
    waiting_one,
    whole_number,
    window_of,
)
from clients.words import Words

TAEL_GM_ONLY = (
    "start",
    "refuse",
    "close",
    "skip",
    "hp",
    "health",
    "remove-status",
    "status",
    "rewind",
    "add",
    "remove",
)
NO_ROSTER_CHANGES = (
    "a World of Tael room cannot add or remove combatants: the server takes AddCombatant "
    "and RemoveCombatant in Verse rooms only (docs/protocol.md, World of Tael commands)"
)
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
VERSE_GM_WORDS = {
    "condition": (
        "a status the GM rules (TR37): status <combatant> <status> <turns> [<damage dice>] [skips]"
    ),
    "uncondition": "remove-status <combatant> <status>",
    "recover": (
        "no such override: a dropped weapon is picked up by its owner on its turn "
        "(as <combatant> pick up <weapon>)"
    ),
    "mana": "no Mana Pool to set: the GM's overrides here are hp, status and remove-status",
}
"""The Verse GM's words with no meaning here, and what a Tael room has instead (`health`
is taken here as `hp`; `add` and `remove`: `NO_ROSTER_CHANGES`)."""
ACTION_WORDS = frozenset(
    {"attack", "offhand", "off-hand", "cast", "move", "dash", "sprint", "brace", "hide"}
    | {"help", "stance", "punch", "check", "surrender", "pick", "pickup", "equip"}
)
"""The Action Phase's words (`_action`): any other word is not a command here, whoever
acts."""
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

STATUS_USAGE = "status <combatant> <status> <turns> [<damage dice>] [skips]"


def _status(args: list[str]) -> Data:
    """`status bandit Frozen 2 skips`, `status bandit Burning 3 1d4`: the GM lays a status
    it rules (TR37) for that many of the target's turns, with damage at the start of
    each and `skips` when it loses them. The status's name runs up to the first whole
    number (the turns); after it come only the damage dice and `skips`, and a word that
    is neither is named in the refusal."""
    if len(args) < 3:
        raise CommandError("missing_argument", STATUS_USAGE)
    who, rest = args[0], args[1:]
    at = next((i for i, word in enumerate(rest) if i > 0 and _whole(word)), None)
    if at is None:
        raise CommandError(
            "bad_number", f"turns must be a whole number, not {rest[-1]!r}: {STATUS_USAGE}"
        )
    name, turns, extra = " ".join(rest[:at]), int(rest[at]), rest[at + 1 :]
    damage, skips = "", False
    for word in extra:
        if word.lower() in ("skips", "skip") and not skips:
            skips = True
        elif _looks_like_dice(word) and not damage:
            damage = word
        elif any(c.isdigit() for c in word) and not damage:
            raise CommandError(
                "bad_dice", f"damage dice are written like 1d4 or 2d6, not {word!r}: {STATUS_USAGE}"
            )
        else:
            raise CommandError(
                "too_many_arguments",
                f"{word!r} after the turns is neither damage dice nor 'skips': {STATUS_USAGE}",
            )
    return {
        "type": "SetStatus",
        "combatant": who,
        "status": name,
        "turns": turns,
        "damage": damage,
        "skips_turn": skips,
    }


def _whole(word: str) -> bool:
    return word.lstrip("-").isdigit()


def _looks_like_dice(word: str) -> bool:
    head, _, tail = word.lower().partition("d")
    return bool(tail) and (head == "" or head.isdigit()) and tail[:1].isdigit()


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
    if verb == "end" and [a.lower() for a in args][:1] == ["combat"]:
        return end_combat(args)
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
    if verb == "status":
        return _status(args)
    if verb == "rewind":
        if len(args) != 1:
            raise CommandError("missing_argument", "rewind <seq>: the event to go back to")
        return {"type": "Rewind", "to_version": whole_number(args[0], "seq")}
    if verb in ("add", "remove"):
        raise CommandError("not_in_tael", NO_ROSTER_CHANGES)
    return None


def _verse_word(verb: str) -> CommandError:
    """A Verse GM command typed in a Tael room: say so, and what is typed here."""
    return CommandError(
        "not_in_tael",
        f"'{verb}' is a Verse Chronicles GM command; in this World of Tael room: "
        f"{VERSE_GM_WORDS[verb]}",
    )


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
    if verb in VERSE_GM_WORDS:
        raise _verse_word(verb)
    if verb not in ACTION_WORDS:  # before asking who acts: the word is wrong whoever does
        raise CommandError("unknown_command", f"no command {verb!r}: type 'help'")
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
    """The line names a move the window the person saw offers the one answering (the
    window last shown asking it, `Context.seen`, else the open one): use it."""
    who = waiting_one(context)
    window = window_of(context, who) if who else None
    if window is None:
        return None
    name, weapon = _with_weapon(words)
    for option in window.asked.get(who, ()):
        if option.lower() == name.lower():
            return _answer(window, who, option, weapon)
    return None


def _use(args: list[str], context: Context) -> Data:
    """`use <move> [with <weapon>]`: answer the window with a prepared move."""
    who = waiting_one(context) or acting(context)
    window = window_of(context, who)
    if window is None:
        raise CommandError("no_window", "no window is open")
    if not args:
        raise CommandError("missing_argument", "use <move> [with <weapon>]")
    name, weapon = _with_weapon(args)
    offered = window.asked.get(who, ())
    chosen = next((o for o in offered if o.lower() == name.lower()), name)
    if offered and chosen not in offered:
        choices = ", ".join(offered)
        raise CommandError("not_offered", f"{who} may answer window {window.id} with {choices}")
    return _answer(window, who, chosen, weapon)


def _with_weapon(words: list[str]) -> tuple[str, str]:
    """`Riposte with parrying dagger` -> ("Riposte", "parrying dagger")."""
    lowered = [w.lower() for w in words]
    if "with" in lowered[1:]:
        split = lowered.index("with", 1)
        return " ".join(words[:split]), " ".join(words[split + 1 :])
    return " ".join(words), ""


def _answer(window: OpenWindow, who: str, option: str, weapon: str) -> Data:
    """`Answer` `window` with a prepared move; refused here when that window has
    closed since the person saw it (`lines.answer_window`)."""
    refuse_closed(window, who)
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
  start | end (whoever's turn it is) | end combat [agreed] | pause | resume | refuse
  close [window]   (end combat agreed: everyone agreed to stop, though no side is down)
  hp <combatant> <n> | remove-status <combatant> <status> | rewind <seq> | raw <json command>
  status <combatant> <status> <turns> [<damage dice>] [skips]   (e.g. status bandit Frozen 2 skips)
  plays [<combatant> ...]   (whom you are prompted for: yours; 'plays' alone lists them)
  invites | revoke <code> [reissue]   (the room's invite codes; reissue: a fresh one)
  (no add or remove: the server takes them in Verse rooms only)
For your combatants, anything a player types, after 'as <combatant>' (the prompts
  say so: '>>> Bandit (bandit): your turn: act (type 'help'), then end  (as bandit ...)'):
  as bandit attack kaelen   as bandit shield up   as cultist pass   as bandit end
"""


def tael_help(role: Role) -> str:
    """What the screen prints for `help` in a Tael room."""
    return _GM_HELP + "\n" + _PLAY_HELP if role == "gm" else _PLAY_HELP


def _claims(verb: str, args: list[str]) -> bool:
    """`help <ally>` is the Help action (T9); `help` alone is the program's help."""
    return verb == "help" and bool(args)


TAEL = Words(
    name="tael",
    read=tael_line,
    gm_only=frozenset(TAEL_GM_ONLY),
    help=tael_help,
    claims=_claims,
)
"""Tael's entry in the ruleset table (`rulesets.py`)."""
