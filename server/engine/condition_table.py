"""The conditions table in play (Verse V27, World of Tael TR40), for every ruleset.

The table itself and how an entry changes numbers are `effects.py`'s; what each
ruleset's rules do with it is in `rulesets/verse/condition_rules.py` and
`rulesets/tael/condition_rules.py`. Here are the records both rulesets share, known on
the wire by name:

* `ConditionSaveRolled`: the save an entry gives (`save = { ability, dc }`), rolled
  when the ruleset's upkeep comes round (Verse: at the end of each round; Tael: at the
  start of the bearer's turn); meeting the DC ends the condition (the ruleset's own
  event follows: Verse `ConditionLost`, Tael `StatusEnded`).
"""

from __future__ import annotations

from server.engine.core import COMMON, Event
from server.engine.dice import Roll
from server.engine.records import record
from server.engine.state import Encounter


@record
class ConditionSaveRolled(Event):
    """`combatant` rolls the save its `condition`'s entry gives: `roll` (d20 + the
    ability, and its conditions' save bonuses) against `dc`; a success ends it."""

    combatant: str
    condition: str
    roll: Roll
    dc: int
    success: bool

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)

    def describe(self) -> str:
        result = "ends it" if self.success else "fails"
        return f"{self.condition} save: {self.roll.describe()} vs DC {self.dc}: {result}"


@COMMON.applies(ConditionSaveRolled)
def apply_condition_save_rolled(state: Encounter, event: ConditionSaveRolled) -> Encounter:
    return state  # the ruleset's own event that follows a success ends the condition
