"""GM overrides for Tael (RULINGS: "make the result overridable by the GM. A GM override
is always an event in the log, never a silent edit").

- `SetHitPoints`: hit points within 0 and the sheet's. Healing a fainted character
  above 0 stands it up in its old place in the turn order (T8: "until a teammate helps
  him up or heals him"); setting 0 on a standing one makes it faint (TR34). A dead
  character stays dead.
- `RemoveStatus`: takes a status effect off (`StatusEnded`).
- `SetStatus`: lays a status effect the GM rules (`StatusGained`, TR37): a name, how
  many of the target's own turns it lasts, damage at the start of each, whether it
  loses those turns, as a sheet's `StatusEffect` says them (TR14). No resist check:
  the GM has ruled. Laid during the target's own turn, it counts from the target's next
  turn (TR38): the turn under way was not one it lasted (no damage at its start, not
  lost to it), so a one-turn stun laid then takes the next turn rather than ending
  with this one.

- `SetSetting` (every ruleset's command, `server/engine/settings.py`): a Tael room takes
  `reaction_seconds` (the length of a preparation's window, 1 to 3600 seconds) and
  `roll_visibility` ("open", "faces" or "hidden": how much of another side's rolls
  players and spectators see, R77). Verse's other settings (critical tables, planning,
  adapt windows, the undeclared) mean nothing here and are refused.

`EndTurn("")` already lets the GM end any turn, `CloseWindow` any window, and
`EndCombat` the fight (T10). Each command is the GM's alone and accepted while paused.
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, DiceExpressionError, parse
from server.engine.errors import INVALID_COMMAND, TARGET_DOWN, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.tael.combatant import TaelCombatant, TaelStatus
from server.engine.rulesets.tael.damage import Fainted
from server.engine.rulesets.tael.fainting import stood_up
from server.engine.rulesets.tael.flow import WINDOWS
from server.engine.rulesets.tael.ruleset import TAEL, combatant
from server.engine.rulesets.tael.statuses import StatusEnded, StatusGained
from server.engine.settings import (
    Check,
    SetSetting,
    decide_setting,
    roll_visibility,
    window_seconds,
)
from server.engine.stack import Run
from server.engine.state import Encounter, Phase

MAX_STATUS_NAME = 60
MAX_STATUS_TURNS = 99


@record
class SetHitPoints(Command):
    """The GM sets `combatant`'s hit points (0 to its sheet's)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    combatant: str
    hit_points: int


@record
class RemoveStatus(Command):
    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    combatant: str
    status: str


@record
class SetStatus(Command):
    """The GM lays a status effect on `combatant` for `turns` of its own turns (TR37);
    laid during its own turn, they count from its next one (TR38)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    combatant: str
    status: str
    turns: int
    damage: str = ""  # dice dealt at the start of each of its turns, e.g. "1d4"
    skips_turn: bool = False  # it loses those turns


@record
class HitPointsSet(Event):
    combatant: str
    hit_points: int
    previous: int
    stood_up: bool  # it was fainted and now has hit points again


@TAEL.decides(SetHitPoints)
def decide_set_hit_points(state: Encounter, command: SetHitPoints, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    most = c.sheet.hit_points
    value = command.hit_points
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise CommandRefused(INVALID_COMMAND, f"hit points are 0 to {most}, not {value!r}")
    if c.dead:
        raise CommandRefused(TARGET_DOWN, f"{c.id} is dead")
    run = Run(state, cup)
    run.emit(HitPointsSet(c.id, value, c.hit_points, c.fainted and value > 0))
    if value == 0 and not c.fainted:
        run.emit(Fainted(c.id))
    return WINDOWS.pass_for_the_unable(run)


@TAEL.decides(SetStatus)
def decide_set_status(state: Encounter, command: SetStatus, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    if c.dead:
        raise CommandRefused(TARGET_DOWN, f"{c.id} is dead")
    name = command.status
    if type(name) is not str or not name.strip() or len(name) > MAX_STATUS_NAME:
        raise CommandRefused(
            INVALID_COMMAND, f"a status is a name of 1 to {MAX_STATUS_NAME} characters"
        )
    turns = command.turns
    if type(turns) is not int or not 1 <= turns <= MAX_STATUS_TURNS:
        raise CommandRefused(
            INVALID_COMMAND, f"turns is a whole number from 1 to {MAX_STATUS_TURNS}"
        )
    if type(command.skips_turn) is not bool:
        raise CommandRefused(INVALID_COMMAND, "skips_turn is true or false")
    damage = command.damage
    if type(damage) is not str:
        raise CommandRefused(INVALID_COMMAND, "damage is dice, such as 1d4, or empty")
    if damage:
        try:
            parse(damage)
        except DiceExpressionError as error:
            raise CommandRefused(INVALID_COMMAND, f"damage: {error}") from None
    # TR38: laid during the target's own turn, it counts from the next one.
    own_turn = state.phase == Phase.COMBAT and state.current == c.id
    status = TaelStatus(
        name.strip(), turns, damage, command.skips_turn, source="gm", from_next_turn=own_turn
    )
    return [StatusGained(c.id, status)]


@TAEL.decides(RemoveStatus)
def decide_remove_status(state: Encounter, command: RemoveStatus, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    if c.status(command.status) is None:
        raise CommandRefused(INVALID_COMMAND, f"{c.id} has no status {command.status!r}")
    return [StatusEnded(c.id, command.status)]


SETTINGS: dict[str, Check] = {
    "reaction_seconds": window_seconds,
    "roll_visibility": roll_visibility,
}
"""The settings a Tael room takes, each with the check of its value."""


@TAEL.decides(SetSetting)
def decide_set_setting(state: Encounter, command: SetSetting, cup: DiceCup) -> list[Event]:
    return [decide_setting(command, state, SETTINGS)]


@TAEL.applies(HitPointsSet)
def apply_hit_points_set(state: Encounter, event: HitPointsSet) -> Encounter:
    c: TaelCombatant = state.combatants[event.combatant]
    c = stood_up(c) if event.stood_up else c
    return state.with_combatant(evolve(c, hit_points=event.hit_points))
