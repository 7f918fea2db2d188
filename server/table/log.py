"""The log: each event as a line an audience may read, with its rolls as roll cards.

A log line (`protocol.table.LogLine`) is built from the event as the audience receives
it (`server.engine.views.event_view`, already redacted) and that audience's table after
it (`view.table_view`), and from nothing else, so a line never says more than the raw
event would (R77): another side's roll comes without its modifiers and total (its card's
`modifiers` and `total` are None) when the room shows only its faces, without its faces
too (`dice` None) when it shows only outcomes, and a number the event left out (a foe's
PD, a DC from its sheet) is an `against` without a `value`.

The text is the terminal client's narration (`narration.py`, word for word); the table
gives it what the client's view gave it (`Teller`):

* names: a card's `name`, with the id when several cards share it ("Goblin (g2)"), the
  id when the table has no card for it (a combatant taken out of the fight);
* turns: a combatant's places in the turn order (`order`), so a fast combatant's
  declarations read "turn 2" (V16);
* knows: whether the audience sees a combatant's secrets, read from its card: a card
  shows `health` numbers exactly to the audience that sees the combatant from the
  inside (the GM, its own side, an allied one; `protocol.table.Card`), the audience
  whose empty declaration reads as a pass rather than as hidden (V20). A caller that
  knows better passes `knows`;
* the room's `mode` and `ruleset`.

Roll cards (`roll_cards`) come from a table of the events of both rulesets that carry
rolls (`CARDS`): what each roll is for (`label`), who rolled it (`by`), what it was
against and the outcome the table hears. Any other event's rolls (a field holding a
record tagged `Roll`, a list of them, or records holding them) still become cards,
labelled by their field's name, so no roll is lost from the log.

Lean on purpose: this runs on the server's fan-out for every event, once per set of
audience keys that read it alike (`tell_all`). A `Teller` reads its table once (names
and turns lazily, when a line needs them) and tells every event with one `Story`;
`log_line` builds a `Teller` per call.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from server.table.narration import tell, tellings
from server.table.telling import Data, Knows, Names, Story

__all__ = ["CARDS", "MAX_TEXT", "Teller", "log_line", "log_lines", "roll_cards", "tell_all"]

K = TypeVar("K", bound=Hashable)

MAX_TEXT = 16384
"""The longest text a `LogLine` may carry (`protocol.table.LogLine.text`)."""
_MAX_WORD = 64  # `protocol.table.Word`, `Name`
_MAX_LABEL = 1024  # `protocol.messages.Text`
_ROLL = "Roll"


# --- the table, read once -------------------------------------------------------------


class Teller:
    """One audience's table, read as the narration needs it: names, turns, whose
    secrets it sees, the mode and the ruleset (the module docstring). Build one per
    table and tell every event of it with `line`; the names and turns are worked out on
    the first line that asks for them.

    `told` also says what the line asked of the table (each name, turn list and
    secret it read, with the answer): another audience's teller whose table answers
    the same (`agrees`) tells that event's same data as the same line (`tell_all`)."""

    __slots__ = ("_asked", "_cards", "_knows", "_names", "_order", "_recent", "_turns", "story")

    def __init__(self, table: Data, *, knows: Knows | None = None) -> None:
        cards = table.get("combatants")
        self._cards: dict[str, Any] = cards if isinstance(cards, dict) else {}
        order = table.get("order")
        self._order: list[Any] = order if isinstance(order, list) else []
        self._names: dict[str, str] | None = None
        self._turns: dict[str, tuple[int, ...]] | None = None
        self._knows: Knows = self._shows_health if knows is None else knows
        self._asked: list[tuple[int, str, Any]] | None = None
        self._recent: list[tuple[Data, Data, list[tuple[int, str, Any]]]] = []
        ruleset = table.get("ruleset")
        self.story = Story(
            names=self.name_of,
            tellings=tellings(str(ruleset) if ruleset else None),
            turns=self.turns_of,
            knows=self.knows,
            mode=str(table.get("mode") or ""),
        )

    def name_of(self, combatant: str) -> str:
        """The card's name, with the id when several cards share it ("Goblin (g2)", as
        the narration names combatants); the id when no card names it."""
        names = self._names
        if names is None:
            names = self._names = _names(self._cards)
        name = names.get(combatant, combatant)
        if self._asked is not None:
            self._asked.append((_NAME, combatant, name))
        return name

    def turns_of(self, combatant: str) -> Sequence[int]:
        """The indexes of `combatant`'s turns in the turn order (V16)."""
        turns = self._turns
        if turns is None:
            found: dict[str, list[int]] = {}
            for index, slot in enumerate(self._order):
                if isinstance(slot, dict):
                    found.setdefault(str(slot.get("combatant")), []).append(index)
            turns = self._turns = {cid: tuple(indexes) for cid, indexes in found.items()}
        indexes = turns.get(combatant, ())
        if self._asked is not None:
            self._asked.append((_TURNS, combatant, indexes))
        return indexes

    def knows(self, combatant: str) -> bool:
        """Whether this audience sees `combatant`'s secrets (the `knows` it was given;
        else whether its card shows numbers of health, which a card shows only to the
        GM and to the combatant's own or an allied side, `protocol.table.Card`)."""
        known = self._knows(combatant)
        if self._asked is not None:
            self._asked.append((_KNOWS, combatant, known))
        return known

    def _shows_health(self, combatant: str) -> bool:
        card = self._cards.get(combatant)
        return isinstance(card, dict) and card.get("health") is not None

    def text(self, event: Data) -> str:
        """The event as a sentence (several lines for some), at most `MAX_TEXT` long."""
        text = tell(event, self.story)
        return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"

    def line(self, seq: int, event: Data) -> Data:
        """The `LogLine` of event `seq` (its data as this audience receives it)."""
        return {
            "seq": seq,
            "kind": _clip(str(event.get("$type") or "?"), _MAX_WORD) or "?",
            "text": self.text(event),
            "rolls": roll_cards(event, self.name_of),
        }

    def told(self, seq: int, event: Data) -> tuple[Data, list[tuple[int, str, Any]]]:
        """`line(seq, event)` and what it asked of the table, with the answers.

        An event equal to one of the last few this teller told (a declaration made
        again, as players do while they make up their minds) reads as that line did,
        with its own seq: the table is the same, so are its answers."""
        for seen, line, asked in self._recent:
            if seen is event or seen == event:
                return {**line, "seq": seq}, asked
        asked = []
        self._asked = asked
        try:
            line = self.line(seq, event)
        finally:
            self._asked = None
        self._recent.insert(0, (event, line, asked))
        del self._recent[RECENT:]
        return line, asked

    def agrees(self, other: Teller, asked: Sequence[tuple[int, str, Any]]) -> bool:
        """Does this table answer every question in `asked` (what `other` answered, from
        its `told`) as `other`'s did, with the same rule systems and mode: so the same
        event data reads the same here?"""
        if self.story.tellings != other.story.tellings or self.story.mode != other.story.mode:
            return False
        for what, combatant, answer in asked:
            if what == _NAME:
                names = self._names
                if names is None:
                    names = self._names = _names(self._cards)
                if names.get(combatant, combatant) != answer:
                    return False
            elif what == _TURNS:
                if self.turns_of(combatant) != answer:
                    return False
            elif self._knows(combatant) != answer:
                return False
        return True


RECENT = 4
"""Events a teller remembers the lines of (`Teller.told`)."""
_NAME, _TURNS, _KNOWS = 0, 1, 2
"""What a teller was asked (`Teller.told`)."""


def tell_all(seq: int, views: Mapping[K, Data], tellers: Mapping[K, Teller]) -> dict[K, Data]:
    """The line of event `seq` for each audience key: `views[key]` is the event as that
    key receives it, `tellers[key]` its teller. A line is told once for all the keys that
    receive the same data and whose tables answer alike what the telling asked (names,
    turns, whose secrets they see), and is then the same dict for each of them: the
    log's cost grows with what the audiences know apart, not with their number."""
    lines: dict[K, Data] = {}
    told: list[tuple[Data, Teller, list[tuple[int, str, Any]], Data]] = []
    for key, teller in tellers.items():
        view = views[key]
        same = (
            line
            for seen, other, asked, line in told
            if (seen is view or seen == view) and teller.agrees(other, asked)
        )
        found = next(same, None)
        if found is None:
            found, asked = teller.told(seq, view)
            told.append((view, teller, asked, found))
        lines[key] = found
    return lines


def _names(cards: dict[str, Any]) -> dict[str, str]:
    named: dict[str, str] = {}
    for cid, card in cards.items():
        name = card.get("name") if isinstance(card, dict) else None
        named[cid] = str(name) if name else cid
    shared: dict[str, int] = {}
    for name in named.values():
        shared[name] = shared.get(name, 0) + 1
    return {
        cid: f"{name} ({cid})" if shared[name] > 1 and name != cid else name
        for cid, name in named.items()
    }


def log_line(seq: int, event: Data, table: Data) -> Data:
    """The `LogLine` dict of event `seq`: `event` is its data as this audience receives
    it (`event_view`), `table` this audience's `TableView` dict after it. A caller
    with several events of one table keeps a `Teller` instead (`log_lines`)."""
    return Teller(table).line(seq, event)


def log_lines(events: Iterable[tuple[int, Data]], table: Data) -> list[Data]:
    """The lines of a batch of `(seq, event)`, told with one table (the one after the
    batch: names and turns a batch changes read as they are at its end)."""
    teller = Teller(table)
    return [teller.line(seq, event) for seq, event in events]


# --- roll cards -----------------------------------------------------------------------

Cards = Callable[[Data, Names], list[Data]]
CARDS: dict[str, Cards] = {}
"""How the rolls of each known event read as cards, by event type."""


def cards_of(*types: str) -> Callable[[Cards], Cards]:
    def register(fn: Cards) -> Cards:
        for name in types:
            CARDS[name] = fn
        return fn

    return register


def roll_cards(event: Data, names: Names = str) -> list[Data]:
    """Every roll of `event` (as this audience receives it) as a `RollCard` dict; `names`
    names a combatant where a card must (a spell's targets, each against its own
    defence). An event of a shape its table entry does not expect, or of a type with
    no entry, still gives a card per roll, labelled by its field."""
    kind = event.get("$type")
    made = CARDS.get(kind) if isinstance(kind, str) else None
    if made is not None:
        try:
            return made(event, names)
        except (KeyError, TypeError, ValueError, AttributeError):
            pass
    return found_cards(event)


def card(
    roll: Any, label: str, by: Any = "", against: Data | None = None, outcome: str = ""
) -> Data:
    """A `RollCard` dict of `roll` as the event carries it: its dice faces, or None when
    the room hides them from this audience; its named modifiers and total, or None when
    it hides those (another side's roll, R77)."""
    dice = roll.get("dice")
    modifiers = roll.get("modifiers")
    return {
        "label": _clip(label, _MAX_LABEL),
        "by": _clip(by if isinstance(by, str) else "", _MAX_WORD),
        "dice": None
        if dice is None
        else [
            {"sides": g["sides"], "faces": list(g["faces"]), "negative": bool(g.get("negative"))}
            for g in dice
        ],
        "multiplier": roll.get("multiplier", 1),
        "modifiers": None
        if modifiers is None
        else [{"name": _clip(str(name), _MAX_LABEL), "value": value} for name, value in modifiers],
        "total": roll.get("total"),
        "against": against,
        "outcome": _clip(outcome, _MAX_WORD),
    }


def against(name: str, event: Data, field: str) -> Data:
    """What a roll was against: `name` and the event's number in `field`, None where the
    event left it out for this audience (another side's, R77)."""
    value = event.get(field)
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    return {"name": _clip(name, _MAX_LABEL), "value": number}


def _is_roll(value: Any) -> bool:
    return isinstance(value, dict) and value.get("$type") == _ROLL


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most]


def success(done: Any) -> str:
    return "success" if done else "failure"


def hit(done: Any) -> str:
    return "hit" if done else "miss"


# Verse's attack outcomes (V3: a natural 20 is a critical hit, a natural 1 a critical
# fail) as the table hears them.
_ATTACK_OUTCOMES = {"hit": "hit", "miss": "miss", "critical_hit": "critical"}
_ATTACK_OUTCOMES["critical_fail"] = "critical fail"


def attack_outcome(outcome: Any) -> str:
    word = str(outcome)
    return _ATTACK_OUTCOMES.get(word, word.replace("_", " "))


def _words(name: Any) -> str:
    return str(name).replace("_", " ")


# --- rolls every ruleset shares -------------------------------------------------------


@cards_of("InitiativeRolled")
def _initiative(event: Data, names: Names) -> list[Data]:
    """V16, T1: each combatant's initiative, then the tie re-rolls."""
    made = [card(r["roll"], "initiative", r["combatant"]) for r in event["rolls_made"]]
    ties = event.get("tiebreaks") or []
    return made + [card(r["roll"], "initiative tie-break", r["combatant"]) for r in ties]


@cards_of("ConditionSaveRolled")
def _condition_save(event: Data, names: Names) -> list[Data]:
    """V27, TR40: the save a condition's entry gives, in its ability, against its DC."""
    ability = str(event.get("ability") or "")
    label = f"{ability.capitalize()} save" if ability else f"{event['condition']} save"
    return [
        card(
            event["roll"],
            label,
            event["combatant"],
            against("DC", event, "dc"),
            success(event["success"]),
        )
    ]


# --- Verse Chronicles -----------------------------------------------------------------


@cards_of("AttackRolled")
def _attack(event: Data, names: Names) -> list[Data]:
    """V1, V3: the attack against the target's PD or SD."""
    defence = against(str(event["defence_name"]), event, "defence")
    outcome = attack_outcome(event["outcome"])
    return [card(event["roll"], "attack", event["attacker"], defence, outcome)]


@cards_of("DefenceRolled")
def _defence(event: Data, names: Names) -> list[Data]:
    """V22, V19: a Dodge or Block is a Dexterity save against the attack's total."""
    return [
        card(
            event["roll"],
            "Dexterity save",
            event["defender"],
            against("attack", event, "against"),
            success(event["success"]),
        )
    ]


@cards_of("DamageDealt")
def _damage(event: Data, names: Names) -> list[Data]:
    """V7: damage against PR or SR (none for a condition's damage, V27)."""
    roll = event.get("roll")
    if not _is_roll(roll):
        return []
    resistance = event.get("resistance_name")
    meets = against(str(resistance), event, "resistance") if resistance else None
    return [card(roll, "damage", event.get("source"), meets)]


@cards_of("DamageBlocked")
def _blocked(event: Data, names: Names) -> list[Data]:
    """V22: the attacker's damage, sent to the blocking item."""
    return [card(event["roll"], "damage", event.get("attacker"))]


@cards_of("SpellAttackRolled")
def _spell_attack(event: Data, names: Names) -> list[Data]:
    """V1, V2: one spell attack roll against each target's SD (a card per target, each
    with its own defence and outcome), then the one damage roll."""
    roll, caster, defence = event["roll"], event["caster"], str(event["defence_name"])
    results = [r for r in event.get("results") or [] if isinstance(r, dict)]
    if len(results) == 1:
        made = [card(roll, "spell attack", caster, against(defence, results[0], "defence"))]
        made[0]["outcome"] = attack_outcome(results[0]["outcome"])
    elif results:
        made = [
            card(
                roll,
                "spell attack",
                caster,
                against(f"{names(str(r['target']))}'s {defence}", r, "defence"),
                attack_outcome(r["outcome"]),
            )
            for r in results
        ]
    else:
        made = [card(roll, "spell attack", caster, None, attack_outcome(event["outcome"]))]
    damage = event.get("damage")
    if _is_roll(damage):
        made.append(card(damage, "damage", caster))
    return made


@cards_of("ThrowChecked")
def _throw(event: Data, names: Names) -> list[Data]:
    """V9: a Strength check against the Throw DC."""
    dc = against("Throw DC", event, "dc")
    return [card(event["roll"], "throw", event["actor"], dc, success(event["success"]))]


@cards_of("ManeuverRolled")
def _maneuver(event: Data, names: Names) -> list[Data]:
    """Knock an item away: a roll against the target's PD."""
    pd = against("PD", event, "defence")
    return [card(event["roll"], "knock away", event["actor"], pd, success(event["success"]))]


@cards_of("ItemUsed")
def _item_used(event: Data, names: Names) -> list[Data]:
    """A used item's roll (a potion's healing): labelled by the item."""
    roll = event.get("roll")
    if not _is_roll(roll):
        return []
    return [card(roll, str(event.get("item") or "item"), event["combatant"])]


@cards_of("AbilityDamaged")
def _ability_damaged(event: Data, names: Names) -> list[Data]:
    """V5, V10: points of an ability lost (a critical table's 1d4)."""
    roll = event.get("roll")
    if not _is_roll(roll):
        return []
    return [card(roll, f"{str(event['ability']).capitalize()} damage", event["combatant"])]


@cards_of("CriticalTableRolled")
def _critical_table(event: Data, names: Names) -> list[Data]:
    """V5: the d20 on a critical table; its outcome is the row."""
    label = f"{_words(event['table'])} table"
    return [card(event["roll"], label, event["combatant"], None, f"row {event['row']}")]


@cards_of("StealthChecked")
def _stealth(event: Data, names: Names) -> list[Data]:
    """The sneaker's stealth against the observer's perception: each roll against the
    other's total (shown where this audience sees it)."""
    sneak, look = event["stealth_roll"], event["perception_roll"]
    unseen = bool(event["success"])
    return [
        card(
            sneak,
            "stealth",
            event["sneaker"],
            {"name": "perception", "value": look.get("total")},
            success(unseen),
        ),
        card(
            look,
            "perception",
            event["observer"],
            {"name": "stealth", "value": sneak.get("total")},
            success(not unseen),
        ),
    ]


@cards_of("ConcentrationChecked")
def _concentration(event: Data, names: Names) -> list[Data]:
    """V12: a caster charging a spell keeps its concentration against a DC."""
    dc = against("DC", event, "dc")
    return [card(event["roll"], "concentration", event["caster"], dc, success(event["success"]))]


@cards_of("SpellDeciphered")
def _deciphered(event: Data, names: Names) -> list[Data]:
    """V13: deciphering a spell against its Decipher DC."""
    dc = against("DC", event, "dc")
    return [card(event["roll"], "decipher", event["combatant"], dc, success(event["success"]))]


@cards_of("RiderThrown")
def _rider_thrown(event: Data, names: Names) -> list[Data]:
    """A rider thrown as its ride goes down: a Dexterity save against DC 20."""
    dc = against("DC", event, "dc")
    outcome = success(event["success"])
    return [card(event["roll"], "Dexterity save", event["rider"], dc, outcome)]


@cards_of("CombatantAdded")
def _added(event: Data, names: Names) -> list[Data]:
    """V16: a newcomer's initiative, one roll per turn it gets."""
    return [card(r["roll"], "initiative", r["combatant"]) for r in event.get("initiative") or []]


# --- World of Tael --------------------------------------------------------------------


@cards_of("HitChecked")
def _hit_checked(event: Data, names: Names) -> list[Data]:
    """T3, T9: a hit check against the target's DV (none for a Punch's second hit,
    which hits by itself); beyond normal range the worse of two rolls counts, and the
    other is shown as discarded."""
    roll = event.get("roll")
    if not _is_roll(roll):
        return []
    dv = against("DV", event, "defensive_value")
    attacker = event["attacker"]
    made = [card(roll, "attack", attacker, dv, hit(event["hit"]))]
    other = event.get("other")
    if _is_roll(other):
        made.append(card(other, "attack beyond range (discarded)", attacker, dv))
    return made


@cards_of("SpellHitChecked")
def _spell_hit(event: Data, names: Names) -> list[Data]:
    """T4: one hit check against each target's DV (a card per target)."""
    roll, caster = event["roll"], event["caster"]
    targets = [t for t in event.get("targets") or [] if isinstance(t, dict)]
    if len(targets) == 1:
        dv = against("DV", targets[0], "defensive_value")
        return [card(roll, "spell attack", caster, dv, hit(targets[0]["hit"]))]
    if not targets:
        return [card(roll, "spell attack", caster)]
    return [
        card(
            roll,
            "spell attack",
            caster,
            against(f"{names(str(t['target']))}'s DV", t, "defensive_value"),
            hit(t["hit"]),
        )
        for t in targets
    ]


@cards_of("DamageRolled")
def _damage_rolled(event: Data, names: Names) -> list[Data]:
    """T5: the damage dice and what is added, once for all targets."""
    return [card(event["roll"], "damage", event["attacker"])]


@cards_of("ResistChecked")
def _resist(event: Data, names: Names) -> list[Data]:
    """T6: the target's resist check against the spell's DC and the caster's Magic."""
    dc = against("DC", event, "dc")
    return [card(event["roll"], "resist", event["target"], dc, success(event["resisted"]))]


@cards_of("WillpowerChecked")
def _willpower(event: Data, names: Names) -> list[Data]:
    """T8: a fainted character's Willpower check (a natural 20 stands it up); another
    side gets no roll at all (TR33), so no card."""
    roll = event.get("roll")
    if not _is_roll(roll):
        return []
    outcome = "critical" if event.get("stood_up") else success(event["success"])
    return [card(roll, "Willpower", event["combatant"], against("DC", event, "dc"), outcome)]


@cards_of("SkillChecked")
def _skill(event: Data, names: Names) -> list[Data]:
    """A Roleplay skill check, for the GM to judge: no number to meet, no outcome."""
    return [card(event["roll"], str(event["skill"]), event["combatant"])]


@cards_of("HideAttempted")
def _hide(event: Data, names: Names) -> list[Data]:
    """T9 Hide: a stealth roll for the GM to judge."""
    return [card(event["roll"], "stealth", event["combatant"])]


# --- any other event's rolls ----------------------------------------------------------

_ROLLERS = (
    *("combatant", "actor", "attacker", "caster", "sneaker", "rider", "defender"),
    *("helper", "target", "source"),
)


def found_cards(event: Data) -> list[Data]:
    """A card for every roll anywhere in `event` (a field, a list, a record inside it),
    labelled by its field ("stealth_roll" reads "stealth") and rolled by the nearest
    record's combatant: the fallback for an event with no entry in `CARDS`."""
    made: list[Data] = []
    if _holds_roll(event, 0):  # most events hold none: no labels worked out for them
        _find(event, "", _roller(event), made, 0)
    return made


def _holds_roll(record: Data, depth: int) -> bool:
    """Is there a roll where `_find` looks (the same depth)?"""
    for value in record.values():
        if isinstance(value, dict):
            if value.get("$type") == _ROLL or (depth < 3 and _holds_roll(value, depth + 1)):
                return True
        elif depth < 3 and isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and (
                    item.get("$type") == _ROLL or _holds_roll(item, depth + 1)
                ):
                    return True
    return False


def _find(record: Data, label: str, by: str, made: list[Data], depth: int) -> None:
    for name, value in record.items():
        if name == "$type":
            continue
        if _is_roll(value):
            made.append(card(value, _label(name, label), by))
        elif depth < 3 and isinstance(value, dict):
            _find(value, _label(name, label), _roller(value) or by, made, depth + 1)
        elif depth < 3 and isinstance(value, list):
            for item in value:
                if _is_roll(item):
                    made.append(card(item, _label(name, label), by))
                elif isinstance(item, dict):
                    _find(item, _label(name, label), _roller(item) or by, made, depth + 1)


def _label(name: str, outer: str) -> str:
    """A field's name as a label: `stealth_roll` "stealth"; a plain `roll` or `rolls`
    takes the name of the field it is in, else "roll"."""
    word = name.removesuffix("_roll").removesuffix("_rolls")
    if word in ("roll", "rolls"):
        return outer or "roll"
    return word.replace("_", " ")


def _roller(record: Data) -> str:
    for name in _ROLLERS:
        value = record.get(name)
        if isinstance(value, str) and value:
            return value
    return ""
