"""What each audience sees of a Verse fight: the redaction table (ARCHITECTURE 8).

The generic rules (dice source, secret declarations, window options, rewinds) are in
`server.engine.views`; this module adds what Verse hides. The GM sees everything.
For everyone else, a combatant is seen from the inside or from the outside:

* **its own side** (every side a player's combatants are on): the whole combatant
  and sheet, except the sheet's `notes`, which are the GM's (never shown to players).
  Allies share their sheets, as a party at the table does; so two players of one
  side see exactly the same thing.
* **another side** (foes, and everything for a spectator): what the table sees —
  `id`, `side`, the sheet's `name` and `is_ride`, where it is (`position`,
  `ascension`, `facing`, `mounted_on`), how it stands (`awareness`, `stance`,
  `holding`), its conditions (every condition the engine tracks is visible at the
  table: dead, stunned, prone, shaken...), broken and dropped items, what it has done
  this turn (`actions`, `defensive_used`), `opportunities`, `items_used`, and a spell
  being charged (`spell`, `targets`, `target`, `actions_done`, `actions_needed`; not
  the Mana and Spell Dice put into it), and instead of numbers a coarse
  `health_state`: "unhurt" (at its maximum), "wounded" (above half), "bloodied" (half
  or less), "down" (0 health: dead in Verse). Hidden: health, mana, current
  abilities, armour durability, mana pledges (R74) and the rest of the sheet (level,
  abilities, defences, weapons, spells, feats, items, training, speeds, senses,
  bloodline, shield, build points, immunities, notes).

Events. What a roll shows another side is the room's `roll_visibility` (R77; the
generic rule is `server.engine.views`, "Rolls"): under "open" every roll whole, as at
a table that rolls in the open (the faces, the named modifiers, the total, the number
rolled against and the damage dealt); under "faces" (the default) the dice faces and
the outcome, not the modifiers, the total or a number of another side's sheet; under
"hidden" the outcome only. Whose numbers each field holds (`ROLLS`, `Owned`):

* `AttackRolled` — `roll` the attacker's; `defence` (the PD or SD) and
  `defence_changes` (what the target's conditions did to it, V27) the target's;
* `DefenceRolled` — `roll` (the Dexterity save) the defender's; `against` (the attack's
  total) the attacker's;
* `DamageBlocked` — `roll` (the blocked damage) the attacker's;
* `DamageDealt` — `roll` the source's; `amount` the source's and the target's (each
  side sees the damage it dealt or took); `resistance`, `resistance_changes` (what the
  target's conditions did to it, V27), `to_health`, `to_armour` (they tell the PR or SR
  and the armour left) the target's;
* `SpellAttackRolled` — `roll` and `damage` the caster's; each result's `defence` (the
  SD) and `defence_changes` its target's; `SpellCast` — `spell_dc` (V13: it tells the
  caster's level) the caster's;
* `ManeuverRolled` — `roll` the actor's, `defence` (the PD) and `defence_changes` the
  target's;
  `ThrowChecked` — `roll` and `dc` (from the weight of the actor's item) the actor's;
* `ItemUsed` — `roll` and `healed` the user's (another side gets `health_state` after
  it, as after damage); `AbilityDamaged` — `roll` and `amount` the combatant's;
* `StealthChecked` — `stealth_roll` the sneaker's, `perception_roll` the observer's;
* `SpellDeciphered`, `ConcentrationChecked` — `roll` and `dc` the roller's;
* `RiderThrown` — `roll` the rider's (the DC 20 is the rule's); `CriticalTableRolled`
  — `roll` the combatant's (its `row` and text are the outcome);
* `InitiativeRolled` (shared) and `CombatantAdded` — each initiative roll its
  combatant's, and another side's turns (`TurnSlot`) only `combatant`.

Other events that would show a hidden value outright are redacted for another side
whatever the setting:

* `DeclarationMade` — `actions` `[]` (V20: secret until `DeclarationsRevealed`, which
  shows every declaration to everyone);
* `WindowOpened` — another side's asks without their options (generic `window_view`);
* `CombatantAdded` / `CombatantRemoved` — the combatant as above; a removed
  combatant's declarations hidden while planning;
* GM overrides `HealthSet` (only `health_state` after it), `ManaSet`, `ArmourSet`,
  `AbilitySet` (the combatant and ability named, no numbers);
* `SpellDeciphered` — only the spell's name (the rest is what the reader learnt);
* `ManaPledged` — only `helper`, for a side that is neither the helper's nor the
  caster's (R74: a pledge tells a plan, like a declaration; the cast that uses it
  shows its shares to everyone).

Two events gain a field instead: another side's `DamageDealt` and `ItemUsed` carry the
combatant's `health_state` after it, so its picture of the foe follows the fight.

Fail closed: a field added to `VerseCombatant`, `VerseSheet` or `Charge` is hidden from
other sides until it is listed as public here (tests/engine/test_views.py asks that
every field be classified).
"""

from __future__ import annotations

from typing import Any

from server.engine.records import to_data
from server.engine.rulesets.verse.approval import ApprovalWithdrawn, FeatApproved
from server.engine.rulesets.verse.attacks import AttackRolled, ThrowChecked
from server.engine.rulesets.verse.awareness import StealthChecked
from server.engine.rulesets.verse.combatant import Charge, VerseCombatant
from server.engine.rulesets.verse.conditions import AbilityDamaged
from server.engine.rulesets.verse.criticals import CriticalTableRolled
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DamageBlocked, DefenceRolled
from server.engine.rulesets.verse.live import DeclarationMade
from server.engine.rulesets.verse.live_actions import ItemUsed, ManeuverRolled
from server.engine.rulesets.verse.overrides import (
    AbilitySet,
    ArmourSet,
    CombatantAdded,
    CombatantRemoved,
    HealthSet,
    ManaSet,
)
from server.engine.rulesets.verse.rides import RiderThrown
from server.engine.rulesets.verse.spell_charges import ConcentrationChecked
from server.engine.rulesets.verse.spell_decipher import SpellDeciphered
from server.engine.rulesets.verse.spell_mana import ManaPledged
from server.engine.rulesets.verse.spells import SpellAttackRolled, SpellCast
from server.engine.rulesets.verse.windows import WindowOpened
from server.engine.state import Encounter
from server.engine.views import (
    Audience,
    Data,
    Owned,
    Views,
    declarations_secret,
    declarations_view,
    health_state,
    initiative_view,
    record_view,
    register_views,
    roll_view,
    sees_numbers,
    side_of,
    slot_view,
    window_view,
)

# What another side sees of a combatant, field by field (the module docstring's table).
PUBLIC_COMBATANT = (
    "id",
    "side",
    "position",
    "ascension",
    "facing",
    "awareness",
    "stance",
    "conditions",
    "broken",
    "dropped",
    "actions",
    "defensive_used",
    "mounted_on",
    "opportunities",
    "holding",
    "items_used",
)
HIDDEN_COMBATANT = ("health", "mana", "abilities", "armour_durability", "pledges")
PUBLIC_SHEET = ("name", "is_ride")
HIDDEN_SHEET = (
    "level",
    "abilities",
    "defences",
    "health",
    "mana",
    "armour_durability",
    "build_points",
    "training",
    "spell_attack_training",
    "speeds",
    "visual_range_ft",
    "perception",
    "stealth",
    "initiative_bonus",
    "weapons",
    "spells",
    "feats",
    "conditions",
    "bloodline",
    "shield",
    "immunities",
    "notes",
    "items",
)
PUBLIC_CHARGE = ("spell", "actions_needed", "actions_done", "targets", "target", "charged_in")
HIDDEN_CHARGE = ("mc", "spell_dice", "options")


def combatant_view(c: VerseCombatant, audience: Audience) -> Data:
    """A combatant as `audience` (not the GM) sees it: its own side whole but the GM's
    notes; another side only what the table sees (module docstring)."""
    if audience.knows(c.side):
        data: Data = to_data(c)
        del data["sheet"]["notes"]
        return data
    sheet = c.sheet
    data = {
        "$type": "VerseCombatant",
        "sheet": {"$type": "VerseSheet", "name": sheet.name, "is_ride": sheet.is_ride},
        "health_state": health_state(c.health, c.sheet.health),
    }
    for name in PUBLIC_COMBATANT:
        data[name] = to_data(getattr(c, name))
    data["charging"] = None if c.charging is None else _charge_view(c.charging)
    return data


def _charge_view(charge: Charge) -> Data:
    data: Data = {"$type": "Charge"}
    for name in PUBLIC_CHARGE:
        data[name] = to_data(getattr(charge, name))
    return data


def _plain(event: Any) -> Data:
    data: Data = to_data(event)
    return data


VERSE_VIEWS = register_views(Views("verse", combatant_view))


@VERSE_VIEWS.redacts(DeclarationMade)
def declaration_made_view(event: DeclarationMade, state: Encounter, audience: Audience) -> Data:
    """V20: another side sees that a declaration was made, not what it is."""
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    return record_view(event, actions=[])


@VERSE_VIEWS.redacts(WindowOpened)
def window_opened_view(event: WindowOpened, state: Encounter, audience: Audience) -> Data:
    return record_view(event, window=window_view(event.window, state, audience))


@VERSE_VIEWS.redacts(CombatantAdded)
def combatant_added_view(event: CombatantAdded, state: Encounter, audience: Audience) -> Data:
    """The newcomer as its side may be seen; its initiative rolls and turns are its own
    numbers (R77)."""
    return record_view(
        event,
        combatant=combatant_view(event.combatant, audience),
        initiative=[initiative_view(made, state, audience) for made in event.initiative],
        slots=[slot_view(slot, state, audience) for slot in event.slots],
    )


@VERSE_VIEWS.redacts(CombatantRemoved)
def combatant_removed_view(event: CombatantRemoved, state: Encounter, audience: Audience) -> Data:
    removed = event.combatant

    def side(cid: str) -> str | None:
        return removed.side if cid == removed.id else side_of(state, cid)

    return record_view(
        event,
        combatant=combatant_view(removed, audience),
        declarations=declarations_view(
            event.declarations, declarations_secret(state), side, audience
        ),
    )


@VERSE_VIEWS.redacts(HealthSet)
def health_set_view(event: HealthSet, state: Encounter, audience: Audience) -> Data:
    """The GM set a combatant's health: another side sees only its coarse health after."""
    if audience.knows(side_of(state, event.combatant)):
        return _plain(event)
    c: Any = state.combatants.get(event.combatant)
    data: Data = {"$type": "HealthSet", "combatant": event.combatant}
    if isinstance(c, VerseCombatant):
        data["health_state"] = health_state(c.health, c.sheet.health)
    return data


# R77: whose numbers each field of a roll-carrying event holds (the module docstring).
ROLLS: dict[type, Owned] = {
    AttackRolled: Owned(
        {"roll": ("attacker",)}, {"defence": ("target",), "defence_changes": ("target",)}
    ),
    DefenceRolled: Owned({"roll": ("defender",)}, {"against": ("attacker",)}),
    DamageBlocked: Owned({"roll": ("attacker",)}),
    DamageDealt: Owned(
        {"roll": ("source",)},
        {
            "amount": ("source", "target"),
            "resistance": ("target",),
            "resistance_changes": ("target",),
            "to_health": ("target",),
            "to_armour": ("target",),
        },
    ),
    SpellCast: Owned({}, {"spell_dc": ("caster",)}, public=("mc", "spell_dice", "cast_time")),
    ManeuverRolled: Owned(
        {"roll": ("actor",)}, {"defence": ("target",), "defence_changes": ("target",)}
    ),
    ThrowChecked: Owned({"roll": ("actor",)}, {"dc": ("actor",)}),
    ItemUsed: Owned({"roll": ("combatant",)}, {"healed": ("combatant",)}),
    AbilityDamaged: Owned({"roll": ("combatant",)}, {"amount": ("combatant",)}),
    StealthChecked: Owned({"stealth_roll": ("sneaker",), "perception_roll": ("observer",)}),
    SpellDeciphered: Owned({"roll": ("combatant",)}, {"dc": ("combatant",)}),
    ConcentrationChecked: Owned({"roll": ("caster",)}, {"dc": ("caster",)}),
    RiderThrown: Owned({"roll": ("rider",)}, public=("dc",)),
    CriticalTableRolled: Owned({"roll": ("combatant",)}, public=("row",)),
}
for _event, _owned in ROLLS.items():  # DamageDealt, ItemUsed, SpellDeciphered: see below
    VERSE_VIEWS.redacts(_event)(_owned)


def _with_health_state(data: Data, state: Encounter, audience: Audience, cid: str) -> Data:
    """Another side's view of a change of `cid`'s health gains its coarse health after."""
    if not audience.knows(side_of(state, cid)):
        c: Any = state.combatants.get(cid)
        if isinstance(c, VerseCombatant):
            data["health_state"] = health_state(c.health, c.sheet.health)
    return data


@VERSE_VIEWS.redacts(DamageDealt)
def damage_dealt_view(event: DamageDealt, state: Encounter, audience: Audience) -> Data:
    """Damage is seen as the table sees it (R77: the numbers of the sides this audience
    knows); what it leaves is not. Another side gets the target's coarse
    `health_state` after it, so its picture of the foe stays right without ever seeing
    a number of health."""
    data = ROLLS[DamageDealt](event, state, audience)
    return _with_health_state(data, state, audience, event.target)


@VERSE_VIEWS.redacts(ItemUsed)
def item_used_view(event: ItemUsed, state: Encounter, audience: Audience) -> Data:
    """What was healed is the user's number (R77); another side sees its health after."""
    data = ROLLS[ItemUsed](event, state, audience)
    return _with_health_state(data, state, audience, event.combatant)


@VERSE_VIEWS.redacts(SpellAttackRolled)
def spell_attack_view(event: SpellAttackRolled, state: Encounter, audience: Audience) -> Data:
    """The attack and damage rolls are the caster's; each target's SD is its own."""
    results = []
    for result in event.results:
        data = _plain(result)
        if not sees_numbers(state, audience, result.target):
            del data["defence"], data["defence_changes"]
        results.append(data)
    return record_view(
        event,
        roll=roll_view(event.roll, state, audience, event.caster),
        results=results,
        damage=roll_view(event.damage, state, audience, event.caster),
    )


def _numbers_hidden(*kept: str) -> Any:
    """A redactor that keeps only `kept` fields of another side's override event."""

    def redact(event: Any, state: Encounter, audience: Audience) -> Data:
        if audience.knows(side_of(state, event.combatant)):
            return _plain(event)
        data: Data = {"$type": type(event).__name__}
        for name in kept:
            data[name] = getattr(event, name)
        return data

    return redact


VERSE_VIEWS.redacts(ManaSet)(_numbers_hidden("combatant"))
VERSE_VIEWS.redacts(ArmourSet)(_numbers_hidden("combatant"))
VERSE_VIEWS.redacts(AbilitySet)(_numbers_hidden("combatant", "ability"))
# R73: what the GM approved is on the sheet, which another side does not see.
VERSE_VIEWS.redacts(FeatApproved)(_numbers_hidden("combatant"))
VERSE_VIEWS.redacts(ApprovalWithdrawn)(_numbers_hidden("combatant"))


@VERSE_VIEWS.redacts(SpellDeciphered)
def spell_deciphered_view(event: SpellDeciphered, state: Encounter, audience: Audience) -> Data:
    """Another side sees the roll as the room shows rolls (R77) and the spell's name;
    the spell is the reader's to know."""
    data = ROLLS[SpellDeciphered](event, state, audience)
    if not audience.knows(side_of(state, event.combatant)):
        data["spell"] = {"$type": "Spell", "name": event.spell.name}
    return data


@VERSE_VIEWS.redacts(ManaPledged)
def mana_pledged_view(event: ManaPledged, state: Encounter, audience: Audience) -> Data:
    """R74: the helper's and the caster's sides see the pledge; another only who made one."""
    sides = (side_of(state, event.helper), side_of(state, event.caster))
    if any(audience.knows(side) for side in sides):
        return _plain(event)
    return {"$type": "ManaPledged", "helper": event.helper}
