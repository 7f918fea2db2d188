"""A Tael combatant: its sheet plus everything a fight changes about it."""

from __future__ import annotations

from enum import StrEnum

from server.engine.grid import Cell
from server.engine.records import evolve, record
from server.engine.rulesets.tael.sheet import TaelSheet

ORIGIN = Cell(0, 0)
FIRST_WILLPOWER_DC = 5  # T8: "The initial Willpower DC is 5"


class Preparation(StrEnum):
    """Where a combatant stands with its one preparation (T2)."""

    NONE = "none"  # not in a Preparation Phase, or none in this one (Brace, fainting)
    OPEN = "open"  # in its Preparation Phase, its preparation still unused
    USED = "used"  # it triggered this Preparation Phase


@record
class TurnUse:
    """What the current turn has used (T2, T5, T9), reset when the turn starts.

    `actions`: the kinds of the Actions spent (`sheet.ActionKind`); `bonus`: Bonus
    Actions spent of the turn's own; `moved`: tiles walked; `movement_factor`: x1,
    Dash x2, Sprint x4, 0 after a Sprint last turn; `off_hand`: the weapon an off-hand
    bonus attack may use now (a one-handed Attack Action gains that Bonus Action, T5;
    it is not one of `bonus`, TR8); `punched`: an Action was used as a
    Punch, so a Punch may follow as a Bonus Action; `punch_hits`: whom that Punch hit
    (its follow-up hits them automatically, T9); `lost`: the turn was lost to fainting
    or a status, so no Preparation Phase follows it.
    """

    actions: tuple[str, ...] = ()
    bonus: int = 0
    moved: int = 0
    movement_factor: int = 1
    off_hand: str = ""
    punched: bool = False
    punch_hits: tuple[str, ...] = ()
    lost: bool = False  # the turn was lost (fainted, or a status): no Preparation after it

    @property
    def fresh(self) -> bool:
        """Nothing used yet: the beginning of the turn, when a stance may change (T7)."""
        return not self.actions and not self.bonus and not self.moved


FRESH_TURN = TurnUse()


@record
class TaelStatus:
    """A status effect on a combatant (T6) and how many of its turns it still lasts."""

    name: str
    turns: int
    damage: str = ""
    skips_turn: bool = False
    source: str = ""  # who laid it
    # Laid during its target's own turn (the GM's, TR38): that turn, already under way,
    # is not one of its `turns`; the count starts with the target's next turn.
    from_next_turn: bool = False


@record
class TaelCombatant:
    id: str
    side: str
    sheet: TaelSheet
    hit_points: int
    position: Cell = ORIGIN
    facing: int = 0  # kept for the map's clients; no Tael rule reads it
    stance: str = "tanking"
    main_hand: str = ""
    off_hand: str = ""
    dropped: tuple[str, ...] = ()  # weapons on the ground where it dropped them (T9)
    statuses: tuple[TaelStatus, ...] = ()
    turn: TurnUse = FRESH_TURN
    braced: bool = False  # T9 Brace: incoming damage halved until its next turn
    winded: bool = False  # T9 Sprint: its movement is 0 next turn
    hidden: bool = False  # T9 Hide (the GM judges whether it worked)
    surrendered: bool = False  # T9 Surrender
    fainted: bool = False  # T8
    dead: bool = False
    willpower_dc: int = FIRST_WILLPOWER_DC
    willpower_failures: int = 0  # failed Willpower checks in a row (T8: two kill)
    preparation: str = Preparation.NONE
    prepared: str = ""  # the move announced (T2: fixed once announced; hidden until used)

    @classmethod
    def from_sheet(
        cls,
        combatant_id: str,
        side: str,
        sheet: TaelSheet,
        position: Cell = ORIGIN,
        facing: int = 0,
        **kw: object,
    ) -> TaelCombatant:
        """A combatant as the sheet describes it: full hit points, its weapons in hand,
        its stance. The same call as `VerseCombatant.from_sheet`, so an encounter file
        builds either kind of combatant the same way."""
        return cls(
            id=combatant_id,
            side=side,
            sheet=sheet,
            hit_points=sheet.hit_points,
            position=position,
            facing=facing,
            stance=sheet.stance,
            main_hand=sheet.main_hand,
            off_hand=sheet.off_hand,
            **kw,  # type: ignore[arg-type]
        )

    @property
    def active(self) -> bool:
        """Able to act: neither dead nor fainted (T8)."""
        return not self.dead and not self.fainted

    @property
    def alive(self) -> bool:
        return not self.dead

    @property
    def down(self) -> bool:
        """Out of the fight for T10: dead, fainted or surrendered."""
        return self.dead or self.fainted or self.surrendered

    @property
    def hands(self) -> tuple[str, ...]:
        """The weapons (and shields) in its hands, main hand first."""
        return tuple(h for h in (self.main_hand, self.off_hand) if h)

    def status(self, name: str) -> TaelStatus | None:
        for status in self.statuses:
            if status.name == name:
                return status
        return None

    @property
    def loses_turn(self) -> bool:
        """A status that makes it lose its turns (T6: e.g. a stun)."""
        return any(s.skips_turn for s in self.statuses)

    def with_turn(self, **changes: object) -> TaelCombatant:
        return evolve(self, turn=evolve(self.turn, **changes))
