"""Events as sentences a person reads: "d20 14 + Strength 3 + Training 2 = 19 vs PD 15: hit".

`narrate(event, state)` is shared by the demo, the server's logs and the clients, so
every screen tells a fight the same way. Each event type has one narrator; an event
type without one (a ruleset module newer than this file) still prints, compactly, as
its type and fields. Narrators only read: `state` is the encounter right after the
event was applied, used for names and for what is left (health, armour).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from server.engine.dice import Roll
from server.engine.rulesets.verse.attacks import AttackRolled, ThrowChecked
from server.engine.rulesets.verse.combatant import DEAD
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ConditionGained,
    ConditionLost,
    ItemBroken,
    WeaponDropped,
)
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.turns import (
    InitiativeRolled,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from server.engine.state import Encounter

E = TypeVar("E")
Narrator = Callable[[Any, Encounter], "str | None"]
_NARRATORS: dict[type, Narrator] = {}


def narrates(event_type: type[E]) -> Callable[[Callable[[E, Encounter], str | None]], Any]:
    """Register the narrator of one event type (modules outside this file may add theirs)."""

    def register(fn: Callable[[E, Encounter], str | None]) -> Any:
        _NARRATORS[event_type] = fn
        return fn

    return register


def narrate(event: Any, state: Encounter) -> str | None:
    """The text for `event` (several lines for some), or None when it has nothing to show."""
    narrator = _NARRATORS.get(type(event))
    if narrator is None:
        return compact(event)
    return narrator(event, state)


def name_of(state: Encounter, combatant_id: str) -> str:
    """The sheet's name; with the id when several combatants share it ("Goblin (g2)")."""
    combatant = state.combatants.get(combatant_id)
    sheet = getattr(combatant, "sheet", None)
    if sheet is None:
        return combatant_id
    name = str(sheet.name)
    shared = sum(1 for c in state.combatants.values() if _sheet_name(c) == name)
    return f"{name} ({combatant_id})" if shared > 1 else name


def _sheet_name(combatant: Any) -> str | None:
    sheet = getattr(combatant, "sheet", None)
    return getattr(sheet, "name", None)


def compact(value: Any) -> str:
    """Any event as `TypeName field=value, ...`: the fallback for events without a narrator."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ", ".join(
            f"{f.name}={_value(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return f"{type(value).__name__} {fields}" if fields else type(value).__name__
    return repr(value)


def _value(value: Any) -> str:
    if isinstance(value, Roll):
        return f"({value.describe()})"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return f"({compact(value)})"
    if isinstance(value, tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, str):
        return value if value and " " not in value else repr(str(value))
    return repr(value)


def _reason(reason: str) -> str:
    return f" ({reason})" if reason else ""


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# --- turns ------------------------------------------------------------------------------


@narrates(InitiativeRolled)
def _initiative(event: InitiativeRolled, state: Encounter) -> str:
    lines = ["Initiative:"]
    lines += [f"  {name_of(state, r.combatant)}: {r.roll.describe()}" for r in event.rolls_made]
    lines += [
        f"  tie re-roll, {name_of(state, r.combatant)}: {r.roll.describe()}"
        for r in event.tiebreaks
    ]
    order = ", ".join(f"{name_of(state, s.combatant)} {s.initiative}" for s in event.order)
    lines.append(f"Turn order: {order}")
    return "\n".join(lines)


@narrates(RoundStarted)
def _round_started(event: RoundStarted, state: Encounter) -> str:
    return f"Round {event.round}"


@narrates(RoundEnded)
def _round_ended(event: RoundEnded, state: Encounter) -> str:
    return f"End of round {event.round}"


@narrates(TurnStarted)
def _turn_started(event: TurnStarted, state: Encounter) -> str:
    return f"{name_of(state, event.combatant)}'s turn"


@narrates(TurnEnded)
def _turn_ended(event: TurnEnded, state: Encounter) -> str:
    return f"{name_of(state, event.combatant)} ends the turn"


# --- attacks and damage -----------------------------------------------------------------


@narrates(AttackRolled)
def _attack(event: AttackRolled, state: Encounter) -> str:
    weapon = event.weapon or "an unarmed attack"
    return (
        f"{name_of(state, event.attacker)} attacks {name_of(state, event.target)} "
        f"with {weapon}: {event.describe()}"
    )


@narrates(ThrowChecked)
def _throw(event: ThrowChecked, state: Encounter) -> str:
    result = "thrown" if event.success else "too heavy to throw that far"
    return (
        f"{name_of(state, event.actor)} throws the {event.item}: "
        f"{event.roll.describe()} vs Throw DC {event.dc}: {result}"
    )


@narrates(DamageDealt)
def _damage(event: DamageDealt, state: Encounter) -> str:
    roll = f"{event.roll.describe()}; " if event.roll is not None else ""
    affinity = f" ({event.affinity})" if event.affinity else ""
    text = f"{name_of(state, event.target)} takes {roll}{event.describe()}{affinity}"
    target = state.combatants.get(event.target)
    if target is not None:
        left = [f"health {target.health}"]
        if target.armour_durability is not None:
            left.append(f"armour {target.armour_durability}")
        text += f" [{', '.join(left)} left]"
    return text


# --- conditions and items -----------------------------------------------------------------


@narrates(ConditionGained)
def _condition_gained(event: ConditionGained, state: Encounter) -> str:
    who = name_of(state, event.combatant)
    if event.condition == DEAD:
        return f"{who} dies{_reason(event.reason)}"
    lasting = ""
    if event.rounds is not None:
        lasting = f" for {_plural(event.rounds, 'turn' if event.per_turn else 'round')}"
    return f"{who} gains {event.condition}{lasting}{_reason(event.reason)}"


@narrates(ConditionLost)
def _condition_lost(event: ConditionLost, state: Encounter) -> str:
    who = name_of(state, event.combatant)
    return f"{who} is no longer {event.condition}{_reason(event.reason)}"


@narrates(ItemBroken)
def _item_broken(event: ItemBroken, state: Encounter) -> str:
    return f"{name_of(state, event.combatant)}'s {event.item} is Broken{_reason(event.reason)}"


@narrates(WeaponDropped)
def _weapon_dropped(event: WeaponDropped, state: Encounter) -> str:
    return f"{name_of(state, event.combatant)} drops the {event.weapon}{_reason(event.reason)}"


@narrates(AbilityDamaged)
def _ability_damaged(event: AbilityDamaged, state: Encounter) -> str:
    roll = f" ({event.roll.describe()})" if event.roll is not None else ""
    return (
        f"{name_of(state, event.combatant)} takes {event.amount} {event.ability.capitalize()} "
        f"damage{roll}{_reason(event.reason)}"
    )
