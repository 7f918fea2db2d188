"""World of Tael's GM overrides as choices (`overrides.py`): hit points and status
effects (TR37)."""

from __future__ import annotations

from server.engine.core import Command
from server.engine.rulesets.tael.overrides import (
    MAX_STATUS_TURNS,
    RemoveStatus,
    SetHitPoints,
    SetStatus,
)
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
    names = sorted({rule.name for rule in state.condition_rules})
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


register_overrides("tael", tael_overrides)
