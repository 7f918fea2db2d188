"""Verse Chronicles' words at the table: what the server cannot send as data.

A typed line is read against the choices the server offers (`matching.py`). Verse adds
the words players are used to for an option (`use potion`, `quick knock` for a Quick
Response, R54; `adapt` alone gives the action up, V23; `ascend 2`, V26), the GM's short
words for its console (`health g1 5`, `condition g1 prone 2`: one the console offers in
any case, or the GM's own), the GM commands it offers no option for (`recover`,
`approve`: R73), Tael's GM words answered with Verse's, the note after a health
override (`advice`), and the sheet file `add` reads (`verse_sheets.py`).
"""

from __future__ import annotations

from clients.lines import GM_CONSOLE, CommandError, Context, Data, two, whole_number
from clients.verse_sheets import verse_combatant
from clients.words import Reader, Words


def _condition(args: list[str], context: Context) -> Data:
    """`condition g1 Stunned 2`: SetCondition for 2 round ends; without a number, until
    removed. A name of several words needs no quotes: `condition g1 Knocked Out`."""
    usage = "condition <combatant> <condition> [rounds]"
    if len(args) < 2 or args[1].lstrip("-").isdigit():
        raise CommandError("missing_argument", usage)
    who, rest, rounds = args[0], args[1:], None
    if len(rest) > 1 and rest[-1].lstrip("-").isdigit():
        rest, rounds = rest[:-1], whole_number(rest[-1], "rounds")
    typed = " ".join(rest)
    has = [str(c.get("name")) for c in context.combatant(who).get("conditions", ())]
    # The engine matches a name exactly: `dead` is Dead, as the console offers it.
    lay = (context.choices.get(GM_CONSOLE) or {}).get("options", ())
    holes = [h for o in lay if o.get("key") == "set_condition" for h in o["holes"]]
    has += [p["value"] for h in holes if h["path"] == "/condition" for p in h["options"]]
    name = next((n for n in has if n.lower() == typed.lower()), typed)
    return {"type": "SetCondition", "combatant": who, "condition": name, "rounds": rounds}


def _recover(args: list[str], context: Context) -> Data:
    if len(args) < 2:
        raise CommandError("missing_argument", "recover <combatant> <item>")
    return {"type": "RecoverItem", "combatant": args[0], "item": " ".join(args[1:])}


def _approval(command: str, verb: str) -> Reader:
    def read(args: list[str], context: Context) -> Data:
        who, kind = two(args, f"{verb} <combatant> counter|quick")
        kinds = {"counter": "counter", "quick": "quick_response"}
        if kind.lower() not in kinds:
            raise CommandError("bad_argument", f"{verb} <combatant> counter|quick: not {kind!r}")
        return {"type": command, "combatant": who, "kind": kinds[kind.lower()]}

    return read


def advice(command: Data, context: Context) -> str | None:
    """What the GM should know when a health override is accepted: health and the Dead
    condition are kept apart, so `health g1 0` does not kill nor `health g1 5` raise."""
    if command.get("type") != "SetHealth":
        return None
    who, health = str(command.get("combatant")), command.get("health")
    dead = any(c.get("name") == "Dead" for c in context.combatant(who).get("conditions", ()))
    if health == 0 and not dead:
        return (
            f"health 0 is not Dead: {who} stays in the fight until you add the condition "
            f"(condition {who} Dead)"
        )
    if isinstance(health, int) and health > 0 and dead:
        return f"{who} stays Dead until you remove the condition (uncondition {who} Dead)"
    return None


TAEL = "is a World of Tael GM command; in this Verse Chronicles room:"

VERSE = Words(
    name="verse",
    aliases={
        "use": "use item",
        "quick knock": "quick response",
        "quick": "quick response",
        "knock": "quick response",
        "adapt": "give up",
        "ascend": "ascension up",
        "descend": "ascension down",
    },
    gm_words={
        "health": "set health",
        "mana": "set mana",
        "place": "set position",
        "remove": "remove combatant",
        "skip": "skip turn",
        "uncondition": "remove condition",
    },
    commands={
        "condition": _condition,
        "recover": _recover,
        "approve": _approval("ApproveFeat", "approve"),
        "unapprove": _approval("WithdrawApproval", "unapprove"),
    },
    instead={
        "hp": f"'hp' {TAEL} health <combatant> <n>",
        "status": f"'status' {TAEL} condition <combatant> <condition> [rounds]",
        "remove-status": f"'remove-status' {TAEL} uncondition <combatant> <condition>",
    },
    help="""\
Verse's words: use <item> | quick knock <item> (a Quick Response, R54) | adapt (gives
  the action up) | ascend <levels> | descend <levels> | withdraw [turn N]
  move <x,y>: where the move ends, or every step (move 1,0 2,0), one adjacent cell
  after another""",
    gm_help="""\
  health <combatant> <n> | mana <combatant> <n> | place <combatant> <x> <y> | skip
  condition <combatant> <condition> [rounds]   (health 0 is not Dead: condition g1 Dead)
  uncondition <combatant> <condition>   (health never lifts Dead)
  remove <combatant> | recover <combatant> <item>   (a dropped or Broken item back)
  approve <combatant> counter|quick | unapprove <combatant> counter|quick   (R73)
  add <sheet file> <id> <side> <x,y> [facing]   (add goblin.toml g3 goblins 2,1)""",
    advice=advice,
    new_combatant=verse_combatant,
)
"""Verse's entry in the ruleset table (`rulesets.py`)."""
