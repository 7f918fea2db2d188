"""What each audience sees of a Tael fight: the redaction table (ARCHITECTURE 8).

The generic rules (dice source, window options of other sides, rewinds) are in
`server.engine.views`; this module adds what Tael hides. The GM sees everything. For
everyone else a combatant is seen from the inside or from the outside:

* **its own side**: the whole combatant and sheet, except the sheet's `notes` (the
  GM's). Allies share their sheets and so their prepared moves, as a party at the
  table does.
* **another side** (foes, and everything for a spectator): what the table sees — `id`,
  `side`, the sheet's `name`, where it stands (`position`, `facing`), its `stance`, the
  weapons in its hands and on the ground, its status effects, what it has used this
  turn (`turn`), and whether it is braced, winded, hidden, surrendered, fainted or
  dead, and where it stands with its preparation (`preparation`: none, open or used —
  the table sees turns end, Brace, and a preparation trigger). Instead of numbers a
  coarse `health_state`: "unhurt", "wounded" (above half), "bloodied" (half or less),
  "down" (0 hit points: fainted or dead). Hidden: hit points, the Willpower track
  (`willpower_dc`, `willpower_failures`), the rest of the sheet (attributes,
  modifiers, Willpower, skills, weapons, spells, prepared moves, immunities...), and the move it
  announced (`prepared`) until it triggers: once its preparation is used the move is
  shown (T2: "hidden from other players until it triggers").

Events. What a roll shows another side is the room's `roll_visibility` (R77; the
generic rule is `server.engine.views`, "Rolls"): under "open" every roll whole (a hit
check shows the Defensive Value it was against, a resist check the attribute modifier
it added); under "faces" (the default) the dice faces and the outcome, not the
modifiers, the total or a number of another side's sheet; under "hidden" the outcome
only. Whose numbers each field holds (`ROLLS`, `Owned`):

* `HitChecked` — `roll` and `other` the attacker's, and `hindered` (it tells a skill
  in Precision); `defence` and `defensive_value` the target's;
* `SpellHitChecked` — `roll` the caster's; each target's `defence` and
  `defensive_value` its own;
* `DamageRolled` — `roll` the attacker's (for a status effect's damage, whoever laid
  it); `DamageTaken` — `damage` and `taken` the attacker's and the target's (each side
  sees the damage it dealt or took);
* `ResistChecked` — `roll` the target's; `base_dc`, `caster_magic` and `dc` (the
  spell's DC and the caster's Magic) the caster's;
* `SkillChecked`, `HideAttempted` — `roll` the combatant's;
* `InitiativeRolled` (shared) — each roll its combatant's; another side's turns only
  `combatant`.

Whatever the setting (even "open"), hit points and Willpower stay apart, as before
there was one (TR33), and these events are redacted for another side:

* `PreparationAnnounced` — the move (`move` ""): another side sees that a preparation
  was announced, never which until it triggers (`Answered` then names it);
* `DamageTaken` — `hit_points` left becomes `health_state`;
* `WillpowerChecked` — whether it succeeded, stood up, and the failures in a row; not
  the roll (it shows Willpower) nor the DC; `WillpowerDcRaised` — not the DC;
* `ConditionSaveRolled` in Willpower (a status's save the conditions table gives,
  TR41) — its roll as under "hidden" (no faces, no modifiers, no total: the faces
  beside the table's DC and the outcome would narrow Willpower down); a save in an
  attribute is shown as the setting says, like any roll;
* `HitPointsSet` (a GM override) — only the coarse health after, and whether it stood up;
* `WindowOpened` — another side's asks without their options (the moves a combatant
  could answer with), as everywhere.

Fail closed: a field added to `TaelCombatant` or `TaelSheet` is hidden from other sides
until it is listed as public here (tests/engine/tael/test_views.py asks that every
field be classified).
"""

from __future__ import annotations

from typing import Any

from server.engine.condition_table import ConditionSaveRolled
from server.engine.records import to_data
from server.engine.rulesets.tael.attacks import HitChecked
from server.engine.rulesets.tael.bonus import SkillChecked
from server.engine.rulesets.tael.combatant import Preparation, TaelCombatant
from server.engine.rulesets.tael.condition_rules import WILLPOWER
from server.engine.rulesets.tael.damage import DamageRolled, DamageTaken, WillpowerDcRaised
from server.engine.rulesets.tael.fainting import WillpowerChecked
from server.engine.rulesets.tael.generic import HideAttempted
from server.engine.rulesets.tael.overrides import HitPointsSet
from server.engine.rulesets.tael.preparations import PreparationAnnounced
from server.engine.rulesets.tael.spells import SpellHitChecked
from server.engine.rulesets.tael.statuses import ResistChecked
from server.engine.stack import WindowOpened
from server.engine.state import Encounter
from server.engine.views import (
    COMMON_EVENTS,
    Audience,
    Data,
    Owned,
    Views,
    health_state,
    record_view,
    register_views,
    roll_view,
    sees_numbers,
    side_of,
    window_view,
)

PUBLIC_COMBATANT = (
    "id",
    "side",
    "position",
    "facing",
    "stance",
    "main_hand",
    "off_hand",
    "dropped",
    "statuses",
    "turn",
    "braced",
    "winded",
    "hidden",
    "surrendered",
    "fainted",
    "dead",
    "preparation",
)
HIDDEN_COMBATANT = ("sheet", "hit_points", "willpower_dc", "willpower_failures", "prepared")
PUBLIC_SHEET = ("name",)
HIDDEN_SHEET = (
    "attributes",
    "hit_points",
    "classes",
    "martial_combat",
    "precision",
    "magic",
    "dodging",
    "initiative",
    "willpower",
    "movement",
    "armour",
    "weapon_skills",
    "magic_schools",
    "weapons",
    "main_hand",
    "off_hand",
    "spells",
    "preparations",
    "skills",
    "stance",
    "shares_tiles",
    "immunities",
    "notes",
)


def combatant_view(c: TaelCombatant, audience: Audience) -> Data:
    """A combatant as `audience` (not the GM) sees it (module docstring)."""
    if audience.knows(c.side):
        data: Data = to_data(c)
        del data["sheet"]["notes"]
        return data
    data = {
        "$type": "TaelCombatant",
        "sheet": {"$type": "TaelSheet", "name": c.sheet.name},
        "health_state": health_state(c.hit_points, c.sheet.hit_points),
    }
    for name in PUBLIC_COMBATANT:
        data[name] = to_data(getattr(c, name))
    data["prepared"] = c.prepared if c.preparation == Preparation.USED else ""
    return data


TAEL_VIEWS = register_views(Views("tael", combatant_view))


def _plain(event: Any) -> Data:
    data: Data = to_data(event)
    return data


@TAEL_VIEWS.redacts(WindowOpened)
def window_opened_view(event: WindowOpened, state: Encounter, audience: Audience) -> Data:
    return record_view(event, window=window_view(event.window, state, audience))


@TAEL_VIEWS.redacts(PreparationAnnounced)
def preparation_announced_view(
    event: PreparationAnnounced, state: Encounter, audience: Audience
) -> Data:
    """T2: another side learns that a preparation was announced, not which."""
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    return record_view(event, move="")


# R77: whose numbers each field of a roll-carrying event holds (the module docstring).
ROLLS: dict[type, Owned] = {
    HitChecked: Owned(
        {"roll": ("attacker",), "other": ("attacker",)},
        {"defence": ("target",), "defensive_value": ("target",), "hindered": ("attacker",)},
    ),
    DamageRolled: Owned({"roll": ("attacker",)}),
    ResistChecked: Owned(
        {"roll": ("target",)},
        {"base_dc": ("caster",), "caster_magic": ("caster",), "dc": ("caster",)},
    ),
    SkillChecked: Owned({"roll": ("combatant",)}),
    HideAttempted: Owned({"roll": ("combatant",)}),
}
for _event, _owned in ROLLS.items():
    TAEL_VIEWS.redacts(_event)(_owned)


@TAEL_VIEWS.redacts(SpellHitChecked)
def spell_hit_checked_view(event: SpellHitChecked, state: Encounter, audience: Audience) -> Data:
    """The hit check is the caster's roll; each target's Defensive Value is its own."""
    targets = []
    for check in event.targets:
        data = _plain(check)
        if not sees_numbers(state, audience, check.target):
            del data["defence"], data["defensive_value"]
        targets.append(data)
    return record_view(
        event, roll=roll_view(event.roll, state, audience, event.caster), targets=targets
    )


@TAEL_VIEWS.redacts(DamageTaken)
def damage_taken_view(event: DamageTaken, state: Encounter, audience: Audience) -> Data:
    """Another side: the coarse health left, never hit points; the damage as the room
    shows another side's numbers (R77), whole to the attacker's side."""
    if audience.knows(side_of(state, event.target)):
        return _plain(event)
    c: TaelCombatant | None = state.combatants.get(event.target)
    most = c.sheet.hit_points if c is not None else 1
    data: Data = {"$type": "DamageTaken"}
    seen = sees_numbers(state, audience, event.by)
    for name in ("target", "by", "damage", "taken", "braced"):
        if seen or name not in ("damage", "taken"):
            data[name] = getattr(event, name)
    data["health_state"] = health_state(event.hit_points, most)
    return data


@TAEL_VIEWS.redacts(WillpowerChecked)
def willpower_checked_view(event: WillpowerChecked, state: Encounter, audience: Audience) -> Data:
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    data: Data = {"$type": "WillpowerChecked"}
    for name in ("combatant", "success", "stood_up", "failures"):
        data[name] = getattr(event, name)
    return data


@TAEL_VIEWS.redacts(ConditionSaveRolled)
def condition_save_view(event: ConditionSaveRolled, state: Encounter, audience: Audience) -> Data:
    """A save in Willpower is seen by another side as a hidden roll, whatever the
    setting (TR33); any other save as every roll is (R77)."""
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    if not in_willpower(event):
        data: Data = COMMON_EVENTS[ConditionSaveRolled](event, state, audience)
        return data
    return record_view(event, roll={"$type": "Roll", "multiplier": event.roll.multiplier})


def in_willpower(event: ConditionSaveRolled) -> bool:
    """Is the save in Willpower? A save logged before the event named its ability is
    known by its roll's first modifier (`("Willpower", 7)`)."""
    if event.ability:
        return event.ability.casefold() == WILLPOWER
    modifiers = event.roll.modifiers
    return bool(modifiers) and modifiers[0][0].casefold() == WILLPOWER


@TAEL_VIEWS.redacts(WillpowerDcRaised)
def willpower_dc_raised_view(
    event: WillpowerDcRaised, state: Encounter, audience: Audience
) -> Data:
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    return {"$type": "WillpowerDcRaised", "combatant": event.combatant, "by": event.by}


@TAEL_VIEWS.redacts(HitPointsSet)
def hit_points_set_view(event: HitPointsSet, state: Encounter, audience: Audience) -> Data:
    """The GM set hit points: another side sees only the coarse health after."""
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    c: TaelCombatant | None = state.combatants.get(event.combatant)
    most = c.sheet.hit_points if c is not None else 1
    return {
        "$type": "HitPointsSet",
        "combatant": event.combatant,
        "stood_up": event.stood_up,
        "health_state": health_state(event.hit_points, most),
    }
