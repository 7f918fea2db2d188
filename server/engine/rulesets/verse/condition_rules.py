"""What a Verse conditions table may say, and the look-ups the rules use (V27).

The words (`effects.Vocabulary`):

* roll bonuses (`add` only), named in the roll: `attack` (every attack roll), and one
  kind of attack: `attack.melee`, `attack.natural`, `attack.ranged`, `attack.thrown`,
  `attack.spell`; `save` (every save: the Dexterity saves of Dodge, Block and a rider
  thrown from its ride, the concentration check, a save that ends a condition) or one
  ability's: `save.dexterity`, `save.constitution`, ...; `perception` (the observer's
  roll of a Stealth Check);
* numbers (any mode), named beside the number in the event that uses it:
  `defence.pd` (Physical Dodge, after the stance), `defence.sd` (Spell Dodge),
  `resistance.pr`, `resistance.sr`, `speed` (the fight's environment's speed, before
  Defensive Stance halves it), `sight` (the visual range: field of view, awareness of
  an attack, a spell's V15 penalty);
* `loses`: `standard`, `move`, `swift` (that action cannot be taken: a Full Round
  Action needs standard and move), `reactions` (not asked in any window: no Defensive
  Action, Counter, Quick Response, attack of opportunity or holder's answer);
* `drain`: an ability, `damage` and `drain` are dealt at the end of each round;
* a save: `d20 + ability` at the end of each round, meeting the DC ends it;
* `rounds` / `turns`: how long it lasts when laid without a duration (R21's "until
  removed" conditions: Bleed, Prone, Exhausted, Armour Fragile).
"""

from __future__ import annotations

from collections.abc import Iterable

from server.engine.effects import (
    ConditionRule,
    Modifiers,
    Rules,
    Vocabulary,
    changed_value,
    losing,
    register_vocabulary,
    roll_bonuses,
    rule_named,
)
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.sheet import ActionType

ABILITIES = ("strength", "dexterity", "constitution", "sanity", "intellect", "empathy")
ATTACK_KINDS = ("melee", "natural", "ranged", "thrown", "spell")
STANDARD = "standard"
MOVE = "move"
SWIFT = "swift"
REACTIONS = "reactions"

VERSE_WORDS = register_vocabulary(
    Vocabulary(
        ruleset="verse",
        label="Verse",
        roll_keys=(
            "attack",
            *(f"attack.{kind}" for kind in ATTACK_KINDS),
            "save",
            *(f"save.{ability}" for ability in ABILITIES),
            "perception",
        ),
        value_keys=(
            "defence.pd",
            "defence.sd",
            "resistance.pr",
            "resistance.sr",
            "speed",
            "sight",
        ),
        losses=(STANDARD, MOVE, SWIFT, REACTIONS),
        drains=ABILITIES,
        save_abilities=ABILITIES,
        durations=True,
        damage="at the end of each round",
    )
)

# The actions a lost one stands for (V17: a Full Round Action uses Standard and Move).
_LOST_BY: dict[str, tuple[str, ...]] = {
    ActionType.STANDARD: (STANDARD,),
    ActionType.MOVE: (MOVE,),
    ActionType.SWIFT: (SWIFT,),
    ActionType.FULL_ROUND: (STANDARD, MOVE),
}


def names_of(c: VerseCombatant) -> Iterable[str]:
    return (condition.name for condition in c.conditions)


def bonuses(rules: Rules, c: VerseCombatant, *keys: str) -> Modifiers:
    """The conditions' bonuses to a roll of `c` (V27), named for its breakdown."""
    if not rules or not c.conditions:
        return ()
    return roll_bonuses(rules, names_of(c), keys)


def attack_bonuses(rules: Rules, c: VerseCombatant, kind: str) -> Modifiers:
    return bonuses(rules, c, "attack", f"attack.{kind}")


def save_bonuses(rules: Rules, c: VerseCombatant, ability: str) -> Modifiers:
    return bonuses(rules, c, "save", f"save.{ability}")


def changed(rules: Rules, c: VerseCombatant, key: str, base: int) -> tuple[int, Modifiers]:
    """A number of `c` after its conditions' changes (V27), and what changed it."""
    if not rules or not c.conditions:
        return base, ()
    return changed_value(rules, names_of(c), (key,), base)


def lost_action(rules: Rules, c: VerseCombatant, action: str) -> tuple[str, str]:
    """The condition that keeps `c` from an action of type `action` and the action it
    takes away (`standard`, `move`, `swift`), or ("", "")."""
    if not rules or not c.conditions:
        return "", ""
    for what in _LOST_BY.get(action, ()):
        name = losing(rules, names_of(c), what)
        if name:
            return name, what
    return "", ""


def reacts(rules: Rules, c: VerseCombatant) -> bool:
    """May `c` be asked in a window (no condition of its loses its reactions)?"""
    return not losing_reactions(rules, c)


def losing_reactions(rules: Rules, c: VerseCombatant) -> str:
    """The condition that takes `c`'s reactions away, or ""."""
    if not rules or not c.conditions:
        return ""
    return losing(rules, names_of(c), REACTIONS)


def rule_of(rules: Rules, name: str) -> ConditionRule | None:
    return rule_named(rules, name) if rules else None
