"""The end of combat (T10).

"Combat ends when every character in a group has either died, fainted or surrendered,
and everyone agrees to stop the fight. When all player characters faint or die during
combat, the campaign fails." The GM confirms the end (`EndCombat`, shared by every
ruleset, as is what `CombatEnded` leaves behind): it is refused while
every side still has someone standing, unless the GM says everyone agreed to stop the
fight (`EndCombat.agreed`, TR39): a truce or a parley ends a fight no side has lost,
and the log says it ended by agreement (`CombatEnded.agreed`). The event names the
sides that are out (`defeated`: every member dead, fainted or surrendered) and those
of them that fell (`fallen`: every member dead or fainted; for the players' side, a
lost fight).
"""

from __future__ import annotations

from server.engine.commands import CombatEnded, EndCombat, check_agreed
from server.engine.core import Event
from server.engine.dice import DiceCup
from server.engine.errors import WINDOW_OPEN, WRONG_PHASE, CommandRefused
from server.engine.rulesets.tael.combatant import TaelCombatant
from server.engine.rulesets.tael.errors import COMBAT_NOT_OVER
from server.engine.rulesets.tael.ruleset import TAEL
from server.engine.state import Encounter, Phase


def sides(state: Encounter) -> dict[str, list[TaelCombatant]]:
    found: dict[str, list[TaelCombatant]] = {}
    for cid in sorted(state.combatants):
        c: TaelCombatant = state.combatants[cid]
        found.setdefault(c.side, []).append(c)
    return found


def defeated_sides(state: Encounter) -> tuple[str, ...]:
    """The sides whose every member is dead, fainted or surrendered."""
    return tuple(side for side, members in sides(state).items() if all(c.down for c in members))


@TAEL.decides(EndCombat)
def decide_end_combat(state: Encounter, command: EndCombat, cup: DiceCup) -> list[Event]:
    agreed = check_agreed(command)
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, "combat is not running")
    if state.window is not None:
        raise CommandRefused(WINDOW_OPEN, f"window {state.window.id} is waiting for answers")
    defeated = defeated_sides(state)
    if not defeated and not agreed:
        raise CommandRefused(
            COMBAT_NOT_OVER,
            "every side still has someone standing who has not surrendered; if everyone "
            "agrees to stop, end it as agreed (T10)",
        )
    members = sides(state)
    fallen = tuple(s for s in defeated if all(c.dead or c.fainted for c in members[s]))
    return [CombatEnded(defeated, fallen, agreed)]
