"""World of Tael's GM overrides as choices (`overrides.py`): hit points and status
effects (TR37)."""

from __future__ import annotations

from collections.abc import Iterator

from server.engine.core import Command
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.overrides import (
    MAX_STATUS_TURNS,
    RemoveStatus,
    SetHitPoints,
    SetStatus,
)
from server.engine.rulesets.tael.sheet import StatusEffect
from server.engine.state import Encounter
from server.table.choices import Probe
from server.table.overrides import Data, choice, number, pick, register_overrides, whom


def tael_overrides(probe: Probe) -> list[tuple[Data, Command]]:
    state = probe.state
    first = next(iter(state.combatants.values()))
    found: list[tuple[Data, Command]] = [
        (
            choice(
                "set_hit_points",
                "Set hit points",
                SetHitPoints("", 0),
                whom(probe),
                number("/hit_points", "hit points"),
            ),
            SetHitPoints(first.id, first.hit_points),
        )
    ]
    names = status_names(state)
    if names:
        found.append(
            (
                choice(
                    "set_status",
                    "Lay a status",
                    SetStatus("", names[0], 1),
                    whom(probe),
                    pick("/status", "status", ((n, n) for n in names)),
                    number("/turns", "turns", least=1, most=MAX_STATUS_TURNS),
                    pick("/damage", "damage each turn", damage_dice(state)),
                    pick("/skips_turn", "its turns", ((False, "keeps them"), (True, "loses them"))),
                ),
                SetStatus(first.id, names[0], 1),
            )
        )
    for c in state.combatants.values():
        for status in c.statuses:
            command = RemoveStatus(c.id, status.name)
            label = f"Remove {status.name} from {probe.name(c.id)}"
            found.append((choice(f"remove_status:{c.id}:{status.name}", label, command), command))
    return found


DAMAGE_DICE = ("1d4", "1d6", "1d8", "1d10", "1d12")
"""Damage a status deals at the start of each turn, besides what the spells in play
give theirs: one die of each size (the terminal's `status` takes any dice)."""


def _spell_statuses(state: Encounter) -> Iterator[StatusEffect]:
    """The status effects the spells of the sheets in play lay (TR14)."""
    for c in state.combatants.values():
        if isinstance(c, TaelCombatant):
            for spell in c.sheet.spells:
                if spell.status is not None:
                    yield spell.status


def status_names(state: Encounter) -> list[str]:
    """What the GM may lay: the statuses the spells in play name (the text leaves what a
    status is to its spell, TR14) and the room's conditions table's, each once (names
    match whatever their case), sorted."""
    names: dict[str, str] = {}
    for effect in _spell_statuses(state):
        names.setdefault(effect.name.casefold(), effect.name)
    for rule in state.condition_rules:
        names.setdefault(rule.name.casefold(), rule.name)
    return sorted(names.values())


def damage_dice(state: Encounter) -> list[tuple[str, str]]:
    """The damage hole's options: none, a die of each size, the spells' own dice."""
    dice = list(DAMAGE_DICE)
    dice += sorted({e.damage for e in _spell_statuses(state) if e.damage} - set(dice))
    return [("", "none"), *((d, d) for d in dice)]


register_overrides("tael", tael_overrides)
