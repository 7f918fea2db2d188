"""Getting a dropped or Broken item back: the GM's call (R72).

V6 knocks a melee weapon from its wielder's hand ("to a random spot within throwing
range") and jams a ranged one ("temporarily gains the broken condition until fixed");
critical-table rows knock items away or break them (V5). The text gives no action that
picks an item up or fixes it, so, like every result the text leaves open, it is the
GM's: `RecoverItem` puts the item back in its owner's hand, whole. Without it a
spearman's one natural 1 would end his fight for good.
"""

from __future__ import annotations

from server.engine.core import Event
from server.engine.dice import DiceCup
from server.engine.errors import INVALID_COMMAND, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.damage import ARMOUR
from server.engine.rulesets.verse.overrides import GMOverride
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.state import Encounter


@record
class RecoverItem(GMOverride):
    """Put a dropped or Broken item back in its owner's hand, whole (R72)."""

    combatant: str
    item: str


@record
class ItemRecovered(Event):
    """The item is in hand and whole again; `was_dropped` and `was_broken` say how it
    was before, as every override records what it replaced (R63)."""

    combatant: str
    item: str
    was_dropped: bool
    was_broken: bool


@VERSE.decides(RecoverItem)
def decide_recover_item(state: Encounter, command: RecoverItem, cup: DiceCup) -> list[Event]:
    c: VerseCombatant = combatant(state, command.combatant)
    item = command.item
    if item == ARMOUR:
        raise CommandRefused(
            INVALID_COMMAND, "armour is whole again by its durability: SetArmour (V7)"
        )
    dropped = isinstance(item, str) and item in c.dropped
    broken = isinstance(item, str) and item in c.broken
    if not dropped and not broken:
        raise CommandRefused(
            INVALID_COMMAND, f"{c.id} has no dropped or Broken item {item!r} to get back"
        )
    return [ItemRecovered(c.id, item, dropped, broken)]


@VERSE.applies(ItemRecovered)
def apply_item_recovered(state: Encounter, event: ItemRecovered) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    return state.with_combatant(
        evolve(
            c,
            dropped=tuple(i for i in c.dropped if i != event.item),
            broken=tuple(i for i in c.broken if i != event.item),
        )
    )
