"""World of Tael events read as a story, from the wire data each audience receives.

The events are the engine's own, made by playing the sample sheets on scripted dice,
and turned into wire data by the server's views, so the tests read what the GM, a
side and a spectator really get in their log lines (`server.table.narration`).
"""

from __future__ import annotations

from server.engine.commands import CombatEnded
from server.engine.condition_table import ConditionSaveRolled
from server.engine.core import Event
from server.engine.dice import DiceResult, Roll
from server.engine.grid import Cell
from server.engine.rulesets.tael.attacks import AttackAction, HitChecked, HitKind
from server.engine.rulesets.tael.bonus import PickedUp, SkillChecked, Surrendered, WeaponsEquipped
from server.engine.rulesets.tael.combatant import TaelStatus
from server.engine.rulesets.tael.damage import DamageTaken, Fainted, WillpowerDcRaised
from server.engine.rulesets.tael.fainting import Died, HelpedUp, WillpowerChecked
from server.engine.rulesets.tael.generic import Braced, Dashed, HideAttempted
from server.engine.rulesets.tael.movement import TilesMoved
from server.engine.rulesets.tael.overrides import HitPointsSet
from server.engine.rulesets.tael.preparations import Prepare
from server.engine.rulesets.tael.ruleset import TAEL
from server.engine.rulesets.tael.spells import SpellHitChecked, SpellTargetCheck
from server.engine.rulesets.tael.stances import StanceChosen
from server.engine.rulesets.tael.statuses import ResistChecked, StatusEnded, StatusGained
from server.engine.rulesets.tael.turns import TurnLost
from server.engine.stack import Answer, PassWindow
from server.engine.state import Encounter
from server.engine.turns import EndTurn, StartCombat
from server.engine.views import GM_AUDIENCE, SPECTATORS, Audience, event_view, player_audience
from server.table.narration import narrate, narrated
from tests.support.fights import (
    BANDIT_HITS,
    DAMAGE,
    GM_STORY,
    KAELEN_MISSES,
    RIPOSTE,
    TAKEN,
    play,
    tael_names,
    the_pass,
    window_id,
)


def names(combatant: str) -> str:
    return tael_names(combatant)


def story(seen: list[tuple[Event, Encounter]], audience: Audience) -> list[str]:
    return [narrate(event_view(event, after, audience), names) for event, after in seen]


def test_a_riposte_out_of_turn_reads_as_a_story_for_each_audience() -> None:
    state, round_1 = play(the_pass(), StartCombat(), EndTurn("bandit"))
    state, attack = play(state, AttackAction("kaelen", "bandit"))
    state, passed = play(state, PassWindow("bandit", window_id(state)))
    state, prepared = play(state, EndTurn("kaelen"), Prepare("kaelen", "Riposte"))
    state, round_2 = play(state, EndTurn("tobin"), AttackAction("bandit", "kaelen"))
    window = window_id(state)
    state, answered = play(state, Answer("kaelen", window, "Riposte"))
    state, resolved = play(state, PassWindow("tobin", window))
    seen = round_1 + attack + passed + prepared + round_2 + answered + resolved

    assert story(seen, GM_AUDIENCE) == GM_STORY

    # A spectator learns that a preparation was announced, sees whom the window waits
    # for, the faces of every roll and their outcomes (R77: no modifier, total or
    # Defensive Value) and the bandit's coarse health; the move shows only once it
    # triggers.
    public = {
        "Kaelen prepares Riposte": "Kaelen announces a prepared move (hidden until it triggers)",
        "Window 2 opens (reaction to Bandit, 8s): Kaelen may Riposte; Tobin may Covering Shot": (
            "Window 2 opens (reaction to Bandit, 8s): Kaelen may answer; Tobin may answer"
        ),
        "Window 1 opens (reaction to Kaelen, 8s): Bandit may Shield Up": (
            "Window 1 opens (reaction to Kaelen, 8s): Bandit may answer"
        ),
        GM_STORY[0]: "Initiative:\n"
        "  Bandit: d20 18 (modifiers hidden)\n"
        "  Kaelen: d20 10 (modifiers hidden)\n"
        "  Tobin: d20 5 (modifiers hidden)\n"
        "Turn order: Bandit, Kaelen, Tobin",
        KAELEN_MISSES: "Kaelen attacks Bandit with longsword: d20 5 (modifiers hidden) "
        "vs DV (hidden): miss",
        RIPOSTE: "Kaelen strikes back at Bandit with longsword: d20 14 (modifiers hidden) "
        "vs DV (hidden): hit",
        DAMAGE: "longsword damage: d8 6 (modifiers hidden)",
        TAKEN: "Bandit takes damage: now bloodied",
        BANDIT_HITS: "Bandit attacks Kaelen with hand axe: d20 15 (modifiers hidden) "
        "vs DV (hidden): hit",
    }
    assert story(seen, SPECTATORS) == [public.get(line, line) for line in GM_STORY]
    # The bandit's side sees its own rolls, options and numbers whole, Kaelen's side's
    # rolls by their faces.
    bandits = {
        **public,
        "Window 1 opens (reaction to Kaelen, 8s): Bandit may Shield Up": (
            "Window 1 opens (reaction to Kaelen, 8s): Bandit may Shield Up"
        ),
        GM_STORY[0]: "Initiative:\n"
        "  Bandit: d20 18 + Initiative 1 = 19\n"
        "  Kaelen: d20 10 (modifiers hidden)\n"
        "  Tobin: d20 5 (modifiers hidden)\n"
        "Turn order: Bandit 19, Kaelen, Tobin",
        KAELEN_MISSES: "Kaelen attacks Bandit with longsword: d20 5 (modifiers hidden) "
        "vs DV 12: miss",
        RIPOSTE: "Kaelen strikes back at Bandit with longsword: d20 14 (modifiers hidden) "
        "vs DV 12: hit",
        TAKEN: TAKEN,
        BANDIT_HITS: "Bandit attacks Kaelen with hand axe: d20 15 + Martial Combat 2 = 17 "
        "vs DV (hidden): hit",
    }
    assert story(seen, player_audience(["bandit"], state)) == [
        bandits.get(line, line) for line in GM_STORY
    ]
    # Kaelen's side sees its own move, window options and rolls, not the bandit's; the
    # damage Kaelen dealt, not the bandit's hit points left.
    party = {
        "Window 1 opens (reaction to Kaelen, 8s): Bandit may Shield Up": (
            "Window 1 opens (reaction to Kaelen, 8s): Bandit may answer"
        ),
        GM_STORY[0]: "Initiative:\n"
        "  Bandit: d20 18 (modifiers hidden)\n"
        "  Kaelen: d20 10 + Initiative 3 = 13\n"
        "  Tobin: d20 5 + Initiative 2 = 7\n"
        "Turn order: Bandit, Kaelen 13, Tobin 7",
        KAELEN_MISSES: "Kaelen attacks Bandit with longsword: d20 5 + Martial Combat 4 = 9 "
        "vs DV (hidden): miss",
        RIPOSTE: "Kaelen strikes back at Bandit with longsword: d20 14 + Martial Combat 4 = 18 "
        "vs DV (hidden): hit",
        TAKEN: "Bandit takes 9 damage: now bloodied",
        BANDIT_HITS: "Bandit attacks Kaelen with hand axe: d20 15 (modifiers hidden) "
        "vs DV 15 (Armour 13 + Dodging 3 - Dodge penalty 1): hit",
    }
    assert story(seen, player_audience(["tobin"], state)) == [
        party.get(line, line) for line in GM_STORY
    ]


# --- the other Tael events, on a small cast ---------------------------------------------


def cast() -> Encounter:
    state, _ = play(the_pass())
    return state


def roll(sides: int, face: int, *mods: tuple[str, int]) -> Roll:
    return Roll((DiceResult(sides, (face,)),), mods, face + sum(v for _, v in mods))


def said(event: Event, audience: Audience = GM_AUDIENCE) -> str:
    return narrate(event_view(event, cast(), audience), names)


def test_fainting_and_the_willpower_track_hide_their_numbers_from_other_sides() -> None:
    check = WillpowerChecked("bandit", roll(20, 3, ("Willpower", 0)), 5, False, False, 1)
    assert said(Fainted("bandit")) == "Bandit faints"
    assert said(check) == (
        "Bandit checks Willpower: d20 3 + Willpower 0 = 3 vs DC 5: fails (1 failed in a row)"
    )
    assert said(check, SPECTATORS) == "Bandit checks Willpower: fails (1 failed in a row)"
    up = WillpowerChecked("kaelen", roll(20, 20, ("Willpower", 2)), 6, True, True, 0)
    assert said(up, SPECTATORS) == "Kaelen checks Willpower: stands up with 1 hit point"
    raised = WillpowerDcRaised("bandit", 5, 10)
    assert said(raised) == "Bandit's Willpower DC rises by 5 to 10"
    assert said(raised, SPECTATORS) == "Bandit's Willpower DC rises by 5"
    assert said(Died("bandit", "failed two Willpower checks in a row")) == (
        "Bandit dies (failed two Willpower checks in a row)"
    )
    assert said(HelpedUp("tobin", "kaelen", "universal")) == "Tobin helps Kaelen up: 1 hit point"
    assert said(TurnLost("bandit", "fainted")) == "Bandit loses the turn (fainted)"


def test_a_status_save_in_willpower_reads_as_a_hidden_roll_to_other_sides() -> None:
    """TR33: whatever the room's setting, another side reads only the outcome."""
    save = ConditionSaveRolled(
        "bandit", "Dread", roll(20, 4, ("Willpower", 0)), 15, False, "willpower"
    )
    assert said(save) == "Bandit's Dread save: d20 4 + Willpower 0 = 4 vs DC 15: it goes on"
    assert said(save, SPECTATORS) == "Bandit's Dread save: a hidden roll vs DC 15: it goes on"
    kaelen = player_audience(["kaelen"], cast())
    assert said(save, kaelen) == "Bandit's Dread save: a hidden roll vs DC 15: it goes on"


def test_damage_reads_with_brace_and_the_gms_hit_point_override() -> None:
    braced = DamageTaken("kaelen", "bandit", 7, 3, True, 21)
    assert said(braced) == "Kaelen takes 3 of 7 damage (braced): 21 hit points left"
    assert said(braced, SPECTATORS) == "Kaelen takes damage (braced): now wounded"
    bandits = player_audience(["bandit"], cast())
    assert said(braced, bandits) == "Kaelen takes 3 of 7 damage (braced): now wounded"
    override = HitPointsSet("bandit", 0, 14, False)
    assert said(override) == "The GM sets Bandit's hit points to 0 (was 14)"
    assert said(override, SPECTATORS) == "The GM changes Bandit's hit points: now down"
    assert said(HitPointsSet("bandit", 3, 0, True), SPECTATORS) == (
        "The GM changes Bandit's hit points: now bloodied, and Bandit stands up"
    )
    # Game night 2: "... (was 0) and stands up" read as the GM standing up.
    assert said(HitPointsSet("tobin", 10, 0, True)) == (
        "The GM sets Tobin's hit points to 10 (was 0), and Tobin stands up"
    )


def test_spells_statuses_and_resist_checks() -> None:
    checks = (
        SpellTargetCheck("bandit", (("Armour", 12),), 12, True),
        SpellTargetCheck("kaelen", (("Armour", 13), ("Dodging", 3)), 16, False),
    )
    spell = SpellHitChecked("mira", "Ember Spray", "spell", roll(20, 9, ("Magic", 4)), checks)
    assert said(spell) == (
        "Mira casts Ember Spray: d20 9 + Magic 4 = 13 vs Bandit DV 12 hit, "
        "Kaelen DV 16 (Armour 13 + Dodging 3) miss"
    )
    resist = ResistChecked("bandit", "Burning", roll(20, 8, ("Agility", 0)), 10, 4, 14, False)
    assert said(resist) == (
        "Bandit resists Burning: d20 8 + Agility 0 = 8 vs DC 14 (10 + Magic 4): fails"
    )
    burning = StatusGained("bandit", TaelStatus("Burning", 2, "1d4", False, "mira"))
    assert said(burning) == "Bandit is Burning for 2 turns (1d4 damage as each starts)"
    frozen = StatusGained("tobin", TaelStatus("Frozen", 1, "", True, "mira"))
    assert said(frozen) == "Tobin is Frozen for 1 turn (loses them)"
    ruled = StatusGained("tobin", TaelStatus("Frozen", 2, "", True, "gm"))
    assert said(ruled) == "Tobin is Frozen for 2 turns (loses them) (the GM's ruling)"
    assert said(StatusEnded("bandit", "Burning")) == "Bandit is no longer Burning"


def test_attacks_of_every_kind() -> None:
    dv = (("Armour", 12),)
    automatic = HitChecked("tobin", "bandit", "", HitKind.PUNCH, "bonus", None, None, dv, 12, True)
    assert said(automatic) == "Tobin punches Bandit: hits by itself, as the Punch before it hit"
    off = HitChecked(
        "kaelen", "bandit", "parrying dagger", HitKind.OFF_HAND, "bonus",
        roll(20, 11, ("Martial Combat", 4)), None, dv, 12, True,
    )  # fmt: skip
    assert said(off) == (
        "Kaelen attacks Bandit with parrying dagger (off hand): "
        "d20 11 + Martial Combat 4 = 15 vs DV 12: hit"
    )
    far = HitChecked(
        "tobin", "bandit", "longbow", HitKind.WEAPON, "attack",
        roll(20, 4, ("Precision", 4)), roll(20, 16, ("Precision", 4)), dv, 12, False,
    )  # fmt: skip
    assert said(far) == (
        "Tobin attacks Bandit with longbow: d20 4 + Precision 4 = 8 (beyond range: the worse "
        "of it and d20 16 + Precision 4 = 20) vs DV 12: miss"
    )
    hindered = HitChecked(
        "tobin", "bandit", "longbow", HitKind.WEAPON, "attack",
        roll(20, 13), None, dv, 12, True, hindered=True,
    )  # fmt: skip
    assert said(hindered) == (
        "Tobin attacks Bandit with longbow: d20 13 = 13 (no Precision: an enemy in melee "
        "range) vs DV 12: hit"
    )


def test_the_action_phase_and_its_generic_actions() -> None:
    assert said(TilesMoved("tobin", (Cell(1, 1), Cell(2, 1)), 2)) == "Tobin moves 2 tiles to (2, 1)"
    assert said(Dashed("tobin", 2, "universal")) == "Tobin dashes: movement x2 this turn"
    assert said(Dashed("tobin", 4, "universal")) == (
        "Tobin sprints: movement x4 this turn, none the next"
    )
    assert said(Braced("kaelen", "universal")) == (
        "Kaelen braces: damage halved until the next turn"
    )
    assert said(HideAttempted("tobin", roll(20, 12, ("Stealth", 3)), "universal")) == (
        "Tobin tries to hide: d20 12 + Stealth 3 = 15 (for the GM to judge)"
    )
    assert said(
        SkillChecked("kaelen", "intimidation", roll(20, 7, ("Intimidation", 2)), "bonus")
    ) == ("Kaelen checks intimidation: d20 7 + Intimidation 2 = 9 (for the GM to judge)")
    assert said(Surrendered("bandit", ("hand axe", "buckler"), "bonus")) == (
        "Bandit surrenders and drops hand axe, buckler"
    )
    assert said(PickedUp("bandit", "hand axe", True, "bonus")) == (
        "Bandit picks up hand axe and holds it"
    )
    assert said(WeaponsEquipped("kaelen", "longsword", "parrying dagger", "bonus")) == (
        "Kaelen holds longsword and parrying dagger"
    )
    assert said(StanceChosen("kaelen", "tanking")) == "Kaelen takes the tanking stance"
    assert said(CombatEnded(("outlaws",), ("outlaws",))) == (
        "The GM ends the fight: beaten, with nobody left able to fight: side outlaws (all fallen)"
    )
    assert said(CombatEnded((), (), agreed=True)) == (  # T10's "everyone agrees" (TR39)
        "The GM ends the fight, as everyone agreed to stop: no side is beaten (each still has "
        "someone able to fight)"
    )


def test_every_tael_event_has_its_own_words() -> None:
    """No Tael event falls back to the compact `Type field=value` form."""
    missing = {cls.__name__ for cls in TAEL.appliers} - narrated()
    assert missing == set()
