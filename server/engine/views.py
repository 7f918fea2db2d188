"""Per-audience views: what the GM, a player and a spectator may see (ARCHITECTURE 8).

The server redacts before it sends: each audience gets plain data (`records.to_data`)
with what it may not know taken out, so a hidden GM value never leaves the server for
anyone else. These functions are pure and work on the engine's records; the gateway
calls them and sends the result.

Audiences. The GM sees everything, exactly `to_data`, but the dice source. A player sees
with the eyes of the sides its combatants are on (`Audience.sides`); a spectator is a
player of no side. A player's view depends only on its sides, not on which combatants it
controls (its own sheets and its allies' are shown alike), so every audience with the
same `Audience.key` gets the same view, byte for byte: the server builds one view per
key and event, not one per connection (`event_views`).

What nobody sees, the GM included: the dice source (`Encounter.dice`: seed and
position), replaced by the placeholder `"hidden"`. Its seed and position tell every
future roll, the players' included; the GM sees every roll, never the future. The log
and the bus keep it (the server rebuilds rooms from them); no audience gets it.

What nobody but the GM sees (the rules every ruleset shares, here):

* another side's declarations while the planning window is open (Verse V20: "each
  side's declarations secret from the others until the window closes"): the entry
  stays (who declared, for which turn), its `actions` become `[]`;
* in a window other than planning, the options of another side's asks (they tell its
  feats, the items in its hands, a hold): `options` becomes `[]`, the ask stays so
  everyone sees whom the window waits for. In a planning window every ask is
  "declare", which tells nothing, so it stays;
* `Rewound.state` is a whole state: it is redacted as `state_view` redacts one.

What a ruleset hides of its combatants and in its own events (sheets, health, GM
notes...) is its own table (`rulesets/verse/views.py`), registered with
`register_views`. A ruleset without one cannot be viewed by anyone but the GM: the
views fail closed (`LookupError`) rather than show everything.

Rolls (Verse R77, both rulesets). Every number a roll-carrying event holds belongs to
a combatant: a roll's modifiers and total to the one who rolled it, a defence, a
resistance, a Defensive Value or a DC worked out from a sheet to the one whose sheet
it comes from, the damage dealt to the one who dealt it and the one who took it. An
audience sees a number whole when it sees one of its owners' sides from the inside
(`Audience.knows`: the GM, or a player of that side or an allied one); another side's
numbers are shown as the room's `Settings.roll_visibility` says:

* `"open"`: whole, as at a table that rolls in the open;
* `"faces"` (the default): a roll keeps its dice faces (`dice`, `multiplier`,
  `dice_used`) and loses `modifiers` and `total` (`hidden_roll`), and every other
  number of that side is left out of the event. The outcome (hit or miss, success or
  failure, the row of a table) stays: it is what the table sees. Faces and a total
  together would give away the sum of the modifiers, so both cannot be shown;
* `"hidden"`: as `"faces"`, and the roll loses its faces too: only the outcome is left.

A number whose owner is not in the fight (a removed combatant, a status effect) is no
side's: hidden from everyone but the GM, unless the table is open (`sees_numbers`).
The initiative of another side's turn (`TurnSlot.initiative`, its `dexterity` and
`tiebreak`) is such a number too: its slot keeps only `combatant` (`slot_view`), in
the state's `turn_order` and in the events that carry slots. Each ruleset says whose
numbers each field of its events holds (`Owned`); an event that carries a `Roll` and
has no rule shows its rolls as nobody's (`_unruled_rolls`), so a new event fails closed.

Events are never dropped: sequence numbers reach every client without gaps
(docs/protocol.md), so a hidden event arrives redacted, never missing.

View dicts may be shared between audiences (`event_views` hands the same dict to
every audience an event needs no redaction for): treat them as read-only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Any

from server.engine.authority import Principal, Role
from server.engine.commands import Rewound
from server.engine.condition_table import ConditionSaveRolled
from server.engine.dice import Roll
from server.engine.flow import Declaration, Window, WindowKind
from server.engine.records import record, to_data
from server.engine.stack import ActionLost
from server.engine.state import Encounter, RollVisibility, TurnSlot
from server.engine.turns import InitiativeRoll, InitiativeRolled

Data = dict[str, Any]
HIDDEN = "hidden"  # the placeholder for the dice source
_TAG = "$type"


class AudienceKind(StrEnum):
    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"


@record
class Audience:
    """Who a view is for: its kind, the combatants a player controls, its sides.

    `sides` are the sides of the combatants it controls, sorted (`audience_of`).
    """

    kind: str
    controls: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()

    @property
    def sees_everything(self) -> bool:
        return self.kind == AudienceKind.GM

    @property
    def key(self) -> tuple[str, ...]:
        """Audiences with equal keys see the same views: ("gm",), or "side" and the
        sides (a spectator and a player of no side share `("side",)`)."""
        if self.kind == AudienceKind.GM:
            return ("gm",)
        return ("side", *self.sides)

    def knows(self, side: str | None) -> bool:
        """Does this audience see `side` from the inside (its own or an allied side)?"""
        return self.kind == AudienceKind.GM or (side is not None and side in self.sides)


GM_AUDIENCE = Audience(AudienceKind.GM)
SPECTATORS = Audience(AudienceKind.SPECTATOR)


def player_audience(controls: Iterable[str], state: Encounter) -> Audience:
    """A player controlling `controls`: its sides come from those combatants in `state`.

    A combatant not (or no longer) in the fight gives no side. The room derives the
    audience again when the roster changes (a combatant added, removed, a rewind).
    """
    controlled = tuple(controls)
    sides = {state.combatants[cid].side for cid in controlled if cid in state.combatants}
    return Audience(AudienceKind.PLAYER, controlled, tuple(sorted(sides)))


def audience_of(principal: Principal, state: Encounter) -> Audience:
    """The audience of a connection's principal (from its token)."""
    if principal.role == Role.GM:
        return GM_AUDIENCE
    if principal.role == Role.PLAYER:
        return player_audience(principal.controls, state)
    if principal.role == Role.SPECTATOR:
        return SPECTATORS
    raise ValueError(f"{principal.role!r} is not an audience")


# --- a ruleset's rules ----------------------------------------------------------------

CombatantView = Callable[[Any, Audience], Data]
EventView = Callable[[Any, Encounter, Audience], Data]


class Views:
    """One ruleset's redaction rules: how a combatant looks to an audience that is not
    the GM, and the events that need more than `to_data` (`redacts`)."""

    def __init__(self, ruleset: str, combatant: CombatantView) -> None:
        self.ruleset = ruleset
        self.combatant = combatant
        self.events: dict[type, EventView] = {}

    def redacts(self, event: type) -> Callable[[EventView], EventView]:
        def register(fn: EventView) -> EventView:
            self.events[event] = fn
            _REDACTORS.clear()
            return fn

        return register


VIEWS: dict[str, Views] = {}
COMMON_EVENTS: dict[type, EventView] = {}
_REDACTORS: dict[tuple[str, type], EventView | None] = {}


def register_views(views: Views) -> Views:
    VIEWS[views.ruleset] = views
    _REDACTORS.clear()
    return views


def views_of(ruleset: str) -> Views:
    found = VIEWS.get(ruleset)
    if found is None:
        raise LookupError(f"ruleset {ruleset!r} has no view rules: only the GM may see it")
    return found


def _redactor(ruleset: str, event: type) -> EventView | None:
    key = (ruleset, event)
    if key in _REDACTORS:
        return _REDACTORS[key]
    views = views_of(ruleset)
    found = views.events.get(event) or COMMON_EVENTS.get(event)
    if found is None and _carries_rolls(event):
        found = _unruled_rolls
    _REDACTORS[key] = found
    return found


def _carries_rolls(event: type) -> bool:
    """Does a field of `event` hold a `Roll` (alone, optional or in a tuple)?"""
    if not dataclasses.is_dataclass(event):
        return False
    return any(re.search(r"\bRoll\b", str(f.type)) for f in dataclasses.fields(event))


# --- shared pieces ----------------------------------------------------------------------


def side_of(state: Encounter, combatant: str) -> str | None:
    """The side of `combatant` in `state`, None when it is not there."""
    found = state.combatants.get(combatant)
    return None if found is None else str(found.side)


def declarations_secret(state: Encounter) -> bool:
    """V20: declarations are secret while the planning window is open.

    The state keeps no mark of the reveal: `DeclarationsRevealed` comes right after the
    planning window closes, in the same batch, so from one batch end to the next
    "planning window open" and "not yet revealed" are the same.
    """
    window = state.window
    return window is not None and window.kind == WindowKind.PLANNING


def hidden_declaration(declaration: Declaration) -> Data:
    """A declaration another side may not read yet: who and which turn, no actions."""
    return {
        _TAG: "Declaration",
        "combatant": declaration.combatant,
        "turn": declaration.turn,
        "actions": [],
    }


def declarations_view(
    declarations: Iterable[Declaration],
    secret: bool,
    side: Callable[[str], str | None],
    audience: Audience,
) -> list[Data]:
    """Declarations as `audience` sees them: another side's are hidden while `secret`."""
    return [
        hidden_declaration(d) if secret and not audience.knows(side(d.combatant)) else to_data(d)
        for d in declarations
    ]


def window_view(window: Window | None, state: Encounter, audience: Audience) -> Data | None:
    """A window as `audience` sees it: another side's options hidden outside planning."""
    data: Data | None = to_data(window)
    if window is None or data is None or audience.sees_everything:
        return data
    if window.kind == WindowKind.PLANNING:
        return data
    data["asked"] = [
        ask
        if audience.knows(side_of(state, ask["combatant"]))
        else {_TAG: "Ask", "combatant": ask["combatant"], "options": []}
        for ask in data["asked"]
    ]
    return data


class HealthState:
    """The coarse health another side sees, from health (hit points) against the
    sheet's maximum, in every ruleset: a number it may not see, as the table sees it."""

    UNHURT = "unhurt"  # at (or above) its maximum
    WOUNDED = "wounded"  # above half
    BLOODIED = "bloodied"  # half or less
    DOWN = "down"  # 0: dead in Verse; fainted or dead in Tael (shown as their own flags)


def health_state(now: int, most: int) -> str:
    """What the table sees of `now` health out of `most` (`HealthState`)."""
    if now <= 0:
        return HealthState.DOWN
    if now >= most:
        return HealthState.UNHURT
    if 2 * now > most:
        return HealthState.WOUNDED
    return HealthState.BLOODIED


# --- rolls and the numbers they show (R77) --------------------------------------------


def sees_numbers(state: Encounter, audience: Audience, *owners: str) -> bool:
    """Does `audience` see whole the numbers that belong to the combatants `owners`?

    The GM always; everyone at an open table (`roll_visibility` "open"); otherwise an
    audience that sees one of the owners' sides from the inside. An owner not in the
    fight (a removed combatant, a status effect's name) is no side's.
    """
    if audience.sees_everything or state.settings.roll_visibility == RollVisibility.OPEN:
        return True
    return any(audience.knows(side_of(state, owner)) for owner in owners)


def hidden_roll(roll: Roll, state: Encounter) -> Data:
    """A roll whose numbers this audience may not see: no `modifiers`, no `total`;
    under "faces" its dice faces stay, under "hidden" (or any other value: fail
    closed) only the `multiplier` (a critical's, which its outcome shows anyway)."""
    if state.settings.roll_visibility == RollVisibility.FACES:
        return {
            _TAG: "Roll",
            "dice": to_data(roll.dice),
            "multiplier": roll.multiplier,
            "dice_used": roll.dice_used,
        }
    return {_TAG: "Roll", "multiplier": roll.multiplier}


def roll_view(roll: Roll | None, state: Encounter, audience: Audience, *owners: str) -> Any:
    """`roll` (rolled by one of `owners`) as `audience` sees it."""
    if roll is None:
        return None
    if sees_numbers(state, audience, *owners):
        return to_data(roll)
    return hidden_roll(roll, state)


def slot_view(slot: TurnSlot, state: Encounter, audience: Audience) -> Data:
    """A turn of the turn order: another side's keeps only whose turn it is (its
    initiative is a roll's total, its `dexterity` the sheet's, its `tiebreak` rolled)."""
    if sees_numbers(state, audience, slot.combatant):
        data: Data = to_data(slot)
        return data
    return {_TAG: "TurnSlot", "combatant": slot.combatant}


def initiative_view(made: InitiativeRoll, state: Encounter, audience: Audience) -> Data:
    return {
        _TAG: "InitiativeRoll",
        "combatant": made.combatant,
        "roll": roll_view(made.roll, state, audience, made.combatant),
    }


class Owned:
    """Whose numbers each field of one kind of event holds (R77), and the redactor
    that follows from it: `rolls` and `numbers` map a field to the fields of the event
    naming the combatants it belongs to (a number with several owners is seen by a
    side that knows any of them). `public` names the event's other numbers, which
    everyone sees (a rule's fixed DC, the row of a table): every number of the event
    is in one of the three (tests/engine/test_views.py checks it)."""

    def __init__(
        self,
        rolls: dict[str, tuple[str, ...]],
        numbers: dict[str, tuple[str, ...]] | None = None,
        public: tuple[str, ...] = (),
    ) -> None:
        self.rolls = rolls
        self.numbers = numbers or {}
        self.public = public

    def __call__(self, event: Any, state: Encounter, audience: Audience) -> Data:
        return self.view(to_data(event), event, state, audience)

    def view(self, data: Data, event: Any, state: Encounter, audience: Audience) -> Data:
        """`data` (the event's plain data, which it changes) with another side's numbers
        hidden."""
        for name, owners in self.rolls.items():
            roll = getattr(event, name)
            data[name] = roll_view(roll, state, audience, *self.owners(event, owners))
        for name, owners in self.numbers.items():
            if not sees_numbers(state, audience, *self.owners(event, owners)):
                del data[name]
        return data

    @staticmethod
    def owners(event: Any, fields: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(str(getattr(event, name)) for name in fields)


def _unruled_rolls(event: Any, state: Encounter, audience: Audience) -> Data:
    """An event with rolls and no rule: its rolls are nobody's (fail closed)."""
    data: Data = to_data(event)
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if isinstance(value, Roll):
            data[f.name] = roll_view(value, state, audience)
    return data


def _initiative_rolled_view(event: InitiativeRolled, state: Encounter, audience: Audience) -> Data:
    """Each initiative roll is its combatant's; another side's turns keep only whose."""
    return record_view(
        event,
        rolls_made=[initiative_view(r, state, audience) for r in event.rolls_made],
        tiebreaks=[initiative_view(r, state, audience) for r in event.tiebreaks],
        order=[slot_view(slot, state, audience) for slot in event.order],
    )


_FIELDS: dict[type, tuple[str, ...]] = {}


def record_view(value: Any, **replaced: Any) -> Data:
    """`to_data(value)` of a record, with the fields named in `replaced` given as is
    (already redacted): only the other fields are converted."""
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    data: Data = {_TAG: kind.__name__}
    for name in names:
        data[name] = replaced[name] if name in replaced else to_data(getattr(value, name))
    return data


# --- the entry points ---------------------------------------------------------------------

_ENCOUNTER_FIELDS = tuple(f.name for f in dataclasses.fields(Encounter))


def state_view(state: Encounter, audience: Audience) -> Data:
    """The whole encounter as plain data, as `audience` may see it (a snapshot)."""
    if audience.sees_everything:
        data: Data = to_data(state)
        data["dice"] = HIDDEN
        return data
    combatant = views_of(state.ruleset).combatant
    data = {_TAG: "Encounter"}
    for name in _ENCOUNTER_FIELDS:
        value = getattr(state, name)
        if name == "combatants":
            data[name] = {cid: combatant(c, audience) for cid, c in value.items()}
        elif name == "dice":
            data[name] = HIDDEN
        elif name == "declarations":
            secret = declarations_secret(state)
            data[name] = declarations_view(value, secret, lambda cid: side_of(state, cid), audience)
        elif name == "window":
            data[name] = window_view(value, state, audience)
        elif name == "turn_order":
            data[name] = [slot_view(slot, state, audience) for slot in value]
        else:
            data[name] = to_data(value)
    return data


def event_view(event: Any, state_after: Encounter, audience: Audience) -> Data:
    """One event as plain data, as `audience` may see it. Never None: an event is
    redacted, never dropped (sequence numbers stay gap-free).

    `state_after` is the state right after the event (it says who is on which side and
    whether the planning window is still open).
    """
    if audience.sees_everything:
        if isinstance(event, Rewound):
            return _rewound_view(event, state_after, audience)
        data: Data = to_data(event)
        return data
    redact = _redactor(state_after.ruleset, type(event))
    if redact is None:
        data = to_data(event)
        return data
    return redact(event, state_after, audience)


def event_views(
    event: Any, state_after: Encounter, audiences: Iterable[Audience]
) -> dict[tuple[str, ...], Data]:
    """The views of one event for many audiences, built once per `Audience.key`.

    An event no rule redacts is converted once and the same dict goes to every key.
    """
    views: dict[tuple[str, ...], Data] = {}
    plain: Data | None = None
    redact: EventView | None = None
    looked_up = False
    for audience in audiences:
        key = audience.key
        if key in views:
            continue
        if not audience.sees_everything and not looked_up:
            redact = _redactor(state_after.ruleset, type(event))
            looked_up = True
        if audience.sees_everything and isinstance(event, Rewound):
            views[key] = _rewound_view(event, state_after, audience)
        elif audience.sees_everything or redact is None:
            if plain is None:
                plain = to_data(event)
            views[key] = plain
        else:
            views[key] = redact(event, state_after, audience)
    return views


def _rewound_view(event: Rewound, state_after: Encounter, audience: Audience) -> Data:
    """A rewind carries a whole state: redacted as a snapshot is."""
    return record_view(event, state=state_view(event.state, audience))


_REFUSED = re.compile(r"([a-z_]+): ")


def _action_lost_view(event: ActionLost, state_after: Encounter, audience: Audience) -> Data:
    """Why a declared action was lost. Its own side reads the whole refusal; another
    side reads only its code: a refusal's message may hold the actor's numbers ("bea
    has 3 MP for a share of 5", R77). A reason that is no refusal is the table's."""
    found = _REFUSED.match(event.reason)
    if found is None or audience.knows(side_of(state_after, event.actor)):
        data: Data = to_data(event)
        return data
    return record_view(event, reason=found.group(1))


COMMON_EVENTS[Rewound] = _rewound_view
COMMON_EVENTS[ActionLost] = _action_lost_view
COMMON_EVENTS[InitiativeRolled] = _initiative_rolled_view
# V27, TR40: a save that ends a condition is its roller's roll; the DC is the table's.
COMMON_EVENTS[ConditionSaveRolled] = Owned({"roll": ("combatant",)}, public=("dc",))
