"""`decide` and `apply`: the engine's whole interface (ARCHITECTURE, "The one idea").

`decide(state, command)` checks a command against the state and returns the events
it causes, rolling any dice it needs from the state's dice source; it raises
`CommandRefused` and leaves nothing changed when the command is not legal.
`apply(state, event)` returns the state after one event and never rolls. Folding
`apply` over a log therefore rebuilds the state exactly (`replay`).

Rulesets register their commands and events on a `Ruleset`; shared turn handling
is registered on `COMMON`, which every ruleset extends.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

from server.engine.dice import DiceCup, Roll
from server.engine.errors import PAUSED, UNKNOWN_COMMAND, CommandRefused
from server.engine.records import evolve, record
from server.engine.state import Encounter


@record
class Command:
    """Something a player, the GM or the room asks for. It may be refused.

    `issuers` says who may send it (ARCHITECTURE: the role is part of the command's
    definition, so the server can enforce it): "gm"; "controller", the player who
    controls the combatant named by the command's `actor`; "player", any player;
    "room", the room itself (timers). Spectators may send nothing.
    """

    issuers: ClassVar[frozenset[str]] = frozenset({"gm", "controller"})
    while_paused: ClassVar[bool] = False  # V24: only resume and GM overrides while paused
    speaker: ClassVar[str] = ""  # the field naming who sends it, checked against the sender

    @property
    def acting_for(self) -> str:
        """The combatant this command acts for ("" when it names none)."""
        actor = getattr(self, "actor", "")
        return actor if isinstance(actor, str) else ""

    @property
    def commits(self) -> tuple[str, ...]:
        """Other combatants this command spends on its sender's word alone (a group
        cast's `helpers`, V12): the sender must answer for each of them as it answers
        for the actor (`authority.authorize`). Naming a combatant to aim at, to answer
        or to stand beside commits nothing of it."""
        return ()


@record
class Event:
    """A fact that already happened, with every die result inside it."""

    def rolls(self) -> tuple[Roll, ...]:
        """The rolls this event records; `apply` advances the dice past their faces."""
        return ()


C = TypeVar("C", bound=Command)
E = TypeVar("E", bound=Event)
Decider = Callable[[Encounter, Any, DiceCup], list[Event]]
Applier = Callable[[Encounter, Any], Encounter]
FlowGate = Callable[[Encounter, Any, DiceCup, Decider], list[Event]]


class Ruleset:
    """A rule system: the commands it decides and the events it applies."""

    def __init__(self, name: str, parent: Ruleset | None = None) -> None:
        self.name = name
        self.parent = parent
        self.deciders: dict[type, Decider] = {}
        self.appliers: dict[type, Applier] = {}
        # Game actions (attacks, spells, moves...) are not decided on their own: the
        # ruleset's flow decides when they resolve and who may answer them first
        # (V21). Their registered deciders are the resolvers the flow calls.
        self.actions: set[type] = set()
        self.flow: FlowGate | None = None

    def gates(self, flow: FlowGate, *actions: type) -> None:
        """Route `actions` through `flow`, which calls their deciders to resolve them."""
        self.flow = flow
        self.actions.update(actions)

    def decides(
        self, command: type[C]
    ) -> Callable[[Callable[[Encounter, C, DiceCup], list[Event]]], Any]:
        def register(fn: Callable[[Encounter, C, DiceCup], list[Event]]) -> Any:
            self.deciders[command] = fn
            return fn

        return register

    def applies(self, event: type[E]) -> Callable[[Callable[[Encounter, E], Encounter]], Any]:
        def register(fn: Callable[[Encounter, E], Encounter]) -> Any:
            self.appliers[event] = fn
            return fn

        return register

    def decider(self, command: type) -> Decider | None:
        found = self.deciders.get(command)
        if found is None and self.parent is not None:
            return self.parent.decider(command)
        return found

    def applier(self, event: type) -> Applier | None:
        found = self.appliers.get(event)
        if found is None and self.parent is not None:
            return self.parent.applier(event)
        return found


COMMON = Ruleset("common")
RULESETS: dict[str, Ruleset] = {}


def register_ruleset(ruleset: Ruleset) -> Ruleset:
    RULESETS[ruleset.name] = ruleset
    return ruleset


def ruleset_of(state: Encounter) -> Ruleset:
    return RULESETS[state.ruleset]


_DECIDERS: dict[tuple[str, type], Decider] = {}


def decide(state: Encounter, command: Command) -> list[Event]:
    """The events `command` causes in `state`, or `CommandRefused`."""
    if state.paused_by and not type(command).while_paused:
        raise CommandRefused(
            PAUSED, f"paused by {state.paused_by}: only resume and GM overrides are accepted"
        )
    key = (state.ruleset, type(command))
    handler = _DECIDERS.get(key)
    if handler is None:
        ruleset = ruleset_of(state)
        handler = ruleset.decider(type(command))
        if handler is None:
            raise CommandRefused(
                UNKNOWN_COMMAND, f"{type(command).__name__} is not a command of {state.ruleset}"
            )
        if ruleset.flow is not None and type(command) in ruleset.actions:
            handler = functools.partial(_through_flow, ruleset.flow, handler)
        _DECIDERS[key] = handler
    cup = DiceCup(state.dice)
    events = handler(state, command, cup)
    recorded = 0
    for event in events:
        for roll in event.rolls():
            recorded += roll.dice_used
    if recorded != cup.used:
        raise AssertionError(
            f"{type(command).__name__} rolled {cup.used} dice but its events record {recorded}"
        )
    return events


def _through_flow(
    flow: FlowGate, resolve: Decider, state: Encounter, command: Command, cup: DiceCup
) -> list[Event]:
    return flow(state, command, cup, resolve)


_APPLIERS: dict[tuple[str, type], tuple[Applier, bool]] = {}
_set = object.__setattr__


def apply(state: Encounter, event: Event) -> Encounter:
    """The state after `event`. Never rolls: dice advance by the faces the event records."""
    kind = type(event)
    found = _APPLIERS.get((state.ruleset, kind))
    if found is None:
        handler = ruleset_of(state).applier(kind)
        if handler is None:
            raise TypeError(f"{kind.__name__} is not an event of {state.ruleset}")
        # Most events record no roll: knowing it per type spares a call for each of them.
        found = _APPLIERS[(state.ruleset, kind)] = (handler, kind.rolls is not Event.rolls)
    handler, rolled = found
    after = handler(state, event)
    if after is state:
        after = evolve(state)
    # `after` was made for this event just now and nobody else holds it yet: finish it
    # in place rather than copying the whole state a second time for every event.
    if rolled:
        used = 0
        for roll in event.rolls():
            used += roll.dice_used
        if used:
            _set(after, "dice", after.dice.advanced(used))
    _set(after, "version", after.version + 1)
    return after


class Decided(list[Event]):
    """Events that come with the state they lead to.

    A flow that applies its events as it decides them (Live Combat's `Run`) hands its
    final state on, so `execute` need not apply every event a second time. The state is
    exactly `apply_all(before, events)`: it was built by `apply` itself.
    """

    def __init__(self, events: Iterable[Event], state: Encounter) -> None:
        super().__init__(events)
        self.state = state


def apply_all(state: Encounter, events: Iterable[Event]) -> Encounter:
    for event in events:
        state = apply(state, event)
    return state


def execute(state: Encounter, command: Command) -> tuple[Encounter, list[Event]]:
    """Decide and apply in one step: what a room does with each accepted command."""
    events = decide(state, command)
    if isinstance(events, Decided):
        return events.state, events
    return apply_all(state, events), events


def replay(initial: Encounter, log: Sequence[Event]) -> Encounter:
    """Rebuild a state by folding `apply` over a log."""
    return apply_all(initial, log)
