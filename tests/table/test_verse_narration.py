"""Verse events as the table reads them: the ones a game night saw as raw fields, spell
damage with its dice, a fast combatant's turns in the reveal, the GM's health override.

Each event is the engine's own record turned into wire data (`to_data`), as a client
receives it, or as the server's views send it to a player of another side or a
spectator (R77: another side's rolls without their numbers), told as their log lines
are (`server.table.narration`)."""

from __future__ import annotations

from itertools import chain
from typing import Any

from server.engine import execute
from server.engine.commands import CombatEnded
from server.engine.condition_table import (
    ConditionRuleChanged,
    ConditionSaveRolled,
    ConditionWarded,
)
from server.engine.dice import DiceResult, Roll
from server.engine.effects import Change, ConditionRule, SaveEnds
from server.engine.flow import Declaration, Pending
from server.engine.records import evolve, to_data
from server.engine.rulesets.verse import live as verse_live
from server.engine.rulesets.verse.approval import ApprovalWithdrawn, FeatApproved
from server.engine.rulesets.verse.ascension import AscensionChanged, ChangeAscension
from server.engine.rulesets.verse.attacks import Attack, AttackRolled, ThrowChecked
from server.engine.rulesets.verse.conditions import (
    AbilityDamaged,
    ConditionGained,
    ItemBroken,
    WeaponDropped,
)
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.live import DeclarationMade, DeclarationsRevealed
from server.engine.rulesets.verse.live_actions import ItemUsed
from server.engine.rulesets.verse.overrides import CombatantRemoved, HealthSet
from server.engine.rulesets.verse.sheet import Spell
from server.engine.rulesets.verse.spell_decipher import SpellDeciphered
from server.engine.rulesets.verse.spell_mana import ManaPledged
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled
from server.engine.rulesets.verse.stances import StanceSet
from server.engine.state import Settings
from server.engine.views import SPECTATORS, event_view, player_audience
from server.table.narration import narrate
from server.table.verse_narration import VERSE_TELLING
from tests.engine.verse.builders import fighter, in_combat, sheet

NAMES = {"corvin": "Corvin", "orc": "Orc", "g1": "Goblin (g1)", "g2": "Goblin (g2)"}
NAMES |= {"ayla": "Ayla", "bram": "Bram"}


def names(combatant: str) -> str:
    return NAMES.get(combatant, combatant)


def said(event: Any, **story: Any) -> str:
    return narrate(to_data(event), names, "verse", **story)


def d20(face: int, *modifiers: tuple[str, int]) -> Roll:
    total = face + sum(value for _, value in modifiers)
    return Roll((DiceResult(20, (face,)),), modifiers, total)


def test_the_events_a_game_night_saw_as_raw_fields_read_as_sentences() -> None:
    assert said(WeaponDropped("corvin", "spear", "critical fail")) == (
        "Corvin drops the spear (critical fail)"
    )
    assert said(ItemBroken("orc", "armour", "durability 0")) == (
        "Orc's armour is Broken (durability 0)"
    )
    assert said(StanceSet("orc", "defensive", "none", "swift")) == (
        "Orc takes the defensive stance (swift action)"
    )
    assert said(StanceSet("orc", "defensive", "aggressive", "swift")) == (
        "Orc takes the defensive stance, leaving the aggressive stance (swift action)"
    )
    throw = ThrowChecked("g2", "dagger", d20(1, ("Strength", 2)), 1, False, "standard")
    assert said(throw) == (
        "Goblin (g2) throws the dagger: d20 1 + Strength 2 = 3 vs Throw DC 1: "
        "too heavy to throw that far"
    )


def test_a_throw_lost_constitution_a_death_and_a_condition_read_as_sentences() -> None:
    thrown = ThrowChecked("corvin", "dagger", d20(12, ("Strength", 3)), 10, True, "standard")
    assert said(thrown) == (
        "Corvin throws the dagger: d20 12 + Strength 3 = 15 vs Throw DC 10: thrown"
    )
    assert said(AbilityDamaged("corvin", "constitution", 2, None, "overdraw")) == (
        "Corvin takes 2 Constitution damage (overdraw)"
    )
    assert said(ConditionGained("corvin", "Dead", reason="health 0")) == "Corvin dies (health 0)"
    assert said(ConditionGained("corvin", "Shaken", rounds=1)) == "Corvin gains Shaken for 1 round"


def test_a_dodge_that_succeeds_says_the_attack_is_avoided() -> None:
    """V22: a successful Dodge avoids the attack entirely, and no other event follows
    to say so: "succeeds" alone left the table asking whether Ayla was hit."""
    dodged = DefenceRolled("ayla", "g1", "dodge", d20(20, ("Dexterity", 4)), 20, True)
    assert said(dodged) == (
        "Ayla tries to dodge: d20 20 + Dexterity 4 = 24 vs 20: succeeds: "
        "Goblin (g1)'s attack is avoided"
    )
    missed = DefenceRolled("ayla", "g1", "dodge", d20(3, ("Dexterity", 4)), 18, False)
    assert said(missed) == "Ayla tries to dodge: d20 3 + Dexterity 4 = 7 vs 18: fails"
    blocked = DefenceRolled("bram", "g2", "block", d20(19, ("Dexterity", 2)), 15, True, "staff")
    assert said(blocked) == (  # the damage goes to the staff: DamageBlocked says so next
        "Bram tries to block with the staff: d20 19 + Dexterity 2 = 21 vs 15: succeeds"
    )


def test_the_end_of_the_fight_reads_in_verse_as_in_tael() -> None:
    """`CombatEnded` names sides. One goblin dead and the other standing (or taken out
    of the fight) is no side beaten: it used to read "out of it: nobody", which a
    table reads as "nobody died"."""
    ended = CombatEnded(("goblins",), ("goblins",))
    assert said(ended) == (
        "The GM ends the fight: beaten, with nobody left able to fight: side goblins (all fallen)"
    )
    assert said(CombatEnded(("goblins", "wolves"), ("wolves",))) == (
        "The GM ends the fight: beaten, with nobody left able to fight: "
        "sides goblins, wolves (all fallen)"
    )
    assert narrate(to_data(CombatEnded((), ())), names, "verse") == (
        "The GM ends the fight: no side is beaten (each still has someone able to fight)"
    )


def test_spell_damage_shows_its_dice_as_weapon_damage_does() -> None:
    """The engine rolls a spell's damage once, on the attack (V1, V2): its line shows
    the breakdown; a damage event that carries a roll shows it too."""
    missile = Spell("Magic Missile", min_mc=2, uses_spell_die=True, base_spell_dice=1)
    mage = fighter("ayla", "pc", sheet_=sheet("Ayla", spells=(missile,), spell_attack_training=1))
    state = in_combat(mage, fighter("g1", "gm", x=3, sheet_=sheet("Goblin")), dice=(8, 3))
    _, events = execute(state, CastSpell("ayla", "Magic Missile", targets=("g1",)))
    attack = next(e for e in events if isinstance(e, SpellAttackRolled))
    assert said(attack) == (
        "Ayla casts Magic Missile: d20 8 + Sanity 2 + Spell Attack Training 1 = 11 vs "
        "Goblin (g1) SD 11: hit; damage d4 3 + Spell Attack Training 1 = 4"
    )
    rolled = DamageDealt("g1", "ayla", 4, "SR", 1, 3, 1, attack.damage)
    assert said(rolled) == (
        "Goblin (g1) takes d4 3 + Spell Attack Training 1 = 4; 4 damage vs SR 1: "
        "3 to health, 1 to armour"
    )


def test_a_fast_combatants_turns_read_by_number_and_a_pass_is_not_nothing() -> None:
    """V16: Corvin plays the turn-order slots 0 and 2. He declared only the first: the
    reveal says his second passed, not that he declared nothing."""
    turns = {"corvin": [0, 2], "g1": [1]}
    attack = {"$type": "Attack", "actor": "corvin", "target": "g1", "weapon": "spear"}
    revealed = to_data(
        DeclarationsRevealed((Declaration("corvin", 0, ()),), ("corvin", "ayla", "g1"))
    )
    revealed["declarations"][0]["actions"] = [attack]
    knows_turns = {"turns": lambda c: turns.get(c, [])}
    assert narrate(revealed, names, "verse", **knows_turns) == (
        "Declarations revealed:\n"
        "  Corvin, turn 1: attack Goblin (g1) with spear\n"
        "  declared nothing: Ayla, Goblin (g1)\n"
        "  passed a turn: Corvin (turn 2 not declared)"
    )
    assert narrate(revealed, names, "verse") == (  # the screen does not know the turns
        "Declarations revealed:\n"
        "  Corvin: attack Goblin (g1) with spear\n"
        "  declared nothing: Ayla, Goblin (g1)\n"
        "  passed a turn: Corvin"
    )
    both = to_data(
        DeclarationsRevealed((Declaration("corvin", 0, ()), Declaration("corvin", 2, ())), ())
    )
    both["declarations"][0]["actions"] = [attack]
    assert narrate(both, names, "verse", **knows_turns) == (
        "Declarations revealed:\n"
        "  Corvin, turn 1: attack Goblin (g1) with spear\n"
        "  Corvin, turn 2: nothing (passes)"
    )


def test_an_empty_declaration_reads_as_a_pass_to_those_who_may_see_it() -> None:
    empty = DeclarationMade("corvin", 2, ())
    turns = {"corvin": [0, 2]}.get
    assert said(empty, turns=turns, knows=lambda c: True) == (
        "Corvin declares nothing for turn 2: it passes"
    )
    assert said(empty, turns=turns) == "Corvin declares for turn 2 (hidden until revealed)"
    assert said(DeclarationMade("g1", 1, ())) == "Goblin (g1) declares (hidden until revealed)"


def test_a_health_override_to_0_says_it_is_not_dead() -> None:
    assert said(HealthSet("orc", 0, 12)) == (
        "The GM sets Orc's health to 0 (was 12): health 0 alone is not Dead "
        "(an override adds no condition)"
    )
    assert said(HealthSet("orc", 5, 12)) == "The GM sets Orc's health to 5 (was 12)"


def test_a_charged_spell_says_what_its_caster_must_do_each_round() -> None:
    """Game night 2: `Bram casts Magic Missile for 20 MC`, and nothing said the spell
    was only begun, that Bram had to charge it the next round (one Standard action a
    round, V12, docs/rules.md section 9) or lose it. The engine's own records, cast and
    charged, as the wire carries them."""
    missile = Spell("Magic Missile", min_mc=2, uses_spell_die=True, base_spell_dice=1)
    bram = fighter("bram", "pc", sheet_=sheet("Bram", spells=(missile,), mana=30))
    state = in_combat(bram, fighter("g1", "gm", x=3, sheet_=sheet("Goblin")), dice=(8, 3))
    _, events = execute(
        state, CastSpell("bram", "Magic Missile", targets=("g1",), extra_spell_dice=9)
    )
    cast = next(e for e in events if type(e).__name__ == "SpellCast")
    assert cast.cast_time == 2
    assert said(cast, mode="live") == (
        "Bram casts Magic Missile for 20 MC: a charged spell, 2 rounds (1 of 2 actions "
        "done); it goes off with the last\n"
        "  Bram must charge it in the next round: one Standard action a round ('declare "
        "charge' in the planning window); a round that ends without it loses the spell "
        "(its mana stays spent)"
    )
    assert "('charge' on the caster's turn)" in said(cast, mode="turn_based")
    data = {"$type": "SpellCharged", "caster": "bram", "spell": "Lightning Lance"}
    data |= {"action": "standard", "actions_done": 2, "actions_needed": 4}
    assert narrate(data, names, "verse") == (
        "Bram charges Lightning Lance (2 of 4 actions): 2 more rounds to charge, one action in each"
    )
    data |= {"actions_done": 3}
    assert narrate(data, names, "verse").endswith(": one more charge, next round, sets it off")
    _, short = execute(state, CastSpell("bram", "Magic Missile", targets=("g1",)))
    one_action = next(e for e in short if type(e).__name__ == "SpellCast")
    assert said(one_action, mode="live") == "Bram casts Magic Missile for 2 MC"


def test_an_approval_reads_whole_to_its_side_and_hidden_to_the_others() -> None:
    """R73: another side's view of the event does not say what was approved."""
    assert said(FeatApproved("bram", "quick_response")) == (
        "The GM lets Bram take quick response actions without the feat (Verse Master approval, R73)"
    )
    hidden = {"$type": "FeatApproved", "combatant": "bram"}
    assert narrate(hidden, names, "verse") == (
        "The GM approves something for Bram (hidden from your side)"
    )
    assert said(ApprovalWithdrawn("bram", "counter")) == (
        "The GM takes back Bram's approval for counter actions"
    )


def test_a_mana_pledge_reads_as_consent_and_another_side_learns_only_who() -> None:
    """R74: Bram's player agrees to pay part of Corvin's spell; the goblins' view of the
    event names only Bram (`verse/views.py`)."""
    assert said(ManaPledged("bram", "corvin", "Mana Rain", 2)) == (
        "Bram pledges up to 2 MC of Corvin's Mana Rain this round"
    )
    assert said(ManaPledged("bram", "corvin", "Mana Rain", 0)) == (
        "Bram takes back its pledge to Corvin's Mana Rain"
    )
    hidden = {"$type": "ManaPledged", "helper": "bram"}
    assert narrate(hidden, names, "verse") == "Bram pledges mana to someone's spell"


def test_a_move_over_several_levels_says_how_many() -> None:
    """V26: one move may cover several Ascension levels; one level reads as before."""
    up = DeclarationMade("ayla", 0, (ChangeAscension("ayla", 3),))
    assert said(up, knows=lambda c: True) == "Ayla declares: ascend 3 levels"
    down = DeclarationMade("ayla", 0, (ChangeAscension("ayla", -1),))
    assert said(down, knows=lambda c: True) == "Ayla declares: descend"
    assert said(AscensionChanged("ayla", 0, 3, 30, "move")) == (
        "Ayla ascends to Ascension 3 (from 0, 30 ft) (move action)"
    )


def test_a_combatant_taken_out_says_which_of_its_actions_go_with_it() -> None:
    """R63: its own actions on the stack leave with it (others' answers stay)."""
    g1 = fighter("g1", "gm", 1, 0)
    attack = Pending(Attack("g1", "ayla", "longsword"), "g1", "declared")
    assert said(CombatantRemoved(g1, slots=(2,), pending=(attack,))) == (
        "The GM takes Goblin (g1) out of the fight; its action on the stack goes with it: "
        "attack Ayla with longsword"
    )
    assert said(CombatantRemoved(g1, slots=(2,))) == "The GM takes Goblin (g1) out of the fight"


# --- another side's rolls (R77) ---------------------------------------------------------


def seen_by(event: Any, audience: str, visibility: str = "faces") -> str:
    """`event` as the server's views send it to `audience` ("ayla": Ayla's player,
    "spectator") in a room whose rolls are shown as `visibility`, read as a sentence.
    The goblin has 13 health of 20 left (after the hit, before the potion)."""
    ayla = fighter("ayla", "pc", 0, 0, sheet_=sheet("Ayla"))
    g1 = evolve(fighter("g1", "gm", 1, 0, sheet_=sheet("Goblin")), health=13)
    state = in_combat(ayla, g1, settings=Settings(roll_visibility=visibility))
    who = player_audience(["ayla"], state) if audience == "ayla" else SPECTATORS
    return narrate(event_view(event, state, who), names, "verse")


def test_a_foes_roll_reads_by_its_faces_and_its_outcome() -> None:
    """The goblin attacks Ayla: her player reads the die, her own PD and the hit, not
    the goblin's Strength, Training or total; a spectator not her PD either; in a room
    that shows only outcomes, not even the die; at an open table, everything."""
    attack = AttackRolled(
        "g1", "ayla", "scimitar", "melee", "standard", d20(14, ("Strength", 2)), "PD", 12, "hit"
    )
    assert seen_by(attack, "ayla") == (
        "Goblin (g1) attacks Ayla with scimitar: d20 14 (modifiers hidden) vs PD 12: hit"
    )
    assert seen_by(attack, "spectator") == (
        "Goblin (g1) attacks Ayla with scimitar: d20 14 (modifiers hidden) vs PD (hidden): hit"
    )
    assert seen_by(attack, "spectator", "hidden") == (
        "Goblin (g1) attacks Ayla with scimitar: a hidden roll vs PD (hidden): hit"
    )
    assert seen_by(attack, "spectator", "open") == (
        "Goblin (g1) attacks Ayla with scimitar: d20 14 + Strength 2 = 16 vs PD 12: hit"
    )


def test_ayla_reads_her_own_rolls_whole_and_never_the_goblins_numbers() -> None:
    """Her attack shows its total and the outcome, not the goblin's PD; her Dodge its
    total, not the attack's; the damage she dealt, not how the goblin's resistance split
    it, with its coarse health after it."""
    mine = AttackRolled(
        "ayla", "g1", "longsword", "melee", "standard", d20(9, ("Strength", 3)), "PD", 12, "miss"
    )
    assert seen_by(mine, "ayla") == (
        "Ayla attacks Goblin (g1) with longsword: d20 9 + Strength 3 = 12 vs PD (hidden): miss"
    )
    dodge = DefenceRolled("ayla", "g1", "dodge", d20(4, ("Dexterity", 2)), 16, False)
    assert (
        seen_by(dodge, "ayla")
        == "Ayla tries to dodge: d20 4 + Dexterity 2 = 6 vs the attack: fails"
    )
    damage = Roll((DiceResult(8, (5,)),), (("Training", 2),), 7)
    dealt = DamageDealt("g1", "ayla", 7, "PR", 2, 5, 2, damage)
    assert seen_by(dealt, "ayla") == (
        "Goblin (g1) takes d8 5 + Training 2 = 7; 7 damage vs PR: now wounded"
    )
    assert seen_by(dealt, "spectator") == (
        "Goblin (g1) takes d8 5 (modifiers hidden); damage vs PR: now wounded"
    )


def test_the_other_checks_of_a_foe_read_without_its_numbers() -> None:
    throw = ThrowChecked("g1", "dagger", d20(12, ("Strength", 2)), 11, True, "standard")
    assert seen_by(throw, "ayla") == (
        "Goblin (g1) throws the dagger: d20 12 (modifiers hidden) vs Throw DC (hidden): thrown"
    )
    overdraw = AbilityDamaged("g1", "constitution", 2, None, "overdraw")
    assert seen_by(overdraw, "ayla") == "Goblin (g1) takes Constitution damage (overdraw)"
    potion = ItemUsed("g1", "potion", Roll((DiceResult(4, (3,)),), (), 3), 3)
    assert (
        seen_by(potion, "ayla")
        == "Goblin (g1) uses the potion: d4 3 (modifiers hidden): now wounded"
    )
    read = SpellDeciphered("g1", Spell("Bolt", 3), d20(11, ("Intellect", 1)), 14, True)
    assert seen_by(read, "spectator", "hidden") == (
        "Goblin (g1) deciphers Bolt: a hidden roll vs DC (hidden): learnt"
    )


def test_a_condition_that_changed_a_roll_or_a_defence_is_named_where_it_did() -> None:
    """V27: the conditions table made Prone -2 to attack and -2 to PD. The attacker's
    own side reads both: the penalty in the roll, the Prone defender's PD with why it is
    lower; the defender's number (and what changed it) stays hidden from another side
    unless the table is open (R77)."""
    attack = AttackRolled(
        "ayla",
        "g1",
        "longsword",
        "melee",
        "standard",
        d20(9, ("Strength", 3), ("Prone", -2)),
        "PD",
        10,
        "hit",
        (("Prone", -2),),
    )
    assert said(attack) == (
        "Ayla attacks Goblin (g1) with longsword: d20 9 + Strength 3 - Prone 2 = 10 "
        "vs PD 10 (Prone -2): hit"
    )
    assert seen_by(attack, "ayla") == (
        "Ayla attacks Goblin (g1) with longsword: d20 9 + Strength 3 - Prone 2 = 10 "
        "vs PD (hidden): hit"
    )


def test_a_conditions_damage_and_save_read_without_a_resistance() -> None:
    """V27: the table's Bleed at a round's end: damage no resistance meets, then the
    save that may end it (R80)."""
    bled = DamageDealt("ayla", "ayla", 3, "", 0, 3, 0, Roll((DiceResult(4, (3,)),), (), 3), "Bleed")
    assert said(bled) == "Ayla takes d4 3 = 3; 3 damage: 3 to health, 0 to armour (Bleed)"
    save = ConditionSaveRolled("ayla", "Bleed", d20(8, ("Constitution", 3)), 12, False)
    assert said(save) == "Ayla's Bleed save: d20 8 + Constitution 3 = 11 vs DC 12: it goes on"
    ended = ConditionSaveRolled("ayla", "Bleed", d20(9, ("Constitution", 3)), 12, True)
    assert said(ended) == "Ayla's Bleed save: d20 9 + Constitution 3 = 12 vs DC 12: it ends"


def test_the_gms_change_to_the_conditions_table_reads_as_a_house_rule() -> None:
    """V27: the GM adds, changes and takes out an entry; every screen reads it."""
    prone = ConditionRule(
        "Prone",
        (Change("attack", "add", -2), Change("speed", "multiply", 0.5)),
        loses=("swift",),
        turns=1,
        text="on the ground",
    )
    assert said(ConditionRuleChanged("Prone", prone, None)) == (
        "The GM adds the house rule for Prone: attack -2, speed x0.5, loses swift, "
        "lasts 1 of its turn(s) when laid without a duration (on the ground)"
    )
    bleed = ConditionRule("Bleed", damage="1d4", save=SaveEnds("constitution", 10))
    assert said(ConditionRuleChanged("Bleed", bleed, bleed)) == (
        "The GM changes the house rule for Bleed: 1d4 damage a round, "
        "save constitution DC 10 ends it"
    )
    assert said(ConditionRuleChanged("Bleed", None, bleed)) == (
        "The GM takes Bleed out of the conditions table: it does nothing now"
    )


def test_an_immunity_reads_as_such() -> None:
    """R81: the goblin's sheet is immune to Shaken: Fear lays nothing, and says so."""
    assert said(ConditionWarded("g1", "Shaken", "Fear")) == "Goblin (g1) is immune to Shaken (Fear)"


def test_every_verse_action_a_player_may_declare_or_answer_with_reads_as_words() -> None:
    """In Live Combat every action is declared, revealed and answered (V20, V21), so
    each is told as a phrase ("mount Horse"), never as its fields ("Mount actor=ayla,
    ride=horse"). (World of Tael's actions are sent, not declared: their events tell
    them.)"""
    actions = {*verse_live.GATED, *chain(*verse_live.ANSWER_ACTIONS.values())}
    missing = {kind.__name__ for kind in actions} - set(VERSE_TELLING.actions)
    assert missing == set(), f"no words for {sorted(missing)}"
