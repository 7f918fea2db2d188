"""Commands every ruleset shares: time running out, Pause (V24), closing a window,
the end of the fight.

Their effects on the round are decided by the ruleset's flow (Verse: `live.py`);
Pause and Resume are decided here since they mean the same in every rule system.
When the GM may end the fight is each ruleset's own rule (Tael: T10), but what the
end leaves behind is the same everywhere (`apply_combat_ended`).
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.core import COMMON, Command, Event
from server.engine.dice import DiceCup
from server.engine.errors import INVALID_COMMAND, NOT_PAUSED, PAUSED, WRONG_PHASE, CommandRefused
from server.engine.records import evolve, record
from server.engine.state import Encounter, Phase


@record
class WindowExpired(Command):
    """The room's timer for window `window` ran out: it closes as if all had passed."""

    issuers: ClassVar[frozenset[str]] = frozenset({"room"})
    window: int


@record
class CloseWindow(Command):
    """The GM closes window `window` now (issue: "close a window now")."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    window: int


@record
class Rewind(Command):
    """The GM takes the fight back to how it was after event number `to_version`.

    Only the room can decide it, since it needs the log: it rebuilds that state and
    appends `Rewound`. The abandoned events stay in the log; replay follows the rewind.
    """

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    to_version: int


@record
class Pause(Command):
    """V24: any player or the GM stops every timer. `by` is "gm" or a combatant id."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm", "player"})
    speaker: ClassVar[str] = "by"
    by: str


@record
class Resume(Command):
    """V24: lift the pause; every timer goes on with the time it had left."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm", "player"})
    while_paused: ClassVar[bool] = True
    speaker: ClassVar[str] = "by"
    by: str


@record
class RefusePause(Command):
    """V24: the GM refuses a player's pause: it is as if it never happened. Every timer
    ran all along, so each window has the time left it would have had without the
    pause, and one whose time ran out meanwhile closes at once as a timeout (R65)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True


@record
class EndCombat(Command):
    """The GM ends the fight; each ruleset decides when it may (Tael: T10). `agreed`:
    everyone at the table agreed to stop the fight (T10's "everyone agrees"), said in
    the log (`CombatEnded.agreed`); in Tael it ends a fight no side has lost (TR39)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True
    agreed: bool = False


@record
class Paused(Event):
    by: str


@record
class Resumed(Event):
    by: str
    refused: bool = False  # True after `RefusePause`: the timers ran all along (V24)


@record
class Rewound(Event):
    """The state after event `to_version`, restored. Dice and version go on from now:
    a rewind never replays the dice of the abandoned branch."""

    to_version: int
    state: Encounter


@record
class CombatEnded(Event):
    """The fight is over: the sides out of it (`defeated`: no member left who can fight)
    and those of them that fell (`fallen`: every member dead, or in Tael fainted);
    `agreed`: the GM ended it as everyone agreed to stop (T10)."""

    defeated: tuple[str, ...]
    fallen: tuple[str, ...]
    agreed: bool = False


def check_agreed(command: EndCombat) -> bool:
    """`EndCombat.agreed`, which must be true or false (nothing ends on a malformed one)."""
    if type(command.agreed) is not bool:
        raise CommandRefused(INVALID_COMMAND, "agreed is true or false")
    return command.agreed


@COMMON.decides(Pause)
def decide_pause(state: Encounter, command: Pause, cup: DiceCup) -> list[Event]:
    if state.paused_by:
        raise CommandRefused(PAUSED, f"already paused by {state.paused_by}")
    if state.phase == Phase.ENDED:
        raise CommandRefused(WRONG_PHASE, "the fight has ended: no timer runs to pause")
    return [Paused(command.by or "gm")]


@COMMON.decides(Resume)
def decide_resume(state: Encounter, command: Resume, cup: DiceCup) -> list[Event]:
    """The player who paused, or the GM, lifts a pause (V24)."""
    if not state.paused_by:
        raise CommandRefused(NOT_PAUSED, "the fight is not paused")
    if command.by not in ("gm", state.paused_by):
        who = "the GM" if state.paused_by == "gm" else f"the GM or {state.paused_by}"
        raise CommandRefused(PAUSED, f"only {who}, who paused, may resume")
    return [Resumed(command.by)]


@COMMON.decides(RefusePause)
def decide_refuse_pause(state: Encounter, command: RefusePause, cup: DiceCup) -> list[Event]:
    if not state.paused_by:
        raise CommandRefused(NOT_PAUSED, "the fight is not paused")
    return [Resumed("gm", refused=True)]


@COMMON.applies(Paused)
def apply_paused(state: Encounter, event: Paused) -> Encounter:
    return evolve(state, paused_by=event.by)


@COMMON.applies(Resumed)
def apply_resumed(state: Encounter, event: Resumed) -> Encounter:
    return evolve(state, paused_by="")


@COMMON.decides(Rewind)
def decide_rewind(state: Encounter, command: Rewind, cup: DiceCup) -> list[Event]:
    raise CommandRefused(
        INVALID_COMMAND, "a rewind needs the event log: the room decides it (Room.rewind)"
    )


@COMMON.applies(Rewound)
def apply_rewound(state: Encounter, event: Rewound) -> Encounter:
    """The restored state, with what must not go back in time: the dice (no replayed
    rolls), the version, the pause (the GM is still talking; a fight taken back from its
    end comes back paused by the GM), and window ids (a timer or answer meant for the
    abandoned branch's window must not land on the restored one)."""
    restored = event.state
    paused_by = state.paused_by
    if state.phase == Phase.ENDED and restored.phase == Phase.COMBAT:
        # Taken back from its end, the fight waits for the GM: nobody could pause an
        # ended fight, and the table should not find a countdown already running.
        paused_by = "gm"
    opened = max(state.windows_opened, restored.windows_opened)
    window = restored.window
    if window is not None:
        opened += 1
        window = evolve(window, id=opened)
    return evolve(
        restored,
        dice=state.dice,
        version=state.version,
        paused_by=paused_by,
        window=window,
        windows_opened=opened,
    )


@COMMON.applies(CombatEnded)
def apply_combat_ended(state: Encounter, event: CombatEnded) -> Encounter:
    """Nothing is left to answer or resolve: the open window, the stack, the
    declarations and a pause end with the fight, so no timer runs on."""
    return evolve(
        state,
        phase=Phase.ENDED,
        window=None,
        pending=(),
        declarations=(),
        resolving="",
        paused_by="",
    )
