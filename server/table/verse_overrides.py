"""Verse's GM overrides as choices (`overrides.py`): health, mana, conditions, a
position, removing a combatant, skipping a turn."""

from __future__ import annotations

from server.engine.core import Command
from server.engine.grid import Cell
from server.engine.rulesets.verse.overrides import (
    RemoveCombatant,
    RemoveCondition,
    SetCondition,
    SetHealth,
    SetMana,
    SetPosition,
    SkipTurn,
)
from server.table.choices import Probe
from server.table.overrides import Data, choice, number, pick, register_overrides, whom


def verse_overrides(probe: Probe) -> list[tuple[Data, Command]]:
    state = probe.state
    first = next(iter(state.combatants.values()))
    found: list[tuple[Data, Command]] = [
        (
            choice(
                "set_health",
                "Set health",
                SetHealth("", 0),
                whom(probe),
                number("/health", "health"),
            ),
            SetHealth(first.id, first.health),
        ),
        (
            choice("set_mana", "Set mana", SetMana("", 0), whom(probe), number("/mana", "mana")),
            SetMana(first.id, first.mana),
        ),
        (
            choice(
                "set_position",
                "Place",
                SetPosition("", Cell(0, 0)),
                whom(probe),
                number("/cell/x", "x", least=None),
                number("/cell/y", "y", least=None),
            ),
            SetPosition(first.id, first.position),
        ),
        (
            choice("remove_combatant", "Remove from the fight", RemoveCombatant(""), whom(probe)),
            RemoveCombatant(first.id),
        ),
        (choice("skip_turn", "Skip the turn", SkipTurn()), SkipTurn()),
    ]
    names = sorted({rule.name for rule in state.condition_rules})
    if names:
        found.append(
            (
                choice(
                    "set_condition",
                    "Lay a condition",
                    SetCondition("", names[0]),
                    whom(probe),
                    pick("/condition", "condition", ((n, n) for n in names)),
                ),
                SetCondition(first.id, names[0]),
            )
        )
    for c in state.combatants.values():
        for condition in c.conditions:
            command = RemoveCondition(c.id, condition.name)
            label = f"Remove {condition.name} from {probe.name(c.id)}"
            found.append(
                (choice(f"remove_condition:{c.id}:{condition.name}", label, command), command)
            )
    return found


register_overrides("verse", verse_overrides)
