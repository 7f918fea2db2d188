"""Who may send which command, at the engine level (issue 3; ARCHITECTURE: the role is
part of the command's definition, so the server can enforce it).

Every command registered on the Verse ruleset and on COMMON must be listed in
`SAMPLES` with its kind; a new command missing there, or whose `issuers` or
`while_paused` do not match its kind, fails here.
"""

from __future__ import annotations

import pytest

import server.engine.rulesets.verse  # noqa: F401  (registers the Verse commands)
from server.engine.authority import GM, ROOM, Principal, Role, authorize, may_issue
from server.engine.commands import (
    CloseWindow,
    EndCombat,
    Pause,
    RefusePause,
    Resume,
    Rewind,
    WindowExpired,
)
from server.engine.condition_table import RemoveConditionRule, SetConditionRule
from server.engine.core import COMMON, RULESETS, Command
from server.engine.effects import ConditionRule
from server.engine.errors import FORBIDDEN, HELPER_NOT_CONSENTING, CommandRefused
from server.engine.grid import Cell
from server.engine.records import evolve
from server.engine.rulesets.verse.approval import ApproveFeat, WithdrawApproval
from server.engine.rulesets.verse.ascension import AscendAttack, ChangeAscension
from server.engine.rulesets.verse.attacks import Attack
from server.engine.rulesets.verse.awareness import SetAwareness, StealthCheck
from server.engine.rulesets.verse.criticals import ChooseCriticalRow
from server.engine.rulesets.verse.live import Answer, Declare, PassWindow, Withdraw
from server.engine.rulesets.verse.live_actions import Counter, HoldAction, KnockAway, UseItem
from server.engine.rulesets.verse.movement import Face, Move, OpportunityAttack
from server.engine.rulesets.verse.overrides import (
    AddCombatant,
    RemoveCombatant,
    RemoveCondition,
    SetAbility,
    SetArmour,
    SetCondition,
    SetHealth,
    SetMana,
    SetPosition,
    SetSetting,
    SkipTurn,
)
from server.engine.rulesets.verse.recovery import RecoverItem
from server.engine.rulesets.verse.rides import Dismount, Mount, RideDestroyed
from server.engine.rulesets.verse.sheet import Spell
from server.engine.rulesets.verse.spell_charges import ChargeSpell, ConcentrationCheck
from server.engine.rulesets.verse.spell_decipher import DecipherSpell
from server.engine.rulesets.verse.spell_mana import PledgeMana
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.stances import SetStance
from server.engine.rulesets.verse.turns import EndTurn, StartCombat
from tests.engine.verse.builders import fighter

# The kinds of command, and who may send each kind.
OVERRIDE = "GM override"  # the GM's alone, accepted while paused (V24)
GM_ONLY = "GM only"  # the GM's alone, not while paused
GM_OR_ROOM = "GM or room"  # consequences the GM (or later the room) triggers
ACTION = "action"  # actions, declarations, answers: the GM or the combatant's controller
PAUSE = "pause"  # V24: the GM or any player
RESUME = "resume"  # V24: the GM or any player, while paused
TIMER = "timer"  # the room's timers alone

# Principals: the GM, ayla's player, gob's player, a spectator, the room.
CONTROLLER = Principal(Role.PLAYER, controls=("ayla",), name="ayla's player")
OTHER = Principal(Role.PLAYER, controls=("gob",), name="gob's player")
SPECTATOR = Principal(Role.SPECTATOR, name="watcher")
PRINCIPALS = {"gm": GM, "controller": CONTROLLER, "other": OTHER, "spectator": SPECTATOR}
PRINCIPALS["room"] = ROOM

EXPECTED: dict[str, tuple[set[str], bool, set[str]]] = {
    # kind: (who may send it, accepted while paused, its declared `issuers`)
    OVERRIDE: ({"gm"}, True, {"gm"}),
    GM_ONLY: ({"gm"}, False, {"gm"}),
    GM_OR_ROOM: ({"gm", "room"}, False, {"gm", "room"}),
    ACTION: ({"gm", "controller"}, False, {"gm", "controller"}),
    PAUSE: ({"gm", "controller", "other"}, False, {"gm", "player"}),
    RESUME: ({"gm", "controller", "other"}, True, {"gm", "player"}),
    TIMER: ({"room"}, False, {"room"}),
}

# One command of each class, acting for ayla wherever it acts for someone.
SAMPLES: dict[type, tuple[str, Command]] = {
    # COMMON
    Pause: (PAUSE, Pause("ayla")),
    Resume: (RESUME, Resume("ayla")),
    RefusePause: (OVERRIDE, RefusePause()),
    Rewind: (OVERRIDE, Rewind(3)),
    # Verse: the flow
    WindowExpired: (TIMER, WindowExpired(1)),
    CloseWindow: (OVERRIDE, CloseWindow(1)),
    EndCombat: (OVERRIDE, EndCombat()),
    StartCombat: (GM_ONLY, StartCombat()),
    EndTurn: (ACTION, EndTurn("ayla")),
    Declare: (ACTION, Declare("ayla", (Attack("ayla", "gob"),))),
    Withdraw: (ACTION, Withdraw("ayla")),
    Answer: (ACTION, Answer("ayla", 1, "dodge")),
    PassWindow: (ACTION, PassWindow("ayla", 1)),
    # Verse: game actions
    Attack: (ACTION, Attack("ayla", "gob", "longsword")),
    Move: (ACTION, Move("ayla", (Cell(1, 1),))),
    Face: (ACTION, Face("ayla", 2)),
    OpportunityAttack: (ACTION, OpportunityAttack("ayla", "gob")),
    ChangeAscension: (ACTION, ChangeAscension("ayla", 1)),
    AscendAttack: (ACTION, AscendAttack("ayla", "gob")),
    Mount: (ACTION, Mount("ayla", "horse")),
    Dismount: (ACTION, Dismount("ayla", Cell(1, 1))),
    SetStance: (ACTION, SetStance("ayla", "defensive")),
    SetAwareness: (ACTION, SetAwareness("ayla", "on_guard")),
    StealthCheck: (ACTION, StealthCheck("ayla", "gob")),
    HoldAction: (ACTION, HoldAction("ayla")),
    UseItem: (ACTION, UseItem("ayla", "potion")),
    Counter: (ACTION, Counter("ayla", "gob")),
    KnockAway: (ACTION, KnockAway("ayla", "gob", "potion")),
    CastSpell: (ACTION, CastSpell("ayla", "spark", ("gob",))),
    ChargeSpell: (ACTION, ChargeSpell("ayla")),
    DecipherSpell: (ACTION, DecipherSpell("ayla", Spell("spark", 1))),
    PledgeMana: (ACTION, PledgeMana("ayla", "gob", "spark", 2)),
    # Verse: consequences the GM (or the room) triggers
    RideDestroyed: (GM_OR_ROOM, RideDestroyed("horse")),
    ConcentrationCheck: (GM_OR_ROOM, ConcentrationCheck("ayla")),
    # Verse: GM overrides
    ChooseCriticalRow: (OVERRIDE, ChooseCriticalRow("critical_hit", "ayla", 4)),
    SetHealth: (OVERRIDE, SetHealth("ayla", 5)),
    SetMana: (OVERRIDE, SetMana("ayla", 5)),
    SetArmour: (OVERRIDE, SetArmour("ayla", 5)),
    RecoverItem: (OVERRIDE, RecoverItem("ayla", "longsword")),
    ApproveFeat: (OVERRIDE, ApproveFeat("ayla", "counter")),
    WithdrawApproval: (OVERRIDE, WithdrawApproval("ayla", "counter")),
    SetAbility: (OVERRIDE, SetAbility("ayla", "strength", 1)),
    SetCondition: (OVERRIDE, SetCondition("ayla", "Stunned", 1)),
    RemoveCondition: (OVERRIDE, RemoveCondition("ayla", "Stunned")),
    SetConditionRule: (OVERRIDE, SetConditionRule(ConditionRule("Prone"))),
    RemoveConditionRule: (OVERRIDE, RemoveConditionRule("Prone")),
    SetPosition: (OVERRIDE, SetPosition("ayla", Cell(3, 3))),
    AddCombatant: (OVERRIDE, AddCombatant(fighter("ayla", "pc"))),
    RemoveCombatant: (OVERRIDE, RemoveCombatant("ayla")),
    SkipTurn: (OVERRIDE, SkipTurn()),
    SetSetting: (OVERRIDE, SetSetting("critical_tables", True)),
}

REGISTERED = sorted(
    {*COMMON.deciders, *RULESETS["verse"].deciders}, key=lambda c: (c.__module__, c.__name__)
)


def test_every_registered_command_has_a_kind() -> None:
    missing = [c.__name__ for c in REGISTERED if c not in SAMPLES]
    assert not missing, f"say who may send these (add them to SAMPLES): {missing}"
    stale = [c.__name__ for c in SAMPLES if c not in REGISTERED]
    assert not stale, f"no longer registered: {stale}"


def as_self(principal: Principal, command: Command) -> Command:
    """A command that names its sender (`by`) is sent by each principal as itself."""
    speaker = type(command).speaker
    if not speaker:
        return command
    me = "gm" if principal.role == "gm" else (principal.controls or ("nobody",))[0]
    return evolve(command, **{speaker: me})


def test_nobody_may_pause_or_resume_as_someone_else() -> None:
    assert may_issue(CONTROLLER, Pause(CONTROLLER.controls[0]))
    assert not may_issue(OTHER, Pause(CONTROLLER.controls[0]))  # a player as another
    assert not may_issue(OTHER, Resume("gm"))  # a player as the GM
    assert not may_issue(GM, Pause(CONTROLLER.controls[0]))  # the GM pauses as "gm"
    assert may_issue(GM, Resume("gm"))


@pytest.mark.parametrize("command_class", REGISTERED, ids=lambda c: c.__name__)
def test_who_may_send_each_command(command_class: type) -> None:
    kind, command = SAMPLES[command_class]
    assert type(command) is command_class
    allowed, while_paused, issuers = EXPECTED[kind]
    may = {
        who
        for who, principal in PRINCIPALS.items()
        if may_issue(principal, as_self(principal, command))
    }
    assert may == allowed, f"{command_class.__name__} ({kind})"
    assert command_class.while_paused is while_paused, f"{command_class.__name__} ({kind})"
    # Declared exactly: a "controller" on a command that names no actor would be dead.
    assert command_class.issuers == issuers, f"{command_class.__name__} ({kind})"


@pytest.mark.parametrize("who", ["controller", "other", "spectator", "room"])
@pytest.mark.parametrize(
    "command", [SetHealth("ayla", 1), SkipTurn(), AddCombatant(fighter("newt", "gm"))]
)
def test_an_override_from_anyone_but_the_gm_is_forbidden(who: str, command: Command) -> None:
    with pytest.raises(CommandRefused) as refused:
        authorize(PRINCIPALS[who], command)
    assert refused.value.code == FORBIDDEN
    authorize(GM, command)  # the GM may


def test_a_player_acts_only_for_the_combatants_it_controls() -> None:
    """A controller naming someone else's combatant as the actor is refused."""
    assert may_issue(CONTROLLER, Attack("ayla", "gob"))
    assert not may_issue(CONTROLLER, Attack("gob", "ayla"))
    assert not may_issue(CONTROLLER, StealthCheck("gob", "ayla"))
    both = Principal(Role.PLAYER, controls=("ayla", "horse"))
    assert may_issue(both, Mount("ayla", "horse")) and may_issue(both, Move("horse", ()))


def test_awareness_set_by_the_gm_flag_is_the_gms_alone() -> None:
    """`SetAwareness(gm=True)` skips the turn check (any combatant, any time): only the
    GM may send it; the combatant's own player may send the ordinary one."""
    assert may_issue(CONTROLLER, SetAwareness("ayla", "alert"))
    assert not may_issue(CONTROLLER, SetAwareness("ayla", "alert", gm=True))
    assert may_issue(GM, SetAwareness("ayla", "alert", gm=True))


# --- R74: a group cast's helpers are the sender's own ------------------------------------

BOTH = Principal(Role.PLAYER, controls=("ayla", "bea"), name="ayla and bea's player")
SPARK_HELPED_BY_GOB = CastSpell("ayla", "spark", ("gob",), helpers=(("gob", 2),))


@pytest.mark.parametrize(
    "command",
    [
        SPARK_HELPED_BY_GOB,
        Declare("ayla", (Move("ayla", (Cell(1, 1),)), SPARK_HELPED_BY_GOB)),
        Answer("ayla", 4, "hold", SPARK_HELPED_BY_GOB),
        Answer("ayla", 4, "adapt", SPARK_HELPED_BY_GOB),
    ],
    ids=["cast", "declared", "held", "adapted"],
)
def test_a_player_cannot_name_a_combatant_it_does_not_play_as_a_helper(
    command: Command,
) -> None:
    """gob is another seat's (or the GM's) combatant: ayla's player may not spend its
    mana, however the cast is sent. Its own player pledges it instead (`PledgeMana`)."""
    assert may_issue(CONTROLLER, command)  # ayla's own command...
    with pytest.raises(CommandRefused) as refused:
        authorize(CONTROLLER, command)  # ...but gob's mana is not hers to give
    assert refused.value.code == HELPER_NOT_CONSENTING
    assert "gob" in refused.value.message and "PledgeMana" in refused.value.message
    authorize(GM, command)  # the GM answers for every combatant
    authorize(Principal(Role.PLAYER, controls=("ayla", "gob")), command)  # one seat plays both


def test_a_seat_names_its_own_characters_as_helpers_and_others_as_pledged() -> None:
    authorize(BOTH, CastSpell("ayla", "spark", ("gob",), helpers=(("bea", 2),)))
    # `pledged` helpers consent in the state (their pledge), checked when the cast resolves.
    authorize(CONTROLLER, CastSpell("ayla", "spark", ("gob",), pledged=(("bea", 2),)))
    mixed = CastSpell("ayla", "spark", ("gob",), helpers=(("bea", 2), ("cid", 1), ("gob", 1)))
    with pytest.raises(CommandRefused) as refused:
        authorize(BOTH, mixed)
    assert refused.value.code == HELPER_NOT_CONSENTING
    assert "cid, gob" in refused.value.message


def test_a_pledge_is_made_by_the_helpers_own_player() -> None:
    assert may_issue(CONTROLLER, PledgeMana("ayla", "gob", "spark", 2))
    assert not may_issue(OTHER, PledgeMana("ayla", "gob", "spark", 2))  # the caster's player
