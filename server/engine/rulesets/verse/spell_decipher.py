"""Learning a spell from a magical text ("Deciphering Spells", Verse V13).

The text asks for a "Spell Craft Check" against `Decipher DC = 10 + rarity score`.
Our sheets carry no Spell Craft skill, so the check is `d20 + Intellect` (the ability
of learning); like every Verse check it succeeds when it meets the DC. On success the
spell joins the character's spell list - even above its access level: it may know
the spell but cannot cast it until it gains that level (V14, spells.py).

The text places deciphering outside the fight (coming across a spell book), so it is
refused while combat rounds run; a failed attempt may be tried again, as the text
sets no limit.

The command carries the whole `Spell` record from the client, which no sheet file
check has seen: a spell that breaks the sheet rules (`spell_costs.spell_problems`:
unknown access level or rarity, Spell Dice its minimum cost does not pay for, ...)
is refused (`invalid_command`) before any roll.
"""

from __future__ import annotations

from server.engine.core import Command, Event
from server.engine.dice import DiceCup, Roll
from server.engine.errors import INVALID_COMMAND, WRONG_PHASE, CommandRefused
from server.engine.records import evolve, record
from server.engine.rulesets.verse.combatant import VerseCombatant
from server.engine.rulesets.verse.ruleset import VERSE, combatant
from server.engine.rulesets.verse.sheet import Spell
from server.engine.rulesets.verse.spell_costs import decipher_dc, spell_problems
from server.engine.state import Encounter, Phase


@record
class DecipherSpell(Command):
    """`actor` studies a text holding `spell`."""

    actor: str
    spell: Spell


@record
class SpellDeciphered(Event):
    combatant: str
    spell: Spell
    roll: Roll
    dc: int
    success: bool

    def rolls(self) -> tuple[Roll, ...]:
        return (self.roll,)

    def describe(self) -> str:
        result = "learnt" if self.success else "not learnt"
        return f"{self.spell.name}: {self.roll.describe()} vs DC {self.dc}: {result}"


@VERSE.decides(DecipherSpell)
def decide_decipher(state: Encounter, command: DecipherSpell, cup: DiceCup) -> list[Event]:
    if state.phase == Phase.COMBAT:
        raise CommandRefused(WRONG_PHASE, "spells are deciphered outside combat")
    reader = combatant(state, command.actor)
    if not isinstance(command.spell, Spell):
        raise CommandRefused(INVALID_COMMAND, "DecipherSpell carries a spell record")
    problems = spell_problems(command.spell)
    if problems:
        found = "; ".join(f"{path}: {reason}" for path, reason in problems)
        raise CommandRefused(INVALID_COMMAND, f"not a valid spell: {found}")
    if reader.sheet.spell(command.spell.name) is not None:
        raise CommandRefused(INVALID_COMMAND, f"{reader.id} already knows {command.spell.name}")
    dc = decipher_dc(command.spell.rarity)
    roll = cup.d20((("Intellect", reader.abilities.intellect),))
    return [SpellDeciphered(reader.id, command.spell, roll, dc, roll.total >= dc)]


@VERSE.applies(SpellDeciphered)
def apply_deciphered(state: Encounter, event: SpellDeciphered) -> Encounter:
    c: VerseCombatant = state.combatants[event.combatant]
    if not event.success or c.sheet.spell(event.spell.name) is not None:
        return state
    sheet = evolve(c.sheet, spells=(*c.sheet.spells, event.spell))
    return state.with_combatant(evolve(c, sheet=sheet))
