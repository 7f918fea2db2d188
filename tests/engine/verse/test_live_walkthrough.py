"""LIVE_COMBAT.md, "One round of Live Combat, step by step", played on the engine.

The cast, the initiatives and the declarations are the document's; the dice are
scripted so the document's numbers come out. Where the engine does something other
than the document says, the step says what it does and why (comments marked ENGINE).
"""

from __future__ import annotations

from server.engine.commands import Pause, Resume, WindowExpired
from server.engine.flow import Ask, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.attacks import Attack, AttackRolled
from server.engine.rulesets.verse.combatant import Awareness, VerseCombatant
from server.engine.rulesets.verse.conditions import ConditionGained
from server.engine.rulesets.verse.damage import DamageDealt
from server.engine.rulesets.verse.defences import DefenceRolled
from server.engine.rulesets.verse.live import (
    ActionLost,
    Answer,
    DeclarationsRevealed,
    Declare,
    PassWindow,
)
from server.engine.rulesets.verse.live_actions import (
    Counter,
    HoldAction,
    HoldBegan,
    ItemKnockedAway,
    ItemUsed,
    KnockAway,
    ManeuverRolled,
    UseItem,
)
from server.engine.rulesets.verse.movement import Move, Moved
from server.engine.rulesets.verse.sheet import (
    Abilities,
    AccessLevel,
    BuildPoints,
    Defences,
    Feat,
    FeatKind,
    Item,
    Speeds,
    Spell,
    SpellRange,
    VerseSheet,
    Weapon,
)
from server.engine.rulesets.verse.spells import CastSpell, SpellAttackRolled, SpellCast
from server.engine.rulesets.verse.turns import RoundEnded, RoundStarted, TurnStarted
from server.engine.rulesets.verse.windows import WindowClosed, WindowOpened
from server.engine.state import Settings
from tests.engine.verse.live_script import names, of, one, started_live

# --- the cast (after server/samples/*.toml) ------------------------------------------

LONGSWORD = Weapon("longsword", "1d8", "one_handed")
SCIMITAR = Weapon("scimitar", "1d6", "one_handed")
SPEAR = Weapon("spear", "1d8", "polearm", critical_multiplier=3, reach_ft=10)
QUARTERSTAFF = Weapon("quarterstaff", "1d6", "two_handed")
MAGIC_MISSILE = Spell(
    "Magic Missile", min_mc=2, access_level=AccessLevel.COMMON, uses_spell_die=True,
    base_spell_dice=1, range=SpellRange.CLOSE,
)  # fmt: skip

AYLA = VerseSheet(
    name="Ayla", level=2, health=24, mana=4, armour_durability=12,
    abilities=Abilities(strength=3, dexterity=4, constitution=3, sanity=1, intellect=1, empathy=2),
    defences=Defences(physical_dodge=15, physical_resistance=2, spell_dodge=12, spell_resistance=1),
    training=(("one_handed", 2),), weapons=(LONGSWORD,), feats=(Feat("Riposte", FeatKind.COUNTER),),
)  # fmt: skip
BRAM = VerseSheet(
    name="Bram", level=2, health=16, mana=20, spell_attack_training=2,
    abilities=Abilities(strength=1, dexterity=2, constitution=2, sanity=4, intellect=3, empathy=2),
    defences=Defences(physical_dodge=12, physical_resistance=1, spell_dodge=14, spell_resistance=2),
    build_points=BuildPoints(spell_die=5, spell_access=5),  # Spell Die 1d6, Common spells
    training=(("two_handed", 1),), weapons=(QUARTERSTAFF,), spells=(MAGIC_MISSILE,),
)  # fmt: skip
# Corvin's Dexterity is 2 here (the sample has 3): his second initiative of 3 is d20 1 + 2.
CORVIN = VerseSheet(
    name="Corvin", level=2, health=20, mana=6, armour_durability=10, speeds=Speeds(land=60),
    abilities=Abilities(strength=3, dexterity=2, constitution=3, sanity=1, intellect=2, empathy=1),
    defences=Defences(physical_dodge=14, physical_resistance=2, spell_dodge=11, spell_resistance=1),
    training=(("polearm", 2),), weapons=(SPEAR,),
    feats=(Feat("Quick Hands", FeatKind.QUICK_RESPONSE),),
)  # fmt: skip
GOBLIN = VerseSheet(
    name="Goblin", level=1, health=12, mana=0, armour_durability=4,
    abilities=Abilities(strength=2, dexterity=3, constitution=2, sanity=0, intellect=1, empathy=0),
    defences=Defences(physical_dodge=13, physical_resistance=1, spell_dodge=10, spell_resistance=0),
    training=(("one_handed", 1),), weapons=(SCIMITAR,), items=(Item("potion", heal="2d4+2"),),
)  # fmt: skip


def cast() -> tuple[VerseCombatant, ...]:
    """The map, 5 ft squares (facing 0 looks along +x, 4 along -x):

        y=0:  G1   Ayla  G2   Corvin
        y=1:             Bram

    Everyone who trades blows stands next to each other. ENGINE: Corvin's Quick
    Response is a maneuver in unarmed reach (5 ft), so he starts next to G2; his
    first-turn move (step 6) takes him round it, still next to it.
    """
    return (
        VerseCombatant.from_sheet("g1", "goblins", GOBLIN, Cell(0, 0), facing=0),
        VerseCombatant.from_sheet("ayla", "party", AYLA, Cell(1, 0), facing=0),
        # G2 is hurt (7 of 12): a potion would matter.
        evolve(VerseCombatant.from_sheet("g2", "goblins", GOBLIN, Cell(2, 0), facing=4), health=7),
        VerseCombatant.from_sheet("bram", "party", BRAM, Cell(2, 1), facing=2),
        VerseCombatant.from_sheet("corvin", "party", CORVIN, Cell(3, 0), facing=4),
    )


DICE = (
    # Initiative, in id order: Ayla 11 + 4 = 15, Bram 9 + 2 = 11, Corvin 4 + 2 = 6 and
    # 1 + 2 = 3 (60 ft), G1 14 + 3 = 17, G2 6 + 3 = 9.
    11, 9, 4, 1, 14, 6,
    12, 12,  # step 2: G1's attack (12 + 3 = 15), Ayla's Dodge (12 + 4 = 16)
    10, 5,  # step 2: Ayla's counter (10 + 5 = 15 vs PD 13), d8 5
    8, 3, 4,  # step 4: Magic Missile (8 + 4 + 2 = 14 vs SD 10), 2d6 3 and 4
    12,  # step 5: Corvin knocks the potion away (12 + Strength 3 = 15 vs PD 13)
    10, 3,  # step 5: Ayla's held attack on G2 (15), d8 3
    3,  # step 5: G2's attack on Bram (3 + 3 = 6 vs PD 12: a miss)
    10, 4,  # step 5: Ayla's counter on G2 (15), d8 4
)  # fmt: skip


def test_one_round_of_live_combat_step_by_step() -> None:
    settings = Settings(planning_seconds=45.0, reaction_seconds=8.0, adapt_seconds=8.0)
    fight = started_live(*cast(), dice=DICE, settings=settings)
    assert [(s.combatant, s.initiative) for s in fight.state.turn_order] == [
        ("g1", 17), ("ayla", 15), ("bram", 11), ("g2", 9), ("corvin", 6), ("corvin", 3),
    ]  # fmt: skip

    # 1. Round opens; planning window (45 s). Every controller declares at once; each
    # sees only that the others have declared.
    planning = fight.window
    assert (planning.kind, planning.seconds) == (WindowKind.PLANNING, 45.0)
    assert {a.combatant for a in planning.asked} == {"g1", "g2", "ayla", "bram", "corvin"}
    fight.do(Declare("g1", (Attack("g1", "ayla", "scimitar"),)))
    fight.do(Declare("g2", (UseItem("g2", "potion"), Attack("g2", "bram", "scimitar"))))
    fight.do(Declare("ayla", (HoldAction("ayla"),)))
    magic_missile = CastSpell("bram", "Magic Missile", targets=("g1",), extra_spell_dice=1)
    fight.do(Declare("bram", (magic_missile,)))
    fight.do(Declare("corvin", (Move("corvin", (Cell(3, 1),)),), turn=0))
    assert names(fight.log[-1:]) == ["DeclarationMade"] and fight.window.waiting_for == ("corvin",)
    assert not of(fight.log, DeclarationsRevealed)  # still secret
    # All have declared -> the window closes early; the declarations are revealed.
    events = fight.do(Declare("corvin", (Attack("corvin", "g2", "spear"),), turn=1))
    assert one(events, WindowClosed).reason == "answered"
    assert len(one(events, DeclarationsRevealed).declarations) == 6

    # 2. G1 (17) attacks Ayla. Only Ayla may answer (target, aware: a Defensive Action).
    # ENGINE: she is not a holder yet: her Hold Action is her turn (15), after G1's.
    assert fight.asked() == {"ayla": ("dodge", "block")}
    assert fight.window.seconds == 8.0
    events = fight.do(Answer("ayla", fight.window.id, "dodge"))
    attack = one(events, AttackRolled)
    dodge = one(events, DefenceRolled)
    # ENGINE: the attack roll is recorded as it fell (15 meets PD 15: a hit), then the
    # Dodge (16 vs 15) avoids it: nothing lands, which is the document's "miss".
    assert attack.describe() == "d20 12 + Strength 2 + Training 1 = 15 vs PD 15: hit"
    assert (dodge.roll.total, dodge.against, dodge.success) == (16, 15, True)
    assert not of(events, DamageDealt) and fight.who("ayla").health == 24
    # The successful defence opens a Counter window for Ayla (she has the feat).
    assert (fight.window.kind, fight.window.asked) == (
        WindowKind.COUNTER, (Ask("ayla", ("counter",)),),
    )  # fmt: skip
    fight.do(Answer("ayla", fight.window.id, "counter", Counter("ayla", "g1", "longsword")))
    # Her counter is an action too: G1 is asked about a Defensive Action. It passes.
    assert fight.asked() == {"g1": ("dodge", "block")}
    events = fight.do(PassWindow("g1", fight.window.id))
    counter = one(events, AttackRolled)
    assert (counter.attacker, counter.outcome, counter.roll.total) == ("ayla", "hit", 15)
    assert one(events, DamageDealt).to_health == 6  # d8 5 + 2 = 7, PR 1
    assert fight.who("g1").health == 12 - 6

    # 3. Ayla (15) holds: her turn passes with no action; she is Alert and keeps one
    # Standard and one Swift for others' turns.
    assert one(events, HoldBegan).combatant == "ayla"
    ayla = fight.who("ayla")
    assert ayla.holding and ayla.awareness == Awareness.ALERT and not ayla.actions.standard

    # 4. Bram (11) casts Magic Missile at G1: G1 is aware, so it is offered a Dodge and
    # passes, as the document says; Ayla, holding, may act in any window too (V19).
    assert fight.state.current == "bram"
    assert fight.asked() == {"ayla": ("hold",), "g1": ("dodge",)}
    fight.do(PassWindow("g1", fight.window.id))
    events = fight.do(PassWindow("ayla", fight.window.id))  # she keeps her Standard
    assert (one(events, SpellCast).mc, one(events, SpellCast).spell_dice) == (4, 2)
    assert fight.who("bram").mana == 20 - 4
    spell = one(events, SpellAttackRolled)
    assert spell.describe() == (
        "Magic Missile: d20 8 + Sanity 4 + Spell Attack Training 2 = 14 vs g1 SD 10 hit"
    )
    assert one(events, DamageDealt).to_health == 9  # 2d6 3 + 4 + 2, SR 0 (V7)
    assert ConditionGained("g1", "Dead", reason="health 0") in events
    assert not fight.who("g1").alive

    # 5. G2 (9) drinks a potion (Swift): Corvin, with Quick Response, sees it; Ayla,
    # holding, may answer too.
    assert fight.state.current == "g2"
    assert fight.asked() == {"ayla": ("hold",), "corvin": ("quick_response",)}
    fight.do(PassWindow("ayla", fight.window.id))
    fight.do(
        Answer("corvin", fight.window.id, "quick_response", KnockAway("corvin", "g2", "potion"))
    )
    # ENGINE: Corvin's maneuver is itself an action, so holding Ayla is asked again.
    assert fight.asked() == {"ayla": ("hold",)}
    events = fight.do(PassWindow("ayla", fight.window.id))
    assert one(events, ManeuverRolled).success
    assert one(events, ItemKnockedAway) == ItemKnockedAway("g2", "potion", "corvin")
    assert one(events, ActionLost).action == UseItem("g2", "potion")  # never drunk
    assert not of(events, ItemUsed) and fight.who("g2").health == 7

    # Then G2 attacks Bram: Bram may defend, Ayla may use her held action.
    assert fight.asked() == {"ayla": ("hold",), "bram": ("dodge", "block")}
    dodge_window = fight.window

    # Pause. Corvin pauses with time left in Bram's window; while paused only resume
    # and GM overrides are accepted. The GM resumes: the same window, still open (the
    # room keeps its remaining 6.4 s: tests/room/test_verse_live.py).
    fight.do(Pause("corvin"))
    assert fight.refused(Answer("bram", dodge_window.id, "dodge")) == "paused"
    fight.do(Resume("gm"))
    assert fight.window == dodge_window

    # Ayla uses her held Standard now, before G2's attack resolves; Bram passes.
    fight.do(Answer("ayla", dodge_window.id, "hold", Attack("ayla", "g2", "longsword")))
    fight.do(PassWindow("bram", dodge_window.id))
    assert fight.asked() == {"g2": ("dodge", "block")}  # about Ayla's attack
    events = fight.do(PassWindow("g2", fight.window.id))
    held, missed = of(events, AttackRolled)
    assert (held.attacker, held.target, held.action, held.outcome) == (
        "ayla", "g2", "standard", "hit",
    )  # fmt: skip
    assert fight.who("g2").health == 7 - 4  # d8 3 + 2 = 5, PR 1
    # G2's attack on Bram resolves after it, and misses. After a miss, Ayla (Counter
    # feat, in reach of G2) may counter; she does, G2 passes, and G2 dies.
    assert (missed.attacker, missed.target, missed.outcome) == ("g2", "bram", "miss")
    assert fight.window.kind == WindowKind.COUNTER
    assert fight.asked() == {"ayla": ("counter",)}
    fight.do(Answer("ayla", fight.window.id, "counter", Counter("ayla", "g2", "longsword")))
    events = fight.do(PassWindow("g2", fight.window.id))
    assert one(events, AttackRolled).outcome == "hit"
    assert not fight.who("g2").alive

    # 6. Corvin (6), first turn: moves next to G2. Nobody's reach is left (both goblins
    # are dead), so there is no attack of opportunity. ENGINE: a window still opens,
    # for Ayla: she holds her Swift until her next turn (V19).
    assert fight.state.current == "corvin"
    assert fight.asked() == {"ayla": ("hold",)}
    events = fight.do(PassWindow("ayla", fight.window.id))
    assert one(events, Moved).path == (Cell(3, 1),)

    # 7. Corvin (3), second turn: attack G2 - but G2 is dead. The adapt window (8 s)
    # lets him pick a new target or another action; he has none and it runs out.
    assert [e.turn for e in of(events, TurnStarted)][-1] == 5
    adapt = fight.window
    assert (adapt.kind, adapt.asked, adapt.seconds) == (
        WindowKind.ADAPT, (Ask("corvin", ("adapt",)),), 8.0,
    )  # fmt: skip
    events = fight.do(WindowExpired(adapt.id))
    lost = one(events, ActionLost)
    assert (lost.action, lost.reason) == (
        Attack("corvin", "g2", "spear"), "no new action chosen in time",
    )  # fmt: skip

    # 8. End of round: the Defensive Action allowance resets and the next round's
    # planning window opens (for the living). Ayla holds until her next turn.
    assert one(events, RoundEnded).round == 1 and one(events, RoundStarted).round == 2
    opened = one(events, WindowOpened).window
    assert opened.kind == WindowKind.PLANNING
    assert {a.combatant for a in opened.asked} == {"ayla", "bram", "corvin"}
    assert not fight.who("ayla").defensive_used and fight.who("ayla").holding
    assert fight.replays()
