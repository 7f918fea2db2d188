"""GM overrides as commands and events (issue 3; V24; RULINGS intro).

"A GM override is always an event in the log, never a silent edit." Every command here
is the GM's alone (`issuers = {"gm"}`) and is accepted while the fight is paused (V24:
"no command but resume (and GM overrides) is accepted while paused"). Each checks its
input and refuses bad input with a stable code, changing nothing; each event records
what was there before (`previous...`), so clients and the log show the change.

Readings where the text is open (docs/rules.md):

- Values are set within the sheet: health 0..sheet health, mana 0..sheet mana, armour
  durability 0..sheet durability (only when the sheet tracks it, V7), an ability score
  0..the sheet's score. Setting a value never adds or removes a condition or a Broken
  item: health 0 is not Dead, Constitution 0 is not Unconscious (V10), armour 0 is not
  Broken and armour above 0 stays Broken if it was. The GM uses `SetCondition` /
  `RemoveCondition` for those.
- `SetCondition` / `RemoveCondition` reuse `ConditionGained` / `ConditionLost` with the
  reason "GM override". A condition the combatant already has is replaced (new
  duration); `rounds` counts round ends like every condition (None: until removed).
  Removing a condition it does not have is refused. A condition set on the combatant
  whose turn it is does not end its turn (`SkipTurn` does); one that leaves a combatant
  asked in an open window unable to act passes for it (R69, `pass_for_the_unable`).
  Removing one may make a combatant able again in a round that waited on nobody: the
  round goes on (`live.carry_on`).
- `SetPosition` places a combatant, not a move: no action is spent, no attack of
  opportunity opens, a spell being charged is not broken (V12 is about moving). A cell
  held by another able combatant on the same Ascension level is refused (`blocked`,
  `positions.blocker_at`, the test every move uses). A ride's riders go with it (to its
  level too); a rider placed anywhere leaves its ride (its former ride then holds the
  ride's cell against it like anyone else).
- `AddCombatant` in combat rolls initiative for the newcomer like `StartCombat`
  (`d20 + Dexterity`, one roll per full 30 ft of the environment's speed, V16; none if
  it is Dead). Each of its turns is placed in the order by initiative, higher
  Dexterity first on equal initiative (V16), after the existing turns when both are
  equal (no re-roll: the others' order is settled). The turn being played stays the
  current one, so a turn placed before it comes next round, a turn placed after it
  comes this round. In Live Combat it is asked to declare if a planning window is
  open; added during resolution it has no declaration, so its turns this round pass,
  or, under `undeclared = "hold"` and able to act, its next one holds.
- `RemoveCombatant` takes a combatant out: its turns, its declarations, the stack
  entries it owns and the defences it put on others' actions go with it; an open
  window no longer asks it, and a window about it (its action is the subject, or it
  is the attacker a counter window answers) is closed first. A ride's riders stay where
  they are, unmounted. If it was the combatant whose turn it is, its turn ends there
  (R63): the rest of its declared turn is lost and its stack entries go with it, but
  the answers others gave (a holder's attack, an attack of opportunity) stay, with any
  window about them, and resolve before the next turn starts, which then starts from
  where its turn was (`Encounter.turn_over` marks the wait).
- `SkipTurn`: the current turn ends now. Whatever is in flight is lost: an open window
  closes, every stack entry is lost (`ActionLost`, top first, answers too), in Live
  Combat the turn's remaining declared actions are lost; then the turn ends the normal
  way (`live.end_live_turn` / `turns.end_of_turn_events`) and the flow continues.
- `SetSetting` changes a room setting in `Encounter.settings` (the command and its
  event are every ruleset's, `server/engine/settings.py`): `critical_tables`
  (true/false), `planning_seconds`, `reaction_seconds`, `adapt_seconds` (1 to 3600
  seconds: our bounds; a window already open keeps its length, the next one uses the
  new one), `undeclared` ("pass" or "hold") and `roll_visibility` ("open", "faces" or
  "hidden": how much of another side's rolls players and spectators see, R77; the
  events from the change on are shown so).
"""

from __future__ import annotations

from typing import Any, ClassVar

from server.engine.authority import RESERVED_NAMES
from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import BLOCKED, INVALID_COMMAND, WRONG_PHASE, CommandRefused
from server.engine.flow import Ask, Declaration, Mode, Pending, Window, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.verse import live
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.conditions import ABILITY_NAMES, ConditionGained, ConditionLost
from server.engine.rulesets.verse.live_actions import HoldAction
from server.engine.rulesets.verse.positions import blocker_at
from server.engine.rulesets.verse.rides import carry_riders_events, riders_of
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.turns import (
    InitiativeRoll,
    TurnEnded,
    end_of_turn_events,
    initiative_count,
    initiative_modifiers,
)
from server.engine.rulesets.verse.windows import DECLARE, WindowClosed
from server.engine.settings import (
    Check,
    SetSetting,
    decide_setting,
    roll_visibility,
    window_seconds,
)
from server.engine.state import Encounter, Phase, TurnSlot

GM_OVERRIDE = "GM override"
SKIPPED = "the GM skipped the turn"
WINDOW_SETTINGS = ("planning_seconds", "reaction_seconds", "adapt_seconds")
UNDECLARED = ("pass", "hold")
MAX_CONDITION_NAME = 60


@record
class GMOverride(Command):
    """The GM's alone, and accepted while paused (V24)."""

    issuers: ClassVar[frozenset[str]] = frozenset({"gm"})
    while_paused: ClassVar[bool] = True


# --- commands -------------------------------------------------------------------


@record
class SetHealth(GMOverride):
    combatant: str
    health: int


@record
class SetMana(GMOverride):
    combatant: str
    mana: int


@record
class SetArmour(GMOverride):
    """Set the armour durability; only for a sheet that tracks it (V7)."""

    combatant: str
    durability: int


@record
class SetAbility(GMOverride):
    """Set a current ability score (ability damage and overdraw lower them, V10)."""

    combatant: str
    ability: str
    score: int


@record
class SetCondition(GMOverride):
    """Give a condition, for `rounds` round ends (None: until removed)."""

    combatant: str
    condition: str
    rounds: int | None = None


@record
class RemoveCondition(GMOverride):
    combatant: str
    condition: str


@record
class SetPosition(GMOverride):
    """Place a combatant on `cell`; `ascension` and `facing` unchanged when None."""

    combatant: str
    cell: Cell
    ascension: int | None = None
    facing: int | None = None


@record
class AddCombatant(GMOverride):
    """A new combatant joins; in combat it rolls initiative and joins the turn order."""

    combatant: VerseCombatant


@record
class RemoveCombatant(GMOverride):
    combatant: str


@record
class SkipTurn(GMOverride):
    """The current turn ends now."""


# --- events ---------------------------------------------------------------------


@record
class HealthSet(Event):
    combatant: str
    health: int
    previous: int


@record
class ManaSet(Event):
    combatant: str
    mana: int
    previous: int


@record
class ArmourSet(Event):
    combatant: str
    durability: int
    previous: int


@record
class AbilitySet(Event):
    combatant: str
    ability: str
    score: int
    previous: int


@record
class PositionSet(Event):
    combatant: str
    cell: Cell
    ascension: int
    facing: int
    previous_cell: Cell
    previous_ascension: int
    previous_facing: int
    left_ride: str = ""  # the ride a rider placed elsewhere left


@record
class CombatantAdded(Event):
    """`combatant` joins; in combat its initiative rolls and where its turns went.

    `at` holds the index in the new turn order of each slot of `slots`, ascending.
    """

    combatant: VerseCombatant
    initiative: tuple[InitiativeRoll, ...] = ()
    slots: tuple[TurnSlot, ...] = ()
    at: tuple[int, ...] = ()

    def rolls(self) -> tuple[Roll, ...]:
        return tuple(r.roll for r in self.initiative)


@record
class CombatantRemoved(Event):
    """`combatant` (as it was) leaves, with what left with it."""

    combatant: VerseCombatant
    slots: tuple[int, ...] = ()  # its indices in the turn order before it left
    declarations: tuple[Declaration, ...] = ()
    pending: tuple[Pending, ...] = ()  # the stack entries it owned
    riders: tuple[str, ...] = ()  # riders left unmounted, when it was a ride


@record
class TurnSkipped(Event):
    combatant: str
    turn: int  # index into the turn order


# --- checks ---------------------------------------------------------------------


def whole_number(value: object, what: str, low: int, high: int) -> int:
    """Refuse anything but an int (bool excluded) in `low..high`."""
    if type(value) is not int or not low <= value <= high:
        raise CommandRefused(INVALID_COMMAND, f"{what} must be a whole number {low} to {high}")
    return value


def valid_cell(cell: object) -> Cell:
    if not isinstance(cell, Cell) or type(cell.x) is not int or type(cell.y) is not int:
        raise CommandRefused(INVALID_COMMAND, "a cell is two whole numbers")
    return cell


def valid_level(ascension: object) -> int:
    if type(ascension) is not int:
        raise CommandRefused(INVALID_COMMAND, "an Ascension level is a whole number")
    return ascension


def check_free(state: Encounter, c: VerseCombatant, cell: Cell, ascension: int) -> None:
    blocker = blocker_at(state, c, cell, ascension)
    if blocker is not None:
        raise CommandRefused(
            BLOCKED, f"({cell.x}, {cell.y}) on Ascension {ascension} is held by {blocker.id}"
        )


def _critical_tables(name: str, value: object) -> bool:
    if type(value) is not bool:
        raise CommandRefused(INVALID_COMMAND, "critical_tables is true or false")
    return value


def _undeclared(name: str, value: object) -> str:
    if not isinstance(value, str) or value not in UNDECLARED:
        raise CommandRefused(INVALID_COMMAND, "undeclared is 'pass' or 'hold'")
    return value


SETTINGS: dict[str, Check] = {
    "critical_tables": _critical_tables,
    **dict.fromkeys(WINDOW_SETTINGS, window_seconds),
    "undeclared": _undeclared,
    "roll_visibility": roll_visibility,
}
"""The settings a Verse room takes, each with the check of its value."""


# --- the turn order -------------------------------------------------------------


def placed_slots(
    order: tuple[TurnSlot, ...], new: list[TurnSlot]
) -> tuple[tuple[TurnSlot, ...], tuple[int, ...]]:
    """The new slots in initiative order, and their indices once inserted into `order`.

    Each goes before the first slot it outranks, higher initiative then higher
    Dexterity (V16), so after every slot it ties with.
    """
    ranked = sorted(new, key=lambda s: (-s.initiative, -s.dexterity))
    merged = list(order)
    at: list[int] = []
    for slot in ranked:
        key = (slot.initiative, slot.dexterity)
        index = next(
            (i for i, s in enumerate(merged) if (s.initiative, s.dexterity) < key), len(merged)
        )
        merged.insert(index, slot)
        at = [a + 1 if a >= index else a for a in at]
        at.append(index)
    pairs = sorted(zip(at, ranked, strict=True), key=lambda p: p[0])
    return tuple(s for _, s in pairs), tuple(a for a, _ in pairs)


def window_about(state: Encounter, window: Window, combatant_id: str) -> bool:
    """Is `window` there for `combatant_id`'s action (or to answer its attack)?"""
    if window.about == combatant_id and window.kind != WindowKind.PLANNING:
        return True
    subject = window.subject
    return 0 <= subject < len(state.pending) and state.pending[subject].actor == combatant_id


def lose_what_is_in_flight(run: live.Run, reason: str) -> None:
    """The current turn stops here: an open window closes, the stack is lost top first,
    and in Live Combat the turn's remaining declared actions are lost."""
    window = run.state.window
    if window is not None:
        run.emit(WindowClosed(window.id, "closed by the GM"))
    while run.state.pending:
        top = run.state.pending[-1]
        run.emit(live.ActionLost(top.actor, top.action, reason))
    if run.state.mode == Mode.LIVE:
        live.drop_rest_of_turn(run, reason)


# --- deciders -------------------------------------------------------------------


@VERSE.decides(SetHealth)
def decide_set_health(state: Encounter, command: SetHealth, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    health = whole_number(command.health, "health", 0, c.sheet.health)
    return [HealthSet(c.id, health, c.health)]


@VERSE.decides(SetMana)
def decide_set_mana(state: Encounter, command: SetMana, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    mana = whole_number(command.mana, "mana", 0, c.sheet.mana)
    return [ManaSet(c.id, mana, c.mana)]


@VERSE.decides(SetArmour)
def decide_set_armour(state: Encounter, command: SetArmour, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    limit = c.sheet.armour_durability
    if limit is None or c.armour_durability is None:
        raise CommandRefused(INVALID_COMMAND, f"{c.id}'s sheet tracks no armour durability (V7)")
    durability = whole_number(command.durability, "armour durability", 0, limit)
    return [ArmourSet(c.id, durability, c.armour_durability)]


@VERSE.decides(SetAbility)
def decide_set_ability(state: Encounter, command: SetAbility, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    if command.ability not in ABILITY_NAMES:
        raise CommandRefused(
            INVALID_COMMAND, f"no ability {command.ability!r}: one of {', '.join(ABILITY_NAMES)}"
        )
    limit: int = getattr(c.sheet.abilities, command.ability)
    score = whole_number(command.score, command.ability, 0, limit)
    return [AbilitySet(c.id, command.ability, score, getattr(c.abilities, command.ability))]


@VERSE.decides(SetCondition)
def decide_set_condition(state: Encounter, command: SetCondition, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    name = command.condition
    if type(name) is not str or not name.strip() or len(name) > MAX_CONDITION_NAME:
        raise CommandRefused(
            INVALID_COMMAND, f"a condition is a name of 1 to {MAX_CONDITION_NAME} characters"
        )
    if command.rounds is not None and (type(command.rounds) is not int or command.rounds < 1):
        raise CommandRefused(INVALID_COMMAND, "rounds is a whole number from 1, or none")
    run = live.Run(state, cup)
    run.emit(ConditionGained(c.id, name, command.rounds, reason=GM_OVERRIDE))
    return live.WINDOWS.pass_for_the_unable(run)


@VERSE.decides(RemoveCondition)
def decide_remove_condition(
    state: Encounter, command: RemoveCondition, cup: DiceCup
) -> list[Event]:
    c = combatant(state, command.combatant)
    if type(command.condition) is not str or not c.has(command.condition):
        raise CommandRefused(INVALID_COMMAND, f"{c.id} is not {command.condition!r}")
    run = live.Run(state, cup)
    run.emit(ConditionLost(c.id, command.condition, reason=GM_OVERRIDE))
    live.advance(run)  # someone able again: a round that waited on nobody goes on
    return run.decided()


@VERSE.decides(SetPosition)
def decide_set_position(state: Encounter, command: SetPosition, cup: DiceCup) -> list[Event]:
    c = combatant(state, command.combatant)
    cell = valid_cell(command.cell)
    level = c.ascension if command.ascension is None else valid_level(command.ascension)
    facing = c.facing
    if command.facing is not None:
        facing = whole_number(command.facing, "facing", 0, state.grid.directions - 1)
    placed = evolve(c, mounted_on="")  # a rider placed anywhere leaves its ride
    check_free(state, placed, cell, level)
    events: list[Event] = [
        PositionSet(c.id, cell, level, facing, c.position, c.ascension, c.facing, c.mounted_on)
    ]
    # "Ride Combat": riders go where their ride goes.
    return events + carry_riders_events(state, c.id, cell, level)


@VERSE.decides(AddCombatant)
def decide_add_combatant(state: Encounter, command: AddCombatant, cup: DiceCup) -> list[Event]:
    c = command.combatant
    if not isinstance(c, VerseCombatant):
        raise CommandRefused(INVALID_COMMAND, "a Verse combatant is needed")
    if type(c.id) is not str or not c.id.strip() or type(c.side) is not str or not c.side:
        raise CommandRefused(INVALID_COMMAND, "a combatant needs an id and a side")
    if c.id in state.combatants:
        raise CommandRefused(INVALID_COMMAND, f"{c.id!r} is already in the encounter")
    if c.id.lower() in RESERVED_NAMES:
        raise CommandRefused(INVALID_COMMAND, f"{c.id!r} is a role's name; choose another id")
    if c.mounted_on:
        raise CommandRefused(INVALID_COMMAND, "a combatant joins unmounted (then it may Mount)")
    whole_number(c.health, "health", 0, c.sheet.health)
    whole_number(c.mana, "mana", 0, c.sheet.mana)
    tracked = c.sheet.armour_durability
    if (tracked is None) != (c.armour_durability is None):
        raise CommandRefused(INVALID_COMMAND, "armour durability is tracked when the sheet has it")
    if tracked is not None:
        whole_number(c.armour_durability, "armour durability", 0, tracked)
    whole_number(c.facing, "facing", 0, state.grid.directions - 1)
    check_free(state, c, valid_cell(c.position), valid_level(c.ascension))
    if state.phase != Phase.COMBAT or not c.alive:
        return [CombatantAdded(c)]
    # V16, as turns.roll_initiative: one d20 + Dexterity + bonuses (R76) per full 30 ft
    # of speed.
    dexterity = c.abilities.dexterity
    rolls = tuple(
        InitiativeRoll(c.id, cup.d20(initiative_modifiers(c)))
        for _ in range(initiative_count(c, state.environment))
    )
    new = [TurnSlot(c.id, r.roll.total, dexterity) for r in rolls]
    slots, at = placed_slots(state.turn_order, new)
    run = live.Run(state, cup)
    run.emit(CombatantAdded(c, rolls, slots, at))
    planning = state.window is not None and state.window.kind == WindowKind.PLANNING
    hold = state.settings.undeclared == "hold" and c.active
    if state.mode == Mode.LIVE and not planning and hold:
        # Resolution is under way, so no planning window will ask the newcomer this
        # round: the room's setting for the undeclared applies now, as at the close (V20).
        later = [slot for slot in live.slots_of(run.state, c.id) if slot > run.state.turn]
        if later:
            run.emit(live.DeclarationMade(c.id, later[0], (HoldAction(c.id),)))
    live.advance(run)  # a round that waited on nobody goes on with the newcomer
    return run.decided()


@VERSE.decides(RemoveCombatant)
def decide_remove_combatant(
    state: Encounter, command: RemoveCombatant, cup: DiceCup
) -> list[Event]:
    c = combatant(state, command.combatant)
    run = live.Run(state, cup)
    was_current = state.phase == Phase.COMBAT and state.current == c.id
    window = state.window
    if window is not None and window_about(state, window, c.id):
        run.emit(WindowClosed(window.id, "closed by the GM"))
    if was_current:
        # R63: its turn ends here, and only what is its own goes: the rest of its
        # declared turn now, its stack entries with it below. The answers others gave
        # stay and resolve before the next turn starts (`live.advance`, `turn_over`).
        if state.mode == Mode.LIVE:
            live.drop_rest_of_turn(run, f"{c.id} left the fight")
        run.emit(TurnEnded(c.id))
    now = run.state
    run.emit(
        CombatantRemoved(
            c,
            tuple(i for i, s in enumerate(now.turn_order) if s.combatant == c.id),
            tuple(d for d in now.declarations if d.combatant == c.id),
            tuple(p for p in now.pending if p.actor == c.id),
            tuple(r.id for r in riders_of(now, c.id)),
        )
    )
    window = run.state.window
    if window is not None and not window.waiting_for:
        live.close_window(run, "answered")  # it was the last one the window waited for
    live.advance(run)  # its turn over, the next starts once the stack is empty (R63)
    return run.decided()


@VERSE.decides(SkipTurn)
def decide_skip_turn(state: Encounter, command: SkipTurn, cup: DiceCup) -> list[Event]:
    current = state.current
    if state.phase != Phase.COMBAT or current is None:
        raise CommandRefused(WRONG_PHASE, "no turn is being played")
    run = live.Run(state, cup)
    run.emit(TurnSkipped(current, state.turn))
    lose_what_is_in_flight(run, SKIPPED)
    if state.mode == Mode.LIVE:
        live.end_live_turn(run)
    else:
        run.emit(*end_of_turn_events(run.state, run.cup))
    live.advance(run)
    return run.events


@VERSE.decides(SetSetting)
def decide_set_setting(state: Encounter, command: SetSetting, cup: DiceCup) -> list[Event]:
    return [decide_setting(command, state, SETTINGS)]


# --- appliers -------------------------------------------------------------------


def _set(state: Encounter, combatant_id: str, **changes: Any) -> Encounter:
    return state.with_combatant(evolve(state.combatants[combatant_id], **changes))


@VERSE.applies(HealthSet)
def apply_health_set(state: Encounter, event: HealthSet) -> Encounter:
    return _set(state, event.combatant, health=event.health)


@VERSE.applies(ManaSet)
def apply_mana_set(state: Encounter, event: ManaSet) -> Encounter:
    return _set(state, event.combatant, mana=event.mana)


@VERSE.applies(ArmourSet)
def apply_armour_set(state: Encounter, event: ArmourSet) -> Encounter:
    return _set(state, event.combatant, armour_durability=event.durability)


@VERSE.applies(AbilitySet)
def apply_ability_set(state: Encounter, event: AbilitySet) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    abilities = evolve(c.abilities, **{event.ability: event.score})
    return state.with_combatant(evolve(c, abilities=abilities))


@VERSE.applies(PositionSet)
def apply_position_set(state: Encounter, event: PositionSet) -> Encounter:
    return _set(
        state,
        event.combatant,
        position=event.cell,
        ascension=event.ascension,
        facing=event.facing,
        mounted_on="",
    )


@VERSE.applies(CombatantAdded)
def apply_combatant_added(state: Encounter, event: CombatantAdded) -> Encounter:
    c = event.combatant
    combatants = {**state.combatants, c.id: c}
    window = state.window
    if window is not None and window.kind == WindowKind.PLANNING and event.slots and c.active:
        window = evolve(window, asked=(*window.asked, Ask(c.id, (DECLARE,))))
    if not event.slots:
        return evolve(state, combatants=combatants, window=window)
    old = state.turn_order
    inserted = dict(zip(event.at, event.slots, strict=True))
    order: list[TurnSlot] = []
    moved: list[int] = []  # moved[i]: the new index of old slot i
    rest = iter(old)
    for index in range(len(old) + len(inserted)):
        if index in inserted:
            order.append(inserted[index])
        else:
            order.append(next(rest))
            moved.append(index)
    turn = moved[state.turn] if 0 <= state.turn < len(moved) else state.turn
    declarations = tuple(evolve(d, turn=moved[d.turn]) for d in state.declarations)
    return evolve(
        state,
        combatants=combatants,
        turn_order=tuple(order),
        turn=turn,
        declarations=declarations,
        window=window,
    )


@VERSE.applies(CombatantRemoved)
def apply_combatant_removed(state: Encounter, event: CombatantRemoved) -> Encounter:
    gone = event.combatant.id
    combatants: dict[str, Any] = {}
    for cid, c in state.combatants.items():
        if cid == gone:
            continue
        if c.mounted_on == gone or gone in c.opportunities:
            mounted_on = "" if c.mounted_on == gone else c.mounted_on
            left = tuple(t for t in c.opportunities if t != gone)
            c = evolve(c, mounted_on=mounted_on, opportunities=left)
        combatants[cid] = c
    # The turn order without its slots; old index -> new index for everything else.
    moved: list[int] = []
    order: list[TurnSlot] = []
    for slot in state.turn_order:
        moved.append(len(order))
        if slot.combatant != gone:
            order.append(slot)
    turn = state.turn
    turn_over = state.turn_over
    if 0 <= turn < len(state.turn_order):
        # Its own turn: the index of the turn before it, so the next turn follows it,
        # once the answers others gave have resolved (R63).
        own = state.turn_order[turn].combatant == gone
        turn = moved[turn] - 1 if own else moved[turn]
        turn_over = turn_over or (own and state.phase == Phase.COMBAT)
    declarations = tuple(
        evolve(d, turn=moved[d.turn])
        for d in state.declarations
        if d.combatant != gone and 0 <= d.turn < len(moved)
    )
    # The stack without its entries or its defences; old index -> new index.
    kept: dict[int, int] = {}
    pending: list[Pending] = []
    for index, entry in enumerate(state.pending):
        if entry.actor == gone:
            continue
        if any(d.defender == gone for d in entry.defences):
            entry = evolve(entry, defences=tuple(d for d in entry.defences if d.defender != gone))
        kept[index] = len(pending)
        pending.append(entry)
    window = state.window
    if window is not None:
        window = evolve(
            window,
            asked=tuple(a for a in window.asked if a.combatant != gone),
            answered=tuple(a for a in window.answered if a != gone),
            subject=kept.get(window.subject, -1),
        )
    return evolve(
        state,
        combatants=combatants,
        turn_order=tuple(order),
        turn=turn,
        declarations=declarations,
        pending=tuple(pending),
        window=window,
        resolving="" if state.resolving == gone else state.resolving,
        turn_over=turn_over,
    )


@VERSE.applies(TurnSkipped)
def apply_turn_skipped(state: Encounter, event: TurnSkipped) -> Encounter:
    return state  # the events that follow end the turn
