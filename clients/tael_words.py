"""World of Tael's words at the table: what the server cannot send as data.

A typed line is read against the choices the server offers (`matching.py`): `attack
bandit`, `punch bandit bonus` (T9), `end`, `prepare Riposte`, `riposte with dagger`.
Tael adds the words players are used to (`offhand`, `check <skill>`, `use <move>`), the
GM's `hp` for its console's `set_hit_points`, the GM commands the console offers no
option for (`status` with any damage dice or a status of the GM's own, TR37; `skip`:
whoever's turn it is ends), and the Verse GM's words answered with Tael's.
"""

from __future__ import annotations

import re

from clients.lines import CommandError, Context, Data
from clients.words import Words

STATUS_USAGE = "status <combatant> <status> <turns> [<damage dice>] [skips]"
DICE = re.compile(r"\d*d\d+")


def _status(args: list[str], context: Context) -> Data:
    """`status bandit Frozen 2 skips`, `status tobin Holy Fire 3 1d4`: the name runs to
    the first whole number (the turns); after it only damage dice and `skips`."""
    at = next((i for i, word in enumerate(args) if i > 1 and word.isdigit()), None)
    if len(args) < 3 or at is None:
        code = "missing_argument" if len(args) < 3 else "bad_number"
        last = args[-1] if args else ""
        raise CommandError(code, f"turns must be a whole number, not {last!r}: {STATUS_USAGE}")
    damage, skips = "", False
    for word in args[at + 1 :]:
        if word.lower() in ("skips", "skip") and not skips:
            skips = True
        elif DICE.fullmatch(word.lower()) and not damage:
            damage = word
        elif any(c.isdigit() for c in word) and not damage:
            said = f"damage dice are like 1d4, not {word!r}: {STATUS_USAGE}"
            raise CommandError("bad_dice", said)
        else:
            what = f"{word!r} after the turns is neither damage dice nor 'skips'"
            raise CommandError("too_many_arguments", f"{what}: {STATUS_USAGE}")
    return {
        "type": "SetStatus",
        "combatant": args[0],
        "status": " ".join(args[1:at]),
        "turns": int(args[at]),
        "damage": damage,
        "skips_turn": skips,
    }


def _skip(args: list[str], context: Context) -> Data:
    if args:
        raise CommandError("too_many_arguments", "skip: ends the turn of whoever's turn it is")
    return {"type": "EndTurn", "actor": ""}


VERSE = "is a Verse Chronicles GM command; in this World of Tael room:"
ROSTER = "a World of Tael room cannot add or remove combatants (the server takes them in Verse)"

TAEL = Words(
    name="tael",
    aliases={
        "offhand": "off hand",
        "check": "skill",
        "pickup": "pick up",
        "equip": "main hand",
        "use": "",
    },
    gm_words={"hp": "set hit points", "health": "set hit points", "remove-status": "remove status"},
    commands={"status": _status, "skip": _skip},
    instead={
        "condition": f"'condition' {VERSE} {STATUS_USAGE} (a status the GM rules, TR37)",
        "uncondition": f"'uncondition' {VERSE} remove-status <combatant> <status>",
        "recover": f"'recover' {VERSE} none: its owner picks it up (pick up <weapon>)",
        "mana": f"'mana' {VERSE} no Mana Pool to set: hp, status and remove-status",
        "add": ROSTER,
        "remove": ROSTER,
    },
    help="""\
Tael's words: offhand <target> | check <skill> [bonus] | equip <weapon> [bonus] |
  use <move> [with <weapon>]   (bonus: the Bonus Action instead of an Action, T9)""",
    gm_help="""\
  hp <combatant> <n> | remove-status <combatant> <status> | skip (ends whoever's turn)
  status <combatant> <status> <turns> [<damage dice>] [skips]   (status bandit Frozen 2 skips)""",
)
"""Tael's entry in the ruleset table (`rulesets.py`)."""
