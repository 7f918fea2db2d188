"""Property tests of Live Combat (V19–V24): random commands from random roles.

A hypothesis state machine drives a Live Combat encounter of 3–6 Verse combatants, some
with the Counter or Quick Response feat, a healing potion, a shield, a longsword and a
shortbow. Its rules send every kind of command the flow takes (Declare, Withdraw,
Answer with the options offered, PassWindow, WindowExpired, CloseWindow, Pause, Resume,
RefusePause, PledgeMana; a declared spell may be a group cast, R74; the GM's overrides,
removing the combatant whose turn it is while others' answers wait, R63; conditions
drawn from the fight's random conditions table laid and cleared, and entries of that
table added, changed and taken out mid-fight, V27) and garbage
(unknown combatants, wrong window ids, answers by someone not asked, game actions sent
directly), each from a random principal: the GM, the room, a spectator, the player who
controls the combatant, or another player. A command is
decided only if `authority.may_issue` allows it (otherwise `authorize` must refuse it
with `forbidden`) and it commits no combatant its sender does not play (otherwise
`helper_not_consenting`).

Most commands are careful (well formed, from the right principal, about the open window;
the rules may still refuse them), one in five is careless; a bot rule lets everyone
asked in a reaction, counter or adapt window answer or pass in turn.

Invariants, after every step:
- a refused command leaves the state hash unchanged (and `decide` never changes it);
  while paused only `while_paused` commands are accepted (V24);
- nobody uses more than one Defensive Action (an answered "dodge" or "block") a round;
- each event fits the state it applies to: rounds count up by one, window ids count up,
  a window never opens over another, asks only able combatants, once each, and never
  the one whose action it answers;
- the stack is bounded (`stack_bound`, which says why) and its depths only grow upwards;
- health and mana stay in bounds;
- nothing is stuck: while anyone can act, a window is open (the flow only ever waits
  on a window; a stack without a window would wait forever);
- every round ends: with nobody else acting, the room's timers alone (`WindowExpired`)
  end the round within a bound computed from what is still to resolve;
- R78 refuses no declaration that could have become legal: every action that resolves
  in a round the GM did not overrule would have been accepted, had it been declared when
  the round's planning window opened;
- at the end, the log replays to the same state hash (also through its plain-data form).

A smaller test does the same through the room actor (fake clock, memory log and bus).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from server.bus.memory import MemoryBus
from server.engine import CommandRefused, Encounter, decide, execute, replay
from server.engine.authority import GM, ROOM, Principal, Role, authorize, may_issue, unconsented
from server.engine.commands import CloseWindow, Pause, RefusePause, Resume, WindowExpired
from server.engine.condition_table import RemoveConditionRule, SetConditionRule
from server.engine.core import Command, Event, apply
from server.engine.effects import ConditionRule
from server.engine.errors import FORBIDDEN, HELPER_NOT_CONSENTING
from server.engine.flow import Mode, WindowKind
from server.engine.grid import Cell
from server.engine.records import evolve, from_data, to_data
from server.engine.rulesets.verse import reactions as r
from server.engine.rulesets.verse.approval import ApproveFeat, WithdrawApproval
from server.engine.rulesets.verse.attacks import AggressiveOpportunitiesOpened, Attack, AttackRolled
from server.engine.rulesets.verse.declarations import check_declared
from server.engine.rulesets.verse.live import (
    MAX_DECLARED,
    ActionFinished,
    ActionLost,
    ActionStarted,
    Answer,
    Answered,
    Declare,
    PassWindow,
    Withdraw,
)
from server.engine.rulesets.verse.live_actions import Counter, HoldAction, KnockAway, UseItem
from server.engine.rulesets.verse.movement import Move, OpportunityAttack
from server.engine.rulesets.verse.overrides import (
    AddCombatant,
    RemoveCombatant,
    RemoveCondition,
    SetCondition,
    SetHealth,
    SetPosition,
    SetSetting,
    SkipTurn,
)
from server.engine.rulesets.verse.recovery import RecoverItem
from server.engine.rulesets.verse.sheet import Feat, FeatKind, Item, Spell
from server.engine.rulesets.verse.spell_mana import PledgeMana
from server.engine.rulesets.verse.spells import CastSpell
from server.engine.rulesets.verse.stances import SetStance
from server.engine.rulesets.verse.turns import EndTurn, RoundStarted, StartCombat, TurnStarted
from server.engine.rulesets.verse.windows import WindowOpened
from server.engine.state import Settings
from server.eventlog import Entry
from server.eventlog.memory import MemoryEventLog
from server.room import FakeClock, Room
from server.room.room import Ack
from tests.engine import condition_tables
from tests.engine.test_properties import check_bounds
from tests.engine.verse.builders import encounter, fighter, sheet
from tests.support.waiting import take, within

BOLT = Spell("Bolt", min_mc=2, uses_spell_die=True, base_spell_dice=1)
POTION = Item("potion", heal="2d4+2")
SPECTATOR = Principal(Role.SPECTATOR, name="watcher")
GHOST = "ghost"  # a combatant id that does not exist
WEAPONS = ("", "longsword", "shortbow", "club")  # "club": nobody has one
STANCES = ("none", "defensive", "aggressive")
ALL_OPTIONS = (
    r.DODGE,
    r.BLOCK,
    r.HOLD,
    r.HOLDER_DODGE,
    r.QUICK_RESPONSE,
    r.OPPORTUNITY,
    r.COUNTER,
    r.ADAPT,
    "declare",
)
# Known bugs, each pinned by a minimal `xfail(strict=True)` test below: the machine does not
# draw them, so it keeps hunting for others. Remove an entry when its test passes (none now).
KNOWN_BUGS: dict[str, str] = {}
DRAWN_OPTIONS = tuple(o for o in ALL_OPTIONS if o not in KNOWN_BUGS)
# The principals of a careless command (a careful one comes from the right principal).
OVERRIDES = (
    "health", "condition", "condition", "uncondition", "position", "skip", "remove", "add",
    "recover", "setting", "approve", "withdraw approval", "rule", "unrule",
)  # fmt: skip
CONDITIONS = ("Stunned", "Stunned", "Shaken", "Unconscious", "Dead")
WHO = ("right", "gm", "room", "spectator", "other")

Draw = Any  # hypothesis' `data.draw`


@st.composite
def traits(draw: Draw) -> dict[str, Any]:
    """What one combatant brings: feats, a potion, a shield, how much health."""
    feats = []
    if draw(st.booleans()):
        feats.append(Feat("Riposte", FeatKind.COUNTER))
    if draw(st.booleans()):
        feats.append(Feat("Quick Hands", FeatKind.QUICK_RESPONSE))
    return {
        "feats": tuple(feats),
        "items": (POTION,) if draw(st.booleans()) else (),
        "shield": "shield" if draw(st.booleans()) else "",
        "health": draw(st.integers(min_value=4, max_value=24)),
    }


def cast(
    seed: int,
    members: list[dict[str, Any]],
    undeclared: str,
    rules: tuple[ConditionRule, ...] = (),
) -> Encounter:
    """Two sides facing each other in two rows, so most fighters have a foe adjacent."""
    fighters = []
    for i, t in enumerate(members):
        cid = f"f{i}"
        side, row = ("heroes", 0) if i % 2 == 0 else ("foes", 1)
        base = sheet(
            cid,
            health=t["health"],
            mana=6,
            feats=t["feats"],
            items=t["items"],
            shield=t["shield"],
            spells=(BOLT,),
        )
        fighters.append(fighter(cid, side, x=i // 2, y=row, sheet_=base))
    return encounter(
        *fighters,
        seed=seed,
        mode=Mode.LIVE,
        settings=Settings(undeclared=undeclared),
        condition_rules=rules,  # V27: what the conditions the GM lays do
    )


def player(cid: str) -> Principal:
    return Principal(Role.PLAYER, controls=(cid,), name=cid)


def stack_bound(state: Encounter) -> int:
    """The most entries `state.pending` can hold, read off the flow's code.

    Depth 0: at most one entry, the declared (or adapted) action being resolved: the
    flow pushes the next declared action only on an empty stack (`live.advance`).
    Depth k >= 1: the answers of one window of depth k (a reaction window about the
    entry below, or a counter window after an attack), one per combatant asked, and
    never the acting combatant: at most n - 1. Entries of one depth come from one window
    at a time, because everything a window pushed resolves before the entry below it
    reaches the top. No window opens for an entry of depth >= MAX_STACK_DEPTH
    (`reactions.reaction_asks`, `counter_asks`), so depths stop at MAX_STACK_DEPTH.
    Hence 1 + MAX_STACK_DEPTH * (n - 1). (It is MAX_STACK_DEPTH + 1 when each window
    gets a single answer that pushes an action.) The one window opened without a depth
    check, an Aggressive attacker's own opportunity window (V18), opens once the attack
    has left the stack and pushes one attack of opportunity: it takes the attack's place,
    so the count holds (its depth does not: see `stack_is_bounded`).
    """
    return 1 + r.MAX_STACK_DEPTH * max(0, len(state.combatants) - 1)


def answerable(state: Encounter) -> bool:
    """A reaction, counter or adapt window is open and someone may still answer it."""
    window = state.window
    return (
        window is not None
        and window.kind != WindowKind.PLANNING
        and bool(window.waiting_for)
        and not state.paused_by
    )


def others_answers_wait(state: Encounter) -> bool:
    """A turn is being played and someone else's answer waits on the stack (R63)."""
    current = state.current
    return current is not None and any(p.actor != current for p in state.pending)


def anyone_active(state: Encounter) -> bool:
    return any(c.active for c in state.combatants.values())


def expiries_to_end_round(state: Encounter) -> int:
    """How many `WindowExpired` at most end the round when nobody else acts.

    Each action still to resolve (on the stack or declared) can open at most three
    windows, one of each kind: its reaction window, an adapt window if its target is gone
    (an expired adapt window loses the action), a counter window after it (weapon
    attacks). A window that expires pushes nothing. Then the planning window of this
    round, if open, and one `HoldAction` per turn slot for the "hold" setting.
    """
    actions = len(state.pending) + sum(len(d.actions) for d in state.declarations)
    if state.window is not None and state.window.kind == WindowKind.PLANNING:
        actions += len(state.turn_order) * MAX_DECLARED
    return 1 + 3 * actions


class LiveCombat(RuleBasedStateMachine):
    """One Live Combat encounter, commanded at random by everyone at once."""

    def __init__(self) -> None:
        super().__init__()
        self.initial: Encounter | None = None
        self.state: Encounter
        self.log: list[Event] = []
        self.defended: set[tuple[int, str]] = set()  # (round, combatant) Defensive Actions
        self.added = 0  # combatants the GM added (`gm_overrides`), for fresh ids
        self.health_set = False  # the GM set someone's health (R63: 0 is not death then)
        self.failed = False
        # R78: the state when this round's planning window opened, whether the GM has
        # overruled anything since, and the action resolving now.
        self.planned: Encounter | None = None
        self.overruled = False
        self.started: ActionStarted | None = None

    # -- setup and the one gate every command goes through -----------------------------

    @initialize(
        seed=st.integers(min_value=0, max_value=2**32),
        members=st.lists(traits(), min_size=3, max_size=6),
        undeclared=st.sampled_from(["pass", "hold"]),
        rules=condition_tables.table("verse"),
    )
    def start(
        self,
        seed: int,
        members: list[dict[str, Any]],
        undeclared: str,
        rules: tuple[ConditionRule, ...],
    ) -> None:
        self.initial = cast(seed, members, undeclared, rules)
        self.state, events = execute(self.initial, StartCombat())
        self.log = list(events)
        self.planned = self.state

    def send(self, principal: Principal, command: Command) -> list[Event] | None:
        """Authorize, decide and apply `command` as the room would; None when refused."""
        self.failed = True  # until it returns: then teardown checks nothing more
        events = self.decide_and_apply(principal, command)
        self.failed = False
        return events

    def decide_and_apply(self, principal: Principal, command: Command) -> list[Event] | None:
        before = self.state.state_hash()
        if not may_issue(principal, command):
            with pytest.raises(CommandRefused) as refused:
                authorize(principal, command)
            assert refused.value.code == FORBIDDEN
            return None
        if unconsented(principal, command):  # R74: a helper its sender does not play
            with pytest.raises(CommandRefused) as refused:
                authorize(principal, command)
            assert refused.value.code == HELPER_NOT_CONSENTING
            return None
        authorize(principal, command)
        try:
            events = decide(self.state, command)
        except CommandRefused:
            assert self.state.state_hash() == before, "a refused command changed the state"
            return None
        assert self.state.state_hash() == before, "decide changed its input"
        if self.state.paused_by:
            assert type(command).while_paused, f"{command} accepted while paused (V24)"
        for event in events:
            self.check_event(self.state, event)
            condition_tables.packs(event)  # every number fits the wire (R82)
            self.state = apply(self.state, event)
        self.log.extend(events)
        return events

    def check_event(self, state: Encounter, event: Event) -> None:
        """Each event against the state it applies to."""
        if isinstance(event, RoundStarted):
            assert event.round == state.round + 1, "rounds count up one at a time"
        elif isinstance(event, WindowOpened):
            window = event.window
            assert window.id == state.windows_opened + 1, "window ids count up"
            assert state.window is None, "a window opened over an open window"
            asked = [a.combatant for a in window.asked]
            assert len(set(asked)) == len(asked), f"asked twice: {asked}"
            assert all(state.combatants[cid].active for cid in asked), "asked a fallen one"
            own = window.ask_of(window.about)
            if window.kind == WindowKind.REACTION and window.subject >= 0:
                assert own is None, "asked to answer its own action"
            elif window.kind in (WindowKind.REACTION, WindowKind.COUNTER) and own is not None:
                # V18: after its attack, an Aggressive attacker takes its own opportunities.
                assert own.options == (r.OPPORTUNITY,), "the attacker answers its own action"
            if window.kind == WindowKind.PLANNING:
                self.planned, self.overruled = state, False
        elif isinstance(event, Answered) and event.option in (r.DODGE, r.BLOCK):
            # V22: one Defensive Action (Dodge or Block) per combatant per round.
            key = (state.round, event.combatant)
            assert key not in self.defended, f"{key}: a second Defensive Action this round"
            self.defended.add(key)
        elif isinstance(event, ActionStarted):
            self.started = event
        elif isinstance(event, ActionFinished):
            self.check_declarable(event.actor)

    def check_declarable(self, actor: str) -> None:
        """R78: an action that resolved could have been declared when this round's
        planning window opened: it was never out of every reach, and so on. Not after the
        GM overruled something this round: what the GM does is not waited for."""
        started, self.started = self.started, None
        planned = self.planned
        if started is None or started.actor != actor or planned is None or self.overruled:
            return
        then = planned.combatants.get(actor)
        if then is None:
            return
        try:
            check_declared(planned, then, (started.action,))
        except CommandRefused as refused:
            raise AssertionError(
                f"{started.action} resolved in round {planned.round}, but R78 would have "
                f"refused it when declared: {refused}"
            ) from refused

    # -- what the commands are made of ---------------------------------------------------

    def careful(self, data: st.DataObject) -> bool:
        """Four commands in five are what a careful player sends; the fifth is careless.

        A careful command is well formed (the right principal, the open window, someone
        asked, an option offered, a plausible action) but may still be refused by the
        rules; a careless one gets each part at random. Shrinks towards careful.
        """
        return data.draw(st.integers(min_value=0, max_value=4), label="careless?") != 4

    def principal(self, data: st.DataObject, actor: str, careful: bool = True) -> Principal:
        """The player controlling `actor` (the GM for an unknown id) when careful, else
        anyone: the GM, the room, a spectator, another player."""
        ids = sorted(self.state.combatants)
        who = "right" if careful else data.draw(st.sampled_from(WHO), label="who")
        if who == "right":
            return player(actor) if actor in ids else GM
        if who == "other":
            others = [cid for cid in ids if cid != actor] or [GHOST]  # all others removed
            return player(data.draw(st.sampled_from(others), label="other player"))
        return {"gm": GM, "room": ROOM, "spectator": SPECTATOR}[who]

    def someone(self, data: st.DataObject, label: str) -> str:
        """A combatant id, now and then one that does not exist."""
        return data.draw(st.sampled_from([*sorted(self.state.combatants), GHOST]), label=label)

    def foe_of(self, data: st.DataObject, actor: str) -> str:
        """A living enemy of `actor` (anyone alive when it has none)."""
        combatants = self.state.combatants
        me = combatants.get(actor)
        alive: list[str] = [c.id for c in combatants.values() if c.alive and c.id != actor]
        foes = [cid for cid in alive if me is None or combatants[cid].side != me.side]
        return data.draw(st.sampled_from(sorted(foes or alive or [GHOST])), label="foe")

    def window_id(self, data: st.DataObject, careful: bool = True) -> int:
        """The open window's id when careful; else the last one, the next one or nonsense."""
        window = self.state.window
        if careful and window is not None:
            return window.id
        opened = self.state.windows_opened
        return data.draw(st.sampled_from([opened, opened - 1, opened + 1, -1]), label="window")

    def game_action(self, data: st.DataObject, actor: str, careful: bool = True) -> Command:
        """One action `actor` could declare (or adapt to): on a living foe when careful."""
        kind = data.draw(
            st.sampled_from(["attack", "attack", "attack", "move", "stance", "item", "spell"]),
            label="action",
        )
        target = self.foe_of(data, actor) if careful else self.someone(data, "target")
        if kind == "attack":
            weapons = ("longsword", "longsword", "shortbow", "") if careful else WEAPONS
            return Attack(actor, target, data.draw(st.sampled_from(weapons), label="weapon"))
        if kind == "move":
            me = self.state.combatants.get(actor)
            here = me.position if me is not None else Cell(0, 0)
            dx, dy = data.draw(st.sampled_from([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)]))
            # careful: within one move (30 ft); careless: up to 45 ft (R78: `too_far`)
            steps = data.draw(st.sampled_from([1, 1, 1, 2, 3, 6] if careful else [1, 7, 9]))
            path = tuple(Cell(here.x + k * dx, here.y + k * dy) for k in range(1, steps + 1))
            return Move(actor, path)
        if kind == "stance":
            return SetStance(actor, data.draw(st.sampled_from(STANCES), label="stance"))
        if kind == "item":
            item = "potion" if careful else data.draw(st.sampled_from(["potion", "elixir"]))
            return UseItem(actor, item)
        extra = data.draw(st.integers(min_value=0, max_value=1), label="extra dice")
        cast = CastSpell(actor, BOLT.name, targets=(target,), extra_spell_dice=extra)
        helping = data.draw(st.sampled_from(["alone", "alone", "pledged", "helper"]))
        if helping == "alone":
            return cast
        # V12, R74: a share of someone else's, named as a helper (refused unless its
        # sender plays it) or pledged: careful, by one that pledged to this caster.
        helper, most = self.someone(data, "helper"), 2
        if careful:  # R78: a helper not in the fight is refused when declared
            helper = data.draw(st.sampled_from(sorted(self.state.combatants) or [GHOST]))
        pledgers = [
            (c.id, p.share)
            for c in self.state.combatants.values()
            for p in c.pledges
            if p.caster == actor and p.spell == BOLT.name
        ]
        if careful and helping == "pledged" and pledgers:
            helper, most = data.draw(st.sampled_from(sorted(pledgers)), label="pledger")
        share = ((helper, data.draw(st.integers(1, max(1, most)), label="share")),)
        return evolve(cast, pledged=share) if helping == "pledged" else evolve(cast, helpers=share)

    def answer_action(
        self, data: st.DataObject, actor: str, option: str, careful: bool = True
    ) -> Command | None:
        """The action an answer with `option` takes (V19, V22, V23); careless: any."""
        window = self.state.window
        about = window.about if window is not None else GHOST
        if not careful:
            return data.draw(
                st.sampled_from(
                    [
                        None,
                        HoldAction(actor),
                        Counter(GHOST, about),
                        Counter(actor, actor),
                        EndTurn(actor),
                        KnockAway(actor, about, "potion"),
                        OpportunityAttack(actor, about),
                        Attack(actor, about, "longsword"),
                    ]
                ),
                label="any action",
            )
        weapon = data.draw(st.sampled_from(["longsword", "longsword", "shortbow", ""]))
        if option == r.HOLD:
            held = data.draw(st.sampled_from(["attack", "attack", "item", "stance"]))
            if held == "attack":
                return Attack(actor, self.foe_of(data, actor), weapon)
            return UseItem(actor, "potion") if held == "item" else SetStance(actor, "defensive")
        if option == r.QUICK_RESPONSE:
            return KnockAway(actor, about, "potion")
        if option == r.OPPORTUNITY:
            return OpportunityAttack(actor, about, weapon)
        if option == r.COUNTER:
            return Counter(actor, about, weapon)
        if option == r.ADAPT:
            if data.draw(st.integers(min_value=0, max_value=3), label="give up?") == 3:
                return None
            return self.game_action(data, actor)
        return None

    # -- rules ---------------------------------------------------------------------------

    @rule(data=st.data())
    def declare(self, data: st.DataObject) -> None:
        """V20: one or more combatants declare (careful: those still asked); or one
        withdraws a declaration."""
        if data.draw(st.integers(min_value=0, max_value=7), label="withdraw?") == 7:
            self.withdraw(data)
            return
        window = self.state.window
        waiting = list(window.waiting_for) if window is not None else []
        count = data.draw(st.integers(min_value=1, max_value=max(1, len(waiting))))
        for _ in range(count):
            careful = self.careful(data)
            if careful and waiting:
                actor = data.draw(st.sampled_from(waiting), label="declarer")
            else:
                actor = self.someone(data, "declarer")
            # Everyone here has one turn a round (30 ft of speed, V16): turn 1 or 2 is wrong.
            turn = 0 if careful else data.draw(st.integers(min_value=0, max_value=2))
            if data.draw(st.integers(min_value=0, max_value=5), label="hold?") == 5:
                actions: tuple[Command, ...] = (HoldAction(actor),)
            else:
                n = data.draw(st.integers(min_value=0 if not careful else 1, max_value=3))
                actions = tuple(self.game_action(data, actor, careful) for _ in range(n))
            self.send(self.principal(data, actor, careful), Declare(actor, actions, turn))

    def withdraw(self, data: st.DataObject) -> None:
        actor = self.someone(data, "withdrawer")
        careful = self.careful(data)
        turn = 0 if careful else data.draw(st.integers(min_value=0, max_value=3))
        self.send(self.principal(data, actor, careful), Withdraw(actor, turn))

    @rule(data=st.data())
    def pledge(self, data: st.DataObject) -> None:
        """R74: a combatant's player pledges a share of someone's Bolt, or takes it back
        (0), whatever window is open; careless: from anyone, a negative share."""
        careful = self.careful(data)
        helper = self.someone(data, "pledger")
        caster = self.someone(data, "caster")
        share = data.draw(st.integers(min_value=0 if careful else -1, max_value=2))
        command = PledgeMana(helper, caster, BOLT.name, share)
        self.send(self.principal(data, helper, careful), command)

    @precondition(lambda self: self.state.window is not None)
    @rule(data=st.data())
    def answer(self, data: st.DataObject) -> None:
        """Answer the open window: careful, as someone asked with an option offered."""
        self.answer_once(data, self.careful(data))

    @precondition(lambda self: answerable(self.state))
    @rule(data=st.data())
    def everyone_answers(self, data: st.DataObject) -> None:
        """Every combatant asked in the open reaction, counter or adapt window answers
        or passes, one after the other, as bots would."""
        window = self.state.window
        assert window is not None
        for actor in window.waiting_for:
            now = self.state.window
            if now is None or now.id != window.id:
                break  # the window closed (and maybe another opened): this one is done
            if data.draw(st.integers(min_value=0, max_value=3), label="pass?") == 0:
                self.send(player(actor), PassWindow(actor, window.id))
            else:
                self.answer_once(data, True, actor)

    def answer_once(self, data: st.DataObject, careful: bool, actor: str = "") -> None:
        window = self.state.window
        assert window is not None
        if careful and window.kind == WindowKind.PLANNING:
            careful = False  # a planning window takes declarations, not answers
        waiting = list(window.waiting_for)
        if actor:
            waiting = [actor]
        if careful and waiting:
            actor = data.draw(st.sampled_from(waiting), label="answerer")
        else:
            actor = self.someone(data, "answerer")
        ask = window.ask_of(actor)
        offered = [o for o in ask.options if o not in KNOWN_BUGS] if ask is not None else []
        if careful and offered:
            option = data.draw(st.sampled_from(offered), label="option")
        else:
            option = data.draw(st.sampled_from(DRAWN_OPTIONS), label="option")
        action = self.answer_action(data, actor, option, careful and self.careful(data))
        command = Answer(actor, self.window_id(data, careful), option, action)
        self.send(self.principal(data, actor, careful), command)

    @precondition(lambda self: self.state.window is not None)
    @rule(data=st.data())
    def pass_window(self, data: st.DataObject) -> None:
        window = self.state.window
        assert window is not None
        careful = self.careful(data)
        waiting = list(window.waiting_for)
        if careful and waiting:
            actor = data.draw(st.sampled_from(waiting), label="passer")
        else:
            actor = self.someone(data, "passer")
        command = PassWindow(actor, self.window_id(data, careful))
        self.send(self.principal(data, actor, careful), command)

    @rule(data=st.data())
    def timers(self, data: st.DataObject) -> None:
        """Time passes: a window expires (or someone pretends it did), the GM closes it,
        or every window of the round runs out."""
        what = data.draw(st.sampled_from(["expire", "expire", "close", "run out"]))
        if what == "run out":
            self.run_out_the_round()
            return
        careful = self.careful(data)
        window = self.window_id(data, careful)
        if what == "expire":
            principal = ROOM if careful else self.principal(data, "f0", careful=False)
            self.send(principal, WindowExpired(window))
        else:
            principal = GM if careful else self.principal(data, "f1", careful=False)
            self.send(principal, CloseWindow(window))

    @rule(data=st.data())
    def pauses(self, data: st.DataObject) -> None:
        """V24: pause, resume, or the GM refuses a pause."""
        what = data.draw(st.sampled_from(["pause", "resume", "refuse"]), label="pause")
        {"pause": self.pause, "resume": self.resume, "refuse": self.refuse_pause}[what](data)

    def pause(self, data: st.DataObject) -> None:
        """V24: any player (as its own combatant) or the GM pauses."""
        actor = self.someone(data, "pauser")
        careful = self.careful(data)
        principal = self.principal(data, actor, careful)
        self.send(principal, Pause(self.speaker(data, principal, careful)))

    def resume(self, data: st.DataObject) -> None:
        """V24: the player who paused, another player, or the GM lifts the pause."""
        paused_by = self.state.paused_by
        careful = self.careful(data)
        if careful and paused_by in self.state.combatants:
            actor = paused_by
        else:
            actor = self.someone(data, "resumer")
        principal = self.principal(data, actor, careful)
        if careful and paused_by == "gm":
            principal = GM
        self.send(principal, Resume(self.speaker(data, principal, careful)))

    def speaker(self, data: st.DataObject, principal: Principal, careful: bool) -> str:
        """Who a Pause or Resume names: its sender when careful; else anyone (a player
        naming the GM or another player must be refused, V24)."""
        if careful:
            if principal.role == Role.PLAYER:
                return principal.controls[0]
            return "gm" if principal.role == Role.GM else ""
        return data.draw(st.sampled_from(["gm", "", *sorted(self.state.combatants)]))

    def refuse_pause(self, data: st.DataObject) -> None:
        careful = self.careful(data)
        principal = GM if careful else self.principal(data, "f0", careful=False)
        self.send(principal, RefusePause())

    @rule(data=st.data())
    def gm_overrides(self, data: st.DataObject) -> None:
        """R63, R72: the GM overrules at any moment, paused or not, in any window: health,
        conditions that take a combatant out or bring it back, a place, a skipped turn,
        a combatant removed or added, an item recovered, a setting. Careless: from
        someone who is not the GM (`forbidden`)."""
        cid = self.someone(data, "overruled")
        c = self.state.combatants.get(cid)
        kind = data.draw(st.sampled_from(OVERRIDES), label="override")
        command: Command
        if kind == "health":
            most = c.sheet.health if c is not None else 20
            command = SetHealth(cid, data.draw(st.integers(min_value=0, max_value=most)))
        elif kind == "condition":  # one the rules define, or one the table rules (V27)
            ruled = [rule.name for rule in self.state.condition_rules]
            pool = [*CONDITIONS, *ruled, *ruled, *ruled]  # mostly the table's, when it has any
            name = data.draw(st.sampled_from(pool), label="condition")
            command = SetCondition(cid, name, data.draw(st.sampled_from([None, 1, 2])))
        elif kind == "uncondition":
            names = [x.name for x in c.conditions] if c is not None else []
            command = RemoveCondition(cid, data.draw(st.sampled_from(names or ["Stunned"])))
        elif kind == "position":
            x, y = data.draw(st.integers(-1, 3), label="x"), data.draw(st.integers(-1, 2))
            command = SetPosition(cid, Cell(x, y))
        elif kind == "skip":
            command = SkipTurn()
        elif kind == "remove":
            command = RemoveCombatant(cid)
        elif kind == "add":
            self.added += 1
            side = data.draw(st.sampled_from(["heroes", "foes"]), label="side")
            x, y = data.draw(st.integers(-1, 4), label="x"), data.draw(st.integers(-1, 2))
            command = AddCombatant(fighter(f"n{self.added}", side, x=x, y=y))
        elif kind in ("approve", "withdraw approval"):
            feat = data.draw(st.sampled_from(["counter", "quick_response", "defensive"]))
            command = ApproveFeat(cid, feat) if kind == "approve" else WithdrawApproval(cid, feat)
        elif kind == "rule":  # V27: the GM adds or changes an entry of the table
            command = SetConditionRule(data.draw(condition_tables.rule("verse"), label="rule"))
        elif kind == "unrule":
            ruled = [rule.name for rule in self.state.condition_rules]
            command = RemoveConditionRule(data.draw(st.sampled_from([*ruled, "Nothing"])))
        elif kind == "recover":
            item = data.draw(st.sampled_from(["longsword", "shortbow", "shield"]))
            command = RecoverItem(cid, item)
        else:
            command = SetSetting("undeclared", data.draw(st.sampled_from(["pass", "hold"])))
        careful = self.careful(data)
        principal = GM if careful else self.principal(data, cid, careful=False)
        # R78 does not wait on the GM: from here on this round, a resolved action may be
        # one only the override made legal (set before: the flow may go on in its batch).
        self.overruled = self.overruled or principal == GM
        if self.send(principal, command) is not None and kind in ("health", "uncondition"):
            self.health_set = True  # R63: a set health, or a Dead condition taken off

    @precondition(lambda self: bool(self.state.condition_rules))
    @rule(data=st.data())
    def lay_a_ruled_condition(self, data: st.DataObject) -> None:
        """V27: the GM lays or clears a condition the fight's table rules, so what the
        table says (numbers, lost actions, damage, drain, saves) is played often."""
        cid = data.draw(st.sampled_from(sorted(self.state.combatants)), label="on")
        name = data.draw(st.sampled_from([r.name for r in self.state.condition_rules]))
        c = self.state.combatants[cid]
        command: Command = SetCondition(cid, name, data.draw(st.sampled_from([None, 1, 3])))
        if c.has(name) and data.draw(st.booleans(), label="clear"):
            command = RemoveCondition(cid, name)
        self.overruled = True  # R78 does not wait on the GM
        self.send(GM, command)

    @rule(data=st.data())
    def rule_a_condition_at_the_edge(self, data: st.DataObject) -> None:
        """R82: the GM rules a condition at the edge of what a table may say (twenty
        factors of 10 on a defence, a resistance, a speed or a sight; twenty bonuses of
        ±1000) and lays it on someone, so the numbers the fight then computes (and every
        event, `packs`) meet the bounds often."""
        made = data.draw(condition_tables.rule("verse", at_edge=True), label="edge rule")
        cid = data.draw(st.sampled_from(sorted(self.state.combatants)), label="on")
        self.overruled = True  # R78 does not wait on the GM
        if self.send(GM, SetConditionRule(made)) is not None:
            self.send(GM, SetCondition(cid, made.name, None))

    @precondition(lambda self: others_answers_wait(self.state))
    @rule()
    def remove_the_one_whose_turn_it_is(self) -> None:
        """R63: the GM removes the combatant whose turn it is while answers others gave
        wait on the stack. Only its own actions go; the others' stay (nothing of theirs
        is lost for its leaving) and resolve before the next turn starts."""
        current = self.state.current
        assert current is not None
        self.overruled = True  # R78 does not wait on the GM
        events = self.send(GM, RemoveCombatant(current))
        assert events is not None
        left = f"{current} left the fight"
        lost = [e for e in events if isinstance(e, ActionLost) and e.reason == left]
        assert all(e.actor == current for e in lost), lost
        assert all(p.actor != current for p in self.state.pending)
        if not any(isinstance(e, TurnStarted | RoundStarted) for e in events):
            # The answers still wait (a window, a pause): the turn is over, no other yet.
            assert self.state.turn_over and self.state.current is None

    @rule(data=st.data())
    def garbage(self, data: st.DataObject) -> None:
        """Commands that must be refused: actions sent directly, turns that do not exist."""
        actor = self.someone(data, "actor")
        window = self.window_id(data, careful=False)
        command = data.draw(
            st.sampled_from(
                [
                    Attack(actor, self.someone(data, "target"), "longsword"),
                    Move(actor, (Cell(0, 0),)),
                    HoldAction(actor),
                    UseItem(actor, "potion"),
                    EndTurn(actor),
                    StartCombat(),
                    Declare(actor, (Attack(GHOST, actor),)),
                    Declare(actor, (), 7),
                    Withdraw(actor, 3),
                    Answer(GHOST, window, r.DODGE),
                    PassWindow(GHOST, window),
                ]
            ),
            label="garbage",
        )
        principal = self.principal(data, actor, self.careful(data))
        before = self.state.state_hash()
        events = self.send(principal, command)
        assert events is None, f"{command} was accepted: {events}"
        assert self.state.state_hash() == before

    def run_out_the_round(self) -> None:
        """Every round ends: nobody acts, the room's timers alone end it."""
        if self.state.paused_by:
            assert self.send(GM, RefusePause()) is not None
        round_ = self.state.round
        limit = expiries_to_end_round(self.state)
        for _ in range(limit):
            if self.state.round > round_ or not anyone_active(self.state):
                return
            window = self.state.window
            assert window is not None, "stuck: no window while someone can act"
            assert self.send(ROOM, WindowExpired(window.id)) is not None
        assert self.state.round > round_ or not anyone_active(self.state), (
            f"round {round_} did not end after {limit} expired windows"
        )

    # -- invariants ----------------------------------------------------------------------

    @invariant()
    def in_bounds(self) -> None:
        if self.initial is not None:
            check_bounds(self.state, zero_health_is_death=not self.health_set)

    @invariant()
    def packs(self) -> None:
        """The state goes on the wire whole (a snapshot): no number past 64 bits (R82)."""
        if self.initial is not None:
            condition_tables.packs(self.state)

    @invariant()
    def stack_is_bounded(self) -> None:
        if self.initial is None:
            return
        pending = self.state.pending
        assert len(pending) <= stack_bound(self.state), pending
        depths = [p.depth for p in pending]
        assert depths == sorted(depths), f"answers sit above what they answer: {depths}"
        assert depths.count(0) <= 1, depths
        for entry in pending:
            # An Aggressive attacker's own opportunity windows (V18) open one after the
            # other, each one deeper, with no depth check (`live.resolve_top`): a chain as
            # long as its engaged foes, one entry on the stack at a time.
            limit = r.MAX_STACK_DEPTH
            if entry.source == r.OPPORTUNITY:
                limit += len(self.state.combatants) - 1
            assert entry.depth <= limit, pending

    @invariant()
    def never_stuck(self) -> None:
        """While anyone can act, the flow waits on an open window; nothing else waits."""
        if self.initial is None:
            return
        state = self.state
        if state.paused_by:
            return  # V24: it waits on the pause (a GM override may have closed the window)
        assert not (state.window is None and state.pending), "a stack with no window"
        if anyone_active(state):
            assert state.window is not None, "nobody is asked anything: the fight is stuck"

    def teardown(self) -> None:
        if self.initial is None or self.failed:
            return  # no fight, or a step failed already: hypothesis reports that one
        self.run_out_the_round()
        final = self.state.state_hash()
        assert replay(self.initial, self.log).state_hash() == final
        stored = [from_data(to_data(event)) for event in self.log]
        assert replay(self.initial, stored).state_hash() == final


LiveCombat.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestLiveCombat = LiveCombat.TestCase


# --- the room ---------------------------------------------------------------------------


def careful_command(state: Encounter, data: st.DataObject) -> tuple[Principal, Command] | None:
    """What the player asked by the open window would send: a declaration, or an answer
    with an option offered (and the action it takes), or a pass."""
    window = state.window
    if window is None or not window.waiting_for or state.paused_by:
        return None
    actor = data.draw(st.sampled_from(window.waiting_for), label="asked")
    foes = sorted(
        c.id
        for c in state.combatants.values()
        if c.alive and c.side != state.combatants[actor].side
    )
    foe = data.draw(st.sampled_from(foes or [actor]), label="foe")
    if window.kind == WindowKind.PLANNING:
        plan = data.draw(st.sampled_from(["attack", "attack", "stance and attack", "hold"]))
        actions: tuple[Command, ...] = {
            "attack": (Attack(actor, foe, "longsword"),),
            "stance and attack": (SetStance(actor, "defensive"), Attack(actor, foe, "shortbow")),
            "hold": (HoldAction(actor),),
        }[plan]
        return player(actor), Declare(actor, actions)
    ask = window.ask_of(actor)
    assert ask is not None
    option = data.draw(st.sampled_from([*ask.options, "pass"]), label="option")
    takes: dict[str, Command | None] = {
        r.HOLD: Attack(actor, foe, "longsword"),
        r.QUICK_RESPONSE: KnockAway(actor, window.about, "potion"),
        r.OPPORTUNITY: OpportunityAttack(actor, window.about, "longsword"),
        r.COUNTER: Counter(actor, window.about, "longsword"),
        r.ADAPT: Attack(actor, foe, "shortbow"),
    }
    if option == "pass":
        return player(actor), PassWindow(actor, window.id)
    return player(actor), Answer(actor, window.id, option, takes.get(option))


def careless_command(
    state: Encounter, data: st.DataObject, principals: list[Principal]
) -> tuple[Principal, Command]:
    """Anything from anyone: a spectator answering, the room declaring, a stale window."""
    principal = data.draw(st.sampled_from(principals), label="principal")
    actor = principal.controls[0] if principal.controls else "f0"
    window_id = data.draw(st.sampled_from([state.windows_opened, state.windows_opened - 1]))
    foe = data.draw(st.sampled_from(sorted(state.combatants)), label="foe")
    option = data.draw(st.sampled_from(DRAWN_OPTIONS), label="option")
    command = data.draw(
        st.sampled_from(
            [
                Declare(actor, (Attack(actor, foe, "longsword"),)),
                Declare(actor, (HoldAction(actor),)),
                Answer(actor, window_id, option, Counter(actor, foe, "longsword")),
                Answer(actor, window_id, option),
                PassWindow(actor, window_id),
                WindowExpired(window_id),
                CloseWindow(window_id),
                Pause(actor if principal.role == Role.PLAYER else "gm"),
                Resume(actor if principal.role == Role.PLAYER else "gm"),
                RefusePause(),
            ]
        ),
        label="command",
    )
    return principal, command


async def drive_room(seed: int, members: list[dict[str, Any]], data: st.DataObject) -> list[Ack]:
    """Commands from the players asked and from anyone, and waits on the fake clock (its
    timers send `WindowExpired`); returns the acks (the test finds them in the log)."""
    rules = data.draw(condition_tables.table("verse"), label="conditions table")
    initial = cast(seed, members, data.draw(st.sampled_from(["pass", "hold"])), rules)
    clock, log, bus = FakeClock(), MemoryEventLog(), MemoryBus[Entry]()
    room = Room("live", initial, log=log, bus=bus, clock=clock)
    await room.start()
    heard = await bus.subscribe("live", limit=100_000)
    acks: list[Ack] = []
    principals = [GM, ROOM, SPECTATOR, *(player(cid) for cid in sorted(initial.combatants))]
    try:
        acks.append(await room.submit(GM, StartCombat()))
        for _ in range(data.draw(st.integers(min_value=1, max_value=60), label="steps")):
            state = room.state
            what = data.draw(st.sampled_from(["careful"] * 6 + ["careless", "wait"]))
            if what == "wait":
                await clock.advance(data.draw(st.floats(min_value=0.0, max_value=60.0)))
                continue
            sent = careful_command(state, data) if what == "careful" else None
            principal, command = sent or careless_command(state, data, principals)
            try:
                acks.append(await room.submit(principal, command))
            except CommandRefused:
                assert room.state.state_hash() == state.state_hash(), "a refused command"
        await clock.advance(1_000.0)  # every timer that is running fires
        entries = await log.read("live")
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        assert room.version == len(entries)
        events = [entry.event for entry in entries]
        assert replay(initial, events).state_hash() == room.state.state_hash()
        for ack in acks:
            assert events[ack.first_seq - 1 : ack.last_seq] == list(ack.events)
        heard_entries = await take(heard, len(entries))
        assert heard_entries == entries, "the bus published what the log holds, in order"
    finally:
        await within(room.stop(drain=False), what="stopping the room")
    return acks


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    members=st.lists(traits(), min_size=3, max_size=5),
    data=st.data(),
)
def test_a_room_fed_random_commands_logs_what_it_acks_and_replays(
    seed: int, members: list[dict[str, Any]], data: st.DataObject
) -> None:
    asyncio.run(drive_room(seed, members, data))


def test_the_live_cast_fights() -> None:
    """Guard for the machine above: its cast reaches reaction windows and defences."""
    state, _ = execute(
        cast(5, [dict(feats=(), items=(), shield="", health=20)] * 4, "pass"), StartCombat()
    )
    window = state.window
    assert window is not None and window.kind == WindowKind.PLANNING
    for cid in sorted(state.combatants):
        foe = "f1" if cid != "f1" else "f0"
        state, _ = execute(state, Declare(cid, (Attack(cid, foe, "longsword"),)))
    window = state.window
    assert window is not None and window.kind == WindowKind.REACTION
    assert any(r.DODGE in ask.options for ask in window.asked)


# --- bugs the machines found (fixed): their minimal cases stay as regression tests -------


def test_an_answer_declare_in_the_planning_window_is_refused() -> None:
    plain = {"feats": (), "items": (), "shield": "", "health": 20}
    state, _ = execute(cast(3, [plain] * 3, "pass"), StartCombat())
    window = state.window
    assert window is not None and window.kind == WindowKind.PLANNING
    before = state.state_hash()
    with pytest.raises(CommandRefused):
        decide(state, Answer("f0", window.id, "declare"))
    assert state.state_hash() == before


async def test_a_player_cannot_lift_the_gms_pause_by_naming_the_gm() -> None:
    """V24, found by the room machine (fixed since): `by` must name the sender."""
    plain = {"feats": (), "items": (), "shield": "", "health": 20}
    room = Room(
        "live",
        cast(3, [plain] * 3, "pass"),
        log=MemoryEventLog(),
        bus=MemoryBus[Entry](),
        clock=FakeClock(),
    )
    async with room:
        await room.submit(GM, StartCombat())
        await room.submit(GM, Pause("gm"))
        with pytest.raises(CommandRefused):
            await room.submit(player("f0"), Resume("gm"))
        assert room.state.paused_by == "gm"


@pytest.mark.parametrize(
    "stance",
    [
        "none",
        "aggressive",
    ],
)
def test_a_miss_opens_the_counter_window_whatever_the_attackers_stance(stance: str) -> None:
    """V22: after any miss, each character with a Counter feat within reach may counter."""
    riposte = sheet("gob", feats=(Feat("Riposte", FeatKind.COUNTER),))
    state = encounter(
        fighter("ayla", "heroes", 0, 0, stance=stance),
        fighter("gob", "goblins", 1, 0, sheet_=riposte),
        dice=(10, 5, 2),  # initiative: ayla 12, gob 7; ayla's attack: 2 + 5 = 7 < PD 12
        mode=Mode.LIVE,
    )
    state, _ = execute(state, StartCombat())
    state, _ = execute(state, Declare("gob", ()))
    state, _ = execute(state, Declare("ayla", (Attack("ayla", "gob", "longsword"),)))
    window = state.window
    assert window is not None and window.ask_of("gob") is not None  # its Dodge: it passes
    state, events = execute(state, PassWindow("gob", window.id))
    assert [e.hit for e in events if isinstance(e, AttackRolled)] == [False]
    seen = []
    while state.window is not None and state.window.kind != WindowKind.PLANNING:
        seen.append(state.window)
        if state.window.kind == WindowKind.COUNTER:
            break
        # ayla's own Aggressive Stance opportunity window (V18) may come first: it passes
        state, _ = execute(state, PassWindow(state.window.waiting_for[0], state.window.id))
    assert any(w.kind == WindowKind.COUNTER and w.ask_of("gob") for w in seen), seen


def test_a_held_attack_in_aggressive_stance_opens_no_opportunities() -> None:
    state = encounter(
        fighter("ayla", "heroes", 0, 0, stance="aggressive"),
        fighter("bram", "heroes", 0, 1),
        fighter("gob", "goblins", 1, 0),
        # initiative ayla 17, gob 12, bram 7; ayla hits gob for 3; gob then misses bram (2)
        dice=(15, 5, 10, 15, 3, 2),
        mode=Mode.LIVE,
    )
    state, _ = execute(state, StartCombat())
    state, _ = execute(state, Declare("ayla", (HoldAction("ayla"),)))
    state, _ = execute(state, Declare("bram", ()))
    state, _ = execute(state, Declare("gob", (Attack("gob", "bram", "longsword"),)))
    window = state.window
    assert window is not None and state.current == "gob"
    held = Attack("ayla", "gob", "longsword")
    state, _ = execute(state, Answer("ayla", window.id, r.HOLD, held))
    state, _ = execute(state, PassWindow("bram", window.id))
    window = state.window
    assert window is not None and window.about == "ayla"  # gob may dodge the held attack
    state, events = execute(state, PassWindow("gob", window.id))
    assert next(e.hit for e in events if isinstance(e, AttackRolled)) is True  # the held one
    assert not any(isinstance(e, AggressiveOpportunitiesOpened) for e in events)
    assert state.combatants["ayla"].opportunities == ()
