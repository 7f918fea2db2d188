"""The end of the fight (R70 in docs/rules.md).

The Verse text has no rule for when combat ends: nothing stops a round from opening
after the last foe falls. So the GM ends it (`EndCombat`, shared with World of Tael),
at any time during combat, open window or not: a fight may also end in a parley or a
flight, which only the table can judge. The event names, for the record, the sides
with nobody left able to act (`defeated`) and those whose members are all dead
(`fallen`), and whether everyone agreed to stop (`agreed`, said by the GM); what the
end leaves behind is shared (`commands.apply_combat_ended`).
"""

from __future__ import annotations

from server.engine.commands import CombatEnded, EndCombat, check_agreed
from server.engine.core import Event
from server.engine.dice import DiceCup
from server.engine.errors import WRONG_PHASE, CommandRefused
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.ruleset import VERSE
from server.engine.state import Encounter, Phase


@VERSE.decides(EndCombat)
def decide_end_combat(state: Encounter, command: EndCombat, cup: DiceCup) -> list[Event]:
    agreed = check_agreed(command)
    if state.phase != Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, "combat is not running")
    sides: dict[str, list[VerseCombatant]] = {}
    for cid in sorted(state.combatants):
        c: VerseCombatant = state.combatants[cid]
        sides.setdefault(c.side, []).append(c)
    defeated = tuple(s for s, members in sides.items() if not any(c.active for c in members))
    fallen = tuple(s for s in defeated if not any(c.alive for c in sides[s]))
    return [CombatEnded(defeated, fallen, agreed)]
