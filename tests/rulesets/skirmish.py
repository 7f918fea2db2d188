"""Skirmish: a tiny rule system that exists only in the tests.

It proves that a ruleset added on the server later plays in the `combat` client with
no change to the client: importing this module registers it everywhere the server
looks a ruleset up, and nowhere else. Its rules, cited below by their heading:

* **SK1 Initiative.** When the GM starts the fight, every combatant rolls a d6; the
  highest goes first, equal rolls in id order.
* **SK2 Turns.** Turns run in that order, round after round (the shared records of
  `server.engine.turns`). A turn lasts until its combatant (or the GM) ends it.
* **SK3 Strike.** On its turn a combatant may strike once: a foe standing in a cell
  next to its own loses a d6 of hit points.
* **SK4 Out.** A combatant at 0 hit points is out of the fight: it takes no turns and
  cannot be struck.
* **SK5 The end.** The fight ends by itself as soon as only one side has someone
  standing; the GM may end it sooner only as everyone agreed (`EndCombat(agreed)`).
* **SK6 What the table sees.** A combatant's own side sees its hit points; every other
  side (and a spectator) sees only a health word: unhurt, wounded (above half),
  bloodied (half or less), down (0). A strike's roll is its striker's (R77, as in
  every ruleset: the room's `roll_visibility` says what another side sees of it).

The parts, each registered on the server's own registry: the engine (`SKIRMISH`), the
encounter reader's sheet kind (`SHEET_KINDS`: a sheet is a name and hit points), the
views (`register_views`), the cards (`register_cards`), the strike's roll card
(`log.cards_of`), the narration (`narration.TELLINGS`) and the choices
(`register_choices`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from server.encounters import SHEET_KINDS, SheetKind
from server.engine.commands import CombatEnded, EndCombat, apply_combat_ended, check_agreed
from server.engine.core import COMMON, Command, Event, Ruleset, register_ruleset
from server.engine.dice import DiceCup, Roll
from server.engine.errors import (
    ACTION_USED,
    INCAPACITATED,
    INVALID_COMMAND,
    NOT_YOUR_TURN,
    OUT_OF_REACH,
    TARGET_DOWN,
    UNKNOWN_COMBATANT,
    WRONG_PHASE,
    CommandRefused,
)
from server.engine.flow import Mode
from server.engine.grid import Cell
from server.engine.records import evolve, record, to_data
from server.engine.stack import Run
from server.engine.state import Encounter, Phase, TurnSlot, not_fighting
from server.engine.turns import (
    EndTurn,
    InitiativeRoll,
    InitiativeRolled,
    RoundEnded,
    RoundStarted,
    StartCombat,
    TurnEnded,
    TurnStarted,
)
from server.engine.views import (
    SPECTATORS,
    Audience,
    Data,
    Views,
    record_view,
    register_views,
    roll_view,
    side_of,
    views_of,
)
from server.sheets import Problem, SheetError
from server.table.cards import cell, meter, register_cards, text, word
from server.table.choices import (
    Candidate,
    Offer,
    Option,
    Probe,
    fixed,
    others,
    register_choices,
    seat,
)
from server.table.log import card, cards_of
from server.table.narration import TELLINGS
from server.table.telling import Names, Story, Telling, describe_roll

NAME = "skirmish"
SKIRMISH = register_ruleset(Ruleset(NAME, COMMON))
STRIKE_DICE = "1d6"  # SK3
INITIATIVE_DICE = "1d6"  # SK1
MOST_HIT_POINTS = 1000  # a sheet's bound

# --- the records -----------------------------------------------------------------------


@record
class Skirmisher:
    """One combatant: who, on which side, where, and its hit points (SK4: out at 0)."""

    id: str
    side: str
    name: str
    hit_points: int
    most_hit_points: int
    position: Cell = Cell(0, 0)
    struck: bool = False  # SK3: it has struck this turn

    @property
    def active(self) -> bool:
        """Still in the fight (SK4)."""
        return self.hit_points > 0

    @classmethod
    def from_sheet(
        cls, combatant_id: str, side: str, sheet: Sheet, position: Cell, facing: int = 0
    ) -> Skirmisher:
        """A fresh combatant as an encounter file places it (no rule reads a facing)."""
        return cls(combatant_id, side, sheet.name, sheet.hit_points, sheet.hit_points, position)


@record
class Strike(Command):
    """SK3: `actor` strikes `target`, a foe next to it, on its turn."""

    actor: str
    target: str


@record
class Struck(Event):
    """SK3: the strike's d6 and the hit points the target has left."""

    attacker: str
    target: str
    roll: Roll
    hit_points: int

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)


@record
class SkirmishWon(Event):
    """SK5: only `side` has someone standing; the sides in `beaten` are all out."""

    side: str
    beaten: tuple[str, ...]


# --- sheets (the encounter reader's sheet kind) -----------------------------------------


class Sheet:
    """A skirmish sheet: a name and hit points."""

    __slots__ = ("hit_points", "name")

    def __init__(self, name: str, hit_points: int) -> None:
        self.name = name
        self.hit_points = hit_points


def sheet_from_data(data: Any, source: str) -> Sheet:
    """The sheet `data` describes, or `SheetError` naming every problem."""
    if not isinstance(data, dict):
        raise SheetError(source, [Problem("", "a sheet is a table with a name and hit_points")])
    problems = [
        Problem(key, "not a field of a skirmish sheet")
        for key in data
        if key not in ("name", "hit_points")
    ]
    name, hit_points = data.get("name"), data.get("hit_points")
    if not isinstance(name, str) or not name.strip() or len(name) > 60:
        problems.append(Problem("name", "a name of 1 to 60 characters"))
    if type(hit_points) is not int or not 1 <= hit_points <= MOST_HIT_POINTS:
        problems.append(Problem("hit_points", f"a whole number from 1 to {MOST_HIT_POINTS}"))
    if problems:
        raise SheetError(source, problems)
    assert isinstance(name, str) and isinstance(hit_points, int)
    return Sheet(name, hit_points)


SHEET_KINDS[NAME] = SheetKind(sheet_from_data, Skirmisher.from_sheet, (Mode.TURN_BASED,))


# --- the engine -----------------------------------------------------------------------


def combatant(state: Encounter, combatant_id: str) -> Skirmisher:
    found: Skirmisher | None = state.combatants.get(combatant_id)
    if found is None:
        raise CommandRefused(UNKNOWN_COMBATANT, f"no combatant {combatant_id!r} in this encounter")
    return found


def standing_sides(state: Encounter) -> list[str]:
    """The sides that still have someone in the fight (SK4), sorted."""
    return sorted({c.side for c in state.combatants.values() if c.active})


def play_on(run: Run) -> None:
    """SK2: the next turn of someone still standing, into the next round if need be."""
    for _ in range(2):
        state = run.state
        for index in range(state.turn + 1, len(state.turn_order)):
            cid = state.turn_order[index].combatant
            if state.combatants[cid].active:
                run.emit(TurnStarted(cid, index))
                return
        run.emit(RoundEnded(state.round), RoundStarted(state.round + 1))


@SKIRMISH.decides(StartCombat)
def decide_start(state: Encounter, command: StartCombat, cup: DiceCup) -> list[Event]:
    """SK1: a d6 each, dealt in id order; the highest first, equal rolls in id order."""
    if state.phase != Phase.SETUP:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    made = tuple(InitiativeRoll(cid, cup.roll(INITIATIVE_DICE)) for cid in sorted(state.combatants))
    ranked = sorted(made, key=lambda r: (-r.roll.total, r.combatant))
    order = tuple(TurnSlot(r.combatant, r.roll.total, 0, index) for index, r in enumerate(ranked))
    run = Run(state, cup)
    run.emit(InitiativeRolled(made, (), order), RoundStarted(1))
    play_on(run)
    return run.decided()


@SKIRMISH.decides(EndTurn)
def decide_end_turn(state: Encounter, command: EndTurn, cup: DiceCup) -> list[Event]:
    """SK2: the combatant whose turn it is, or the GM (`actor` ""), ends it."""
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    current = state.current
    if command.actor:
        combatant(state, command.actor)
        if current != command.actor:
            raise CommandRefused(NOT_YOUR_TURN, f"it is not {command.actor}'s turn")
    run = Run(state, cup)
    if current is not None:
        run.emit(TurnEnded(current))
    play_on(run)
    return run.decided()


@SKIRMISH.decides(Strike)
def decide_strike(state: Encounter, command: Strike, cup: DiceCup) -> list[Event]:
    """SK3, SK4, SK5: every check first, then the d6; the fight ends with one side left."""
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    actor = combatant(state, command.actor)
    if state.current != actor.id:
        raise CommandRefused(NOT_YOUR_TURN, f"it is {state.current}'s turn, not {actor.id}'s")
    if not actor.active:
        raise CommandRefused(INCAPACITATED, f"{actor.id} is out of the fight")
    if actor.struck:
        raise CommandRefused(ACTION_USED, f"{actor.id} has struck this turn already")
    target = combatant(state, command.target)
    if target.side == actor.side:
        raise CommandRefused(INVALID_COMMAND, f"{target.id} is on {actor.id}'s side")
    if not target.active:
        raise CommandRefused(TARGET_DOWN, f"{target.id} is out of the fight")
    if target.position not in state.grid.neighbours(actor.position):
        raise CommandRefused(OUT_OF_REACH, f"{target.id} is not next to {actor.id}")
    roll = cup.roll(STRIKE_DICE)
    struck = Struck(actor.id, target.id, roll, max(0, target.hit_points - roll.total))
    events: list[Event] = [struck]
    if struck.hit_points == 0:
        after = apply_struck(state, struck)
        standing = standing_sides(after)
        if len(standing) == 1:
            beaten = sorted({c.side for c in state.combatants.values()} - set(standing))
            events.append(SkirmishWon(standing[0], tuple(beaten)))
    return events


@SKIRMISH.decides(EndCombat)
def decide_end_combat(state: Encounter, command: EndCombat, cup: DiceCup) -> list[Event]:
    """SK5: the fight ends by itself; the GM ends it sooner only as everyone agreed."""
    agreed = check_agreed(command)
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, not_fighting(state))
    if not agreed:
        raise CommandRefused(
            INVALID_COMMAND, "the fight ends by itself when one side is left; else end it as agreed"
        )
    return [CombatEnded((), (), agreed=True)]


@SKIRMISH.applies(InitiativeRolled)
def apply_initiative(state: Encounter, event: InitiativeRolled) -> Encounter:
    return evolve(state, turn_order=event.order, phase=Phase.COMBAT)


@SKIRMISH.applies(RoundStarted)
def apply_round_started(state: Encounter, event: RoundStarted) -> Encounter:
    return evolve(state, round=event.round, turn=-1)


@SKIRMISH.applies(RoundEnded)
def apply_round_ended(state: Encounter, event: RoundEnded) -> Encounter:
    return state


@SKIRMISH.applies(TurnStarted)
def apply_turn_started(state: Encounter, event: TurnStarted) -> Encounter:
    """SK3: a fresh turn, with its strike still to use."""
    c: Skirmisher = state.combatants[event.combatant]
    return evolve(state.with_combatant(evolve(c, struck=False)), turn=event.turn)


@SKIRMISH.applies(TurnEnded)
def apply_turn_ended(state: Encounter, event: TurnEnded) -> Encounter:
    return state


@SKIRMISH.applies(Struck)
def apply_struck(state: Encounter, event: Struck) -> Encounter:
    attacker: Skirmisher = state.combatants[event.attacker]
    state = state.with_combatant(evolve(attacker, struck=True))
    target: Skirmisher = state.combatants[event.target]
    return state.with_combatant(evolve(target, hit_points=event.hit_points))


@SKIRMISH.applies(SkirmishWon)
def apply_won(state: Encounter, event: SkirmishWon) -> Encounter:
    """SK5: what every ruleset's end leaves behind (`commands.apply_combat_ended`)."""
    ended: Encounter = apply_combat_ended(state, CombatEnded(event.beaten, event.beaten))
    return ended


# --- what each audience sees (SK6) ------------------------------------------------------

UNHURT, WOUNDED, BLOODIED, DOWN = "unhurt", "wounded", "bloodied", "down"
PUBLIC = ("id", "side", "name", "position", "struck")
"""What every side sees of a combatant; `hit_points` and `most_hit_points` are its own
side's (SK6)."""


def health_word(hit_points: int, most: int) -> str:
    """SK6: the word another side sees instead of hit points."""
    if hit_points <= 0:
        return DOWN
    if hit_points >= most:
        return UNHURT
    return WOUNDED if 2 * hit_points > most else BLOODIED


def skirmisher_view(c: Skirmisher, audience: Audience) -> Data:
    """SK6: the whole record to its own side; to any other its public fields and a word."""
    if audience.knows(c.side):
        data: Data = to_data(c)
        return data
    seen: Data = {"$type": "Skirmisher"}
    for name in PUBLIC:
        seen[name] = to_data(getattr(c, name))
    seen["health_state"] = health_word(c.hit_points, c.most_hit_points)
    return seen


SKIRMISH_VIEWS = register_views(Views(NAME, skirmisher_view))


@SKIRMISH_VIEWS.redacts(Struck)
def struck_view(event: Struck, state: Encounter, audience: Audience) -> Data:
    """The roll as the striker's (R77); the target's hit points as a word to another
    side than the target's (SK6)."""
    data = record_view(event, roll=roll_view(event.roll, state, audience, event.attacker))
    if not audience.knows(side_of(state, event.target)):
        target: Skirmisher | None = state.combatants.get(event.target)
        most = target.most_hit_points if target is not None else 1
        del data["hit_points"]
        data["health_state"] = health_word(event.hit_points, most)
    return data


# --- the table: cards, roll cards, narration --------------------------------------------


def skirmish_card(data: Data, audience: Audience) -> Data:
    """A combatant's `Card` from its redacted data: hit points where the data has them."""
    health = meter(data.get("hit_points"), data.get("most_hit_points"))
    said = data.get("health_state")
    if not isinstance(said, str):
        said = health_word(health["now"], health["max"]) if health is not None else ""
    return {
        "id": data["id"],
        "name": text(str(data.get("name", ""))),
        "side": word(str(data.get("side", ""))),
        "position": cell(data.get("position")),
        "active": said != DOWN,
        "health": health,
        "health_word": word(said),
        "notes": ["struck this turn"] if data.get("struck") else [],
    }


register_cards(NAME, skirmish_card)


def _out(event: Data) -> bool:
    return event.get("hit_points") == 0 or event.get("health_state") == DOWN


@cards_of("Struck")
def struck_cards(event: Data, names: Names) -> list[Data]:
    """SK3: the strike's d6, by the striker; "out" when it put the target out (SK4)."""
    return [card(event["roll"], "strike", event["attacker"], None, "out" if _out(event) else "")]


def tell_struck(event: Data, story: Story) -> str:
    """`Ayla strikes Goblin: d6 4 = 4; Goblin is bloodied` (its hit points to its own
    side); `...; Wolf is out of the fight` at 0 (SK4)."""
    target = story.names(event["target"])
    if _out(event):
        left = f"{target} is out of the fight"
    elif "hit_points" in event:
        points = event["hit_points"]
        left = f"{target} has {points} hit point{'' if points == 1 else 's'} left"
    else:
        left = f"{target} is {event.get('health_state', 'hit')}"
    striker = story.names(event["attacker"])
    return f"{striker} strikes {target}: {describe_roll(event['roll'])}; {left}"


def tell_won(event: Data, story: Story) -> str:
    beaten = ", ".join(event.get("beaten", ())) or "nobody"
    return f"The fight is over: only {event['side']} still stand (beaten: {beaten})"


def tell_strike(action: Data, story: Story) -> str:
    return f"strike {story.names(str(action.get('target')))}"


TELLINGS[NAME] = Telling(
    events={"Struck": tell_struck, "SkirmishWon": tell_won}, actions={"Strike": tell_strike}
)


# --- the choices ------------------------------------------------------------------------


def seen_name(probe: Probe, combatant_id: str) -> str:
    """`Goblin (g1)`: the name every side sees (the view of a spectator) and the id."""
    seen = views_of(NAME).combatant(probe.state.combatants[combatant_id], SPECTATORS)
    return f"{seen['name']} ({combatant_id})"


def skirmish_seat(probe: Probe, combatant_id: str) -> Data | None:
    """On its own turn (SK2): a strike at each combatant the engine lets it strike (SK3:
    the foes next to it still standing), and ending the turn."""
    state = probe.state
    if state.window is not None or state.current != combatant_id:
        return None
    targets = tuple(Option(cid, seen_name(probe, cid)) for cid in others(state, combatant_id))
    strike = Candidate(
        "strike", "Strike", partial(Strike, combatant_id), "target", "target", targets
    )
    options = Offer().choices(probe, [strike, fixed("end_turn", "End turn", EndTurn(combatant_id))])
    return seat(combatant_id, None, options)


register_choices(NAME, skirmish_seat)
