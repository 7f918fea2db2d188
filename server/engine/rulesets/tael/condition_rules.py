"""What a World of Tael conditions table may say about statuses (TR40).

The Tael text leaves every status to its spell (TR14: a sheet's status says how many
of its target's turns it lasts, its damage at the start of each and whether it takes
them). An entry of the encounter's conditions table adds to a status of its name
whatever it says, whoever laid it (a spell, the GM); the status's own effects stay.

The words (`effects.Vocabulary`):

* roll bonuses (`add` only), named in the roll: `attack` (every hit check), or one
  kind: `attack.melee` (a melee weapon, a Punch, a prepared strike with one),
  `attack.ranged`, `attack.spell`; `save` (every resist check of T6, the Willpower
  check of T8 and a save that ends a status), `save.willpower`, or `save.<attribute>`
  (a resist check in that attribute, or a save that ends a status in it);
* numbers (any mode), named in the breakdown: `defence.dv` (the Defensive Value, after
  the stance and the prepared moves), `speed` (Movement Speed, before Dash and Sprint);
* `loses`: `turn` (its turns are lost, as a status that `skips_turn`), `action` (no
  Action: attacks, spells, generic actions), `bonus` (no Bonus Action), `preparation`
  (no Preparation Phase: nothing announced, no window asks it);
* `damage`: dealt at the start of each of its turns, as a status's own (TR14); a save:
  `d20 + the attribute's modifier` (or Willpower) at the start of each of its turns,
  after that damage, meeting the DC ends the status before the turn is played;
* no durations and no ability damage: a status has its turns, and Tael no drain.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.engine.effects import (
    Modifiers,
    Rules,
    Vocabulary,
    changed_value,
    losing,
    register_vocabulary,
    roll_bonuses,
)
from server.engine.rulesets.tael.combatant import TaelCombatant

TURN = "turn"
ACTION = "action"
BONUS = "bonus"
PREPARATION = "preparation"
WILLPOWER = "willpower"

TAEL_WORDS = register_vocabulary(
    Vocabulary(
        ruleset="tael",
        label="World of Tael",
        roll_keys=(
            "attack",
            "attack.melee",
            "attack.ranged",
            "attack.spell",
            "save",
            f"save.{WILLPOWER}",
        ),
        roll_prefixes=("save.",),
        value_keys=("defence.dv", "speed"),
        losses=(TURN, ACTION, BONUS, PREPARATION),
        drains=(),
        save_abilities=None,
        durations=False,
        damage="at the start of each of its turns",
    )
)


def names_of(c: TaelCombatant) -> Iterable[str]:
    return (status.name for status in c.statuses)


def bonuses(rules: Rules, c: TaelCombatant, *keys: str) -> Modifiers:
    """The statuses' bonuses to a roll of `c` (TR40), named for its breakdown."""
    if not rules or not c.statuses:
        return ()
    return roll_bonuses(rules, names_of(c), keys)


def changed(rules: Rules, c: TaelCombatant, key: str, base: int) -> tuple[int, Modifiers]:
    """A number of `c` after its statuses' changes (TR40), and what changed it."""
    if not rules or not c.statuses:
        return base, ()
    return changed_value(rules, names_of(c), (key,), base)


def lost(rules: Rules, c: TaelCombatant, what: str, only: str = "") -> str:
    """The status that takes `what` (`turn`, `action`, ...) from `c`, or "" (`only`:
    asking about that one status alone)."""
    if not rules or not c.statuses:
        return ""
    return losing(rules, (only,) if only else names_of(c), what)
