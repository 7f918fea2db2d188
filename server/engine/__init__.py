"""The pure combat engine: `decide(state, command) -> events`, `apply(state, event) -> state`.

No I/O, no clock, no global randomness: dice come from the encounter's own source.
"""

from server.engine import commands as _commands  # noqa: F401  (registers shared commands)
from server.engine.core import Command, Event, apply, apply_all, decide, execute, replay
from server.engine.errors import CommandRefused
from server.engine.state import Encounter

__all__ = [
    "Command",
    "CommandRefused",
    "Encounter",
    "Event",
    "apply",
    "apply_all",
    "decide",
    "execute",
    "replay",
]

from server.engine import rulesets as _rulesets

del _rulesets
