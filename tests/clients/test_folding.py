"""A client that followed a fight shows what a client joining now is sent.

Clients of every role connect before the fight starts and follow it event by event,
folding each into the view they hold; after each stretch of play, fresh clients of the
same roles connect and are sent a snapshot. What the view keeps current (the round,
the turn, the window, and of every combatant what the table looks at) must be the same
in both, except what a follower's view says it doubts. The fights run on the real
server with fixed dice, so each covers the same events every time: damage, the GM's
overrides, mana spent, conditions and statuses gained and lost, moves, deaths and
fainting, combatants added and removed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from clients.client import Client
from clients.encounters import read_encounter
from clients.folding import Doubts
from protocol.messages import Ack, Created
from tests.clients.support import ROOT, create, demo_encounter, events_of
from tests.support.server import Served, wait_for
from tests.support.waiting import within

Data = dict[str, Any]
ABSENT = "(absent)"
FIGHT = (
    "phase",
    "round",
    "turn",
    "turn_order",
    "turn_over",
    "version",
    "paused_by",
    "window",
    "windows_opened",
    "declarations",
    "settings",
    "condition_rules",
)
VERSE_KEPT = (
    "health",
    "mana",
    "armour_durability",
    "abilities",
    "health_state",
    "conditions",
    "position",
    "ascension",
    "facing",
    "mounted_on",
    "stance",
    "awareness",
    "holding",
    "broken",
    "dropped",
    "items_used",
)
TAEL_KEPT = (
    "hit_points",
    "willpower_dc",
    "willpower_failures",
    "health_state",
    "statuses",
    "fainted",
    "dead",
    "position",
    "stance",
    "main_hand",
    "off_hand",
    "dropped",
    "braced",
    "winded",
    "hidden",
    "surrendered",
    "preparation",
    "prepared",
    "turn",  # what the turn has used: `look` shows what is left of it
)


def kept(client: Client, fields: tuple[str, ...], doubts: Doubts) -> Data:
    """What the view keeps current, without what `doubts` says may be off."""
    state = client.view.state
    shown: Data = {name: state.get(name, ABSENT) for name in FIGHT}
    for cid, combatant in state["combatants"].items():
        doubted = doubts.about(cid)
        shown[cid] = {f: combatant.get(f, ABSENT) for f in fields if f not in doubted}
    return shown


def differences(held: Data, sent: Data, where: str = "") -> list[str]:
    """Where the view held differs from the one sent: `g1.health: 5 != 7`."""
    found: list[str] = []
    for key in sorted(set(held) | set(sent)):
        a, b = held.get(key, ABSENT), sent.get(key, ABSENT)
        if isinstance(a, dict) and isinstance(b, dict) and where.count(".") < 1:
            found += differences(a, b, f"{where}{key}.")
        elif a != b:
            found.append(f"{where}{key}: {a!r} != {b!r}")
    return found


class Table:
    """The followers, the GM among them, and the tokens to join afresh."""

    def __init__(self, server: Served, room: Created, followers: dict[str, Client]) -> None:
        self.server = server
        self.room = room
        self.followers = followers
        self.gm = followers["gm"]

    def token(self, who: str) -> str:
        if who == "gm":
            return self.room.gm
        if who == "spectator":
            return self.room.spectator
        return self.room.players[who]

    @property
    def state(self) -> Data:
        return self.gm.view.state

    @property
    def current(self) -> str:
        """Whose turn it is (the GM's view)."""
        state = self.state
        return str(state["turn_order"][state["turn"]]["combatant"])

    async def send(self, command: Data, refusable: bool = False) -> None:
        """Send as the GM, then wait until every follower holds the events; a reaction
        window the command opened is closed by the GM (nobody answers in these fights),
        a planning window is left for the test to declare in."""
        answer = await self.gm.send(command, timeout=10)
        if not refusable:
            assert isinstance(answer, Ack), (command, answer)
        await self.settle(answer.last_seq if isinstance(answer, Ack) else 0)
        while (window := self.state.get("window")) is not None and window["kind"] != "planning":
            closed = await self.gm.send({"type": "CloseWindow", "window": window["id"]}, timeout=10)
            assert isinstance(closed, Ack), closed
            await self.settle(closed.last_seq)

    async def settle(self, last_seq: int) -> None:
        """Every follower holds the events up to `last_seq` and what the GM holds."""
        await wait_for(lambda: (self.gm.seq or 0) >= last_seq, timeout=10)
        await wait_for(lambda: all(c.seq == self.gm.seq for c in self.followers.values()))

    async def check(self, fields: tuple[str, ...]) -> None:
        """Each follower's view is what a client joining now is sent."""
        for who, follower in self.followers.items():
            async with await Client.connect(self.server.url, self.token(who)) as fresh:
                seq = follower.seq
                await wait_for(lambda fresh=fresh, seq=seq: fresh.seq == seq)
                assert fresh.view.snapshot_seq == seq  # sent a snapshot
                doubts = follower.view.doubts
                held, sent = kept(follower, fields, doubts), kept(fresh, fields, doubts)
                assert differences(held, sent) == [], who
                assert not follower.view.doubts.events, who


@asynccontextmanager
async def following(server: Served, room: Created, seats: list[str]) -> AsyncIterator[Table]:
    """The GM, the players of `seats` and a spectator, following from the start."""
    followers: dict[str, Client] = {}
    try:
        for who in ["gm", *seats, "spectator"]:
            token = room.gm if who == "gm" else room.spectator
            token = room.players.get(who, token)
            followers[who] = await Client.connect(server.url, token)
        await wait_for(lambda: all(c.seq == 0 for c in followers.values()))
        yield Table(server, room, followers)
    finally:
        for client in followers.values():
            await within(client.close(), what="closing a follower after the test")


# --- Verse ---------------------------------------------------------------------------------

VERSE_ATTACKS = {
    "ayla": ("g1", "longsword"),
    "bram": ("g2", "quarterstaff"),
    "corvin": ("g1", "spear"),
    "g1": ("ayla", "scimitar"),
    "g2": ("bram", "scimitar"),
    "g3": ("corvin", "scimitar"),
}


async def play_verse_turns(table: Table, turns: int, act: Callable[[str], Data | None]) -> None:
    """`turns` turns: the one whose turn it is does what `act` says (or attacks its
    foe), then ends its turn; the views are checked after each action."""
    for _ in range(turns):
        who = table.current
        command = act(who)
        if command is None:
            target, weapon = VERSE_ATTACKS[who]
            command = {"type": "Attack", "actor": who, "target": target, "weapon": weapon}
        await table.send(command, refusable=True)  # a foe already dead is refused
        await table.check(VERSE_KEPT)
        await table.send({"type": "EndTurn", "actor": who})


async def test_a_turn_based_verse_fight_folds_to_what_a_snapshot_shows(server: Served) -> None:
    encounter = {**demo_encounter(seed=7), "mode": "turn_based"}
    room = await create(server.url, server.host_token, encounter)
    async with following(server, room, ["ayla", "bram"]) as table:
        await table.send({"type": "StartCombat"})

        def act(who: str) -> Data | None:
            if who == "bram":  # V10: the spell's MC leaves his Mana Pool
                spell = {"spell": "Magic Missile", "targets": ["g2"], "extra_spell_dice": 1}
                return {"type": "CastSpell", "actor": "bram", **spell}
            if who == "corvin":
                return {"type": "Move", "actor": "corvin", "path": [cell(1, 1)]}
            return None

        await play_verse_turns(table, 9, act)
        await table.check(VERSE_KEPT)

        g1 = table.gm.view.state["combatants"]["g1"]
        await table.send({"type": "SetHealth", "combatant": "g2", "health": 2})
        await table.send({"type": "SetMana", "combatant": "bram", "mana": 3})
        await table.send({"type": "SetArmour", "combatant": "ayla", "durability": 1})
        await table.send(
            {"type": "SetAbility", "combatant": "ayla", "ability": "strength", "score": 1}
        )
        await table.send(
            {"type": "SetCondition", "combatant": "ayla", "condition": "Shaken", "rounds": 1}
        )
        await table.send({"type": "SetCondition", "combatant": "bram", "condition": "Prone"})
        await table.send({"type": "RemoveCondition", "combatant": "bram", "condition": "Prone"})
        # V27: the GM rules what Dazed does mid-fight; laid without a duration, it lasts
        # the entry's 2 rounds; the entry is changed, and another taken out again.
        dazed = {"$type": "ConditionRule", "name": "Dazed", "rounds": 2, "loses": ["swift"]}
        await table.send({"type": "SetConditionRule", "rule": dazed})
        await table.send({"type": "SetCondition", "combatant": "bram", "condition": "dazed"})
        await table.send({"type": "SetConditionRule", "rule": {**dazed, "rounds": 3}})
        await table.send(
            {"type": "SetConditionRule", "rule": {"$type": "ConditionRule", "name": "Slow"}}
        )
        await table.send({"type": "RemoveConditionRule", "name": "slow"})
        await table.send(
            {"type": "SetPosition", "combatant": "g2", "cell": cell(2, 2), "facing": 3}
        )
        newcomer = {**g1, "id": "g3", "position": cell(2, 1), "conditions": [], "health": 12}
        await table.send({"type": "AddCombatant", "combatant": newcomer})
        await table.send({"type": "RemoveCombatant", "combatant": "g2"})
        await table.check(VERSE_KEPT)

        await play_verse_turns(table, 6, lambda who: None)
        await table.check(VERSE_KEPT)

        gm, spectator = table.followers["gm"], table.followers["spectator"]
        # The fight did what the test is about: events the followers had to fold.
        for kind in ("DamageDealt", "SpellCast", "Moved", "CombatantAdded", "RoundEnded"):
            assert events_of(gm, kind), kind
        assert gm.view.snapshot_seq == 0 and "g2" not in gm.view.state["combatants"]
        assert gm.view.state["combatants"]["bram"]["mana"] < 20
        assert not any(
            c["name"] == "Shaken" for c in gm.view.state["combatants"]["ayla"]["conditions"]
        )
        # Another side sees a hit goblin's health coarsely: a doubt at most, never a wrong fact.
        assert set().union(*spectator.view.doubts.fields.values()) <= {"health_state", "facing"}


async def test_a_spell_being_charged_folds_to_what_a_snapshot_shows(server: Served) -> None:
    """V12: a 12 MC spell takes two actions, one a round: `look` shows it being charged
    (game night 2), so every view must hold it as a snapshot does, for every side: begun,
    completed, and lost when a round ends without its action."""
    encounter = {**demo_encounter(seed=7), "mode": "turn_based"}
    room = await create(server.url, server.host_token, encounter)
    kept = (*VERSE_KEPT, "charging")
    async with following(server, room, ["ayla", "bram"]) as table:
        await table.send({"type": "StartCombat"})
        assert table.current == "bram"
        missile = {"spell": "Magic Missile", "targets": ["g2"], "extra_spell_dice": 5}
        cast = {"type": "CastSpell", "actor": "bram", **missile}
        await table.send(cast)
        await table.check(kept)
        assert table.state["combatants"]["bram"]["charging"]["actions_done"] == 1

        async def round_comes_round() -> None:
            await table.send({"type": "EndTurn", "actor": table.current})
            while table.current != "bram":
                await table.send({"type": "EndTurn", "actor": table.current})
            await table.check(kept)

        await round_comes_round()
        await table.send({"type": "ChargeSpell", "actor": "bram", "targets": [], "target": None})
        await table.check(kept)
        assert table.state["combatants"]["bram"]["charging"] is None  # it went off
        await table.send({"type": "SetMana", "combatant": "bram", "mana": 20})
        await round_comes_round()
        await table.send(cast)
        await table.check(kept)
        await round_comes_round()  # the round it was cast in needs nothing more
        assert table.state["combatants"]["bram"]["charging"]["actions_done"] == 1
        await round_comes_round()  # a round ended without a charging action: lost
        assert table.state["combatants"]["bram"]["charging"] is None
        gm = table.followers["gm"]
        for kind in ("SpellCharged", "ChargeLost"):
            assert events_of(gm, kind), kind
        assert table.followers["spectator"].view.snapshot_seq == 0


async def test_a_live_round_folds_declarations_and_the_window(server: Served) -> None:
    room = await create(server.url, server.host_token, demo_encounter(seed=20))
    async with following(server, room, ["ayla", "corvin"]) as table:
        await table.send({"type": "StartCombat"})
        g1 = {"$type": "Attack", "actor": "g1", "target": "ayla", "weapon": "scimitar"}
        await table.send({"type": "Declare", "actor": "g1", "actions": [g1], "turn": 0})
        corvin = {"$type": "Attack", "actor": "corvin", "target": "g1", "weapon": "spear"}
        await table.send({"type": "Declare", "actor": "corvin", "actions": [corvin], "turn": 0})
        await table.check(VERSE_KEPT)  # mid-planning: another side's declarations hidden
        await table.send({"type": "Declare", "actor": "corvin", "actions": [corvin], "turn": 1})
        await table.check(VERSE_KEPT)  # Corvin declared both his turns: answered (V16)
        assert "corvin" in table.followers["corvin"].view.state["window"]["answered"]
        await table.send({"type": "CloseWindow", "window": table.state["window"]["id"]})
        assert table.state["round"] == 2  # round 1 resolved, round 2's planning is open
        await table.check(VERSE_KEPT)
        assert events_of(table.gm, "DamageDealt") and events_of(table.gm, "DeclarationsRevealed")


def cell(x: int, y: int) -> Data:
    return {"$type": "Cell", "x": x, "y": y}


# --- World of Tael -----------------------------------------------------------------------------

AMBUSH = ROOT / "server" / "samples" / "encounters" / "tael-ambush.toml"
TAEL_FOES = {"kaelen": "bandit", "mira": "cultist", "tobin": "bandit", "bandit": "kaelen"}


async def play_tael_turns(table: Table, turns: int) -> None:
    """The one whose turn it is attacks (the cultist casts Dread: a status, T6); the
    GM ends the turn; the views are checked after each action."""
    for _ in range(turns):
        who = table.current
        if who == "cultist":
            command: Data = {
                "type": "SpellAction",
                "actor": who,
                "spell": "Dread",
                "targets": ["kaelen"],
            }
        else:
            target = TAEL_FOES[who]
            command = {
                "type": "AttackAction",
                "actor": who,
                "target": target,
                "weapon": "",
                "off_hand": False,
            }
        await table.send(command, refusable=True)  # a fainted or dead one cannot act
        await table.check(TAEL_KEPT)
        await table.send({"type": "EndTurn", "actor": ""})


async def test_a_tael_fight_folds_to_what_a_snapshot_shows(server: Served) -> None:
    encounter = {**read_encounter(AMBUSH), "seed": 6}
    room = await create(server.url, server.host_token, encounter)
    async with following(server, room, ["kaelen", "mira"]) as table:
        await table.send({"type": "StartCombat"})
        await play_tael_turns(table, 5)
        await table.check(TAEL_KEPT)
        # TR38: a status the GM lays during its target's own turn counts from the next.
        stun = {"type": "SetStatus", "combatant": table.current, "status": "Frozen", "turns": 1}
        await table.send({**stun, "skips_turn": True})
        await table.check(TAEL_KEPT)
        await table.send({"type": "EndTurn", "actor": ""})
        await table.check(TAEL_KEPT)
        await table.send({"type": "SetHitPoints", "combatant": "bandit", "hit_points": 0})
        await table.send({"type": "SetHitPoints", "combatant": "tobin", "hit_points": 3})
        await play_tael_turns(table, 7)
        await table.check(TAEL_KEPT)
        await table.send({"type": "SetHitPoints", "combatant": "bandit", "hit_points": 4})
        await table.check(TAEL_KEPT)

        gm = table.followers["gm"]
        for kind in ("DamageTaken", "Fainted", "StatusGained", "HitPointsSet", "TurnEnded"):
            assert events_of(gm, kind), kind
        assert gm.view.snapshot_seq == 0


async def test_a_fight_rewound_from_its_end_folds_paused_by_the_gm(server: Served) -> None:
    """R70: the engine brings an ended fight back paused by the GM; every view must
    say so, as a fresh snapshot does."""
    room = await create(server.url, server.host_token, demo_encounter(seed=20))
    async with following(server, room, ["ayla"]) as table:
        await table.send({"type": "StartCombat"})
        started = table.gm.seq
        await table.send({"type": "EndCombat"})
        await table.send({"type": "Rewind", "to_version": started})
        assert table.state["paused_by"] == "gm"
        await table.check(VERSE_KEPT)


async def test_what_a_tael_turn_spends_folds_to_what_a_snapshot_shows(server: Served) -> None:
    """`look` shows what is left of a turn (T2, T5, T9): every action's slot, the tiles
    walked, Dash, the off-hand attack a one-handed attack readies and spends, a Punch
    and the one that may follow it, Hide, Brace, a skill check as a Bonus Action."""
    encounter = {**read_encounter(AMBUSH), "seed": 6}
    room = await create(server.url, server.host_token, encounter)
    async with following(server, room, ["kaelen", "tobin"]) as table:
        await table.send({"type": "StartCombat"})
        for _ in range(2):  # the cultist, the bandit
            await table.send({"type": "EndTurn", "actor": ""})
        assert table.current == "kaelen"
        attack = {"type": "AttackAction", "actor": "kaelen", "target": "bandit", "weapon": ""}
        turns: list[list[Data]] = [
            [
                {**attack, "off_hand": False},
                {**attack, "off_hand": True},
                {"type": "SkillCheck", "actor": "kaelen", "skill": "perception", "as_bonus": True},
                {"type": "Dash", "actor": "kaelen"},
                {"type": "MoveTiles", "actor": "kaelen", "path": [cell(1, 1), cell(2, 1)]},
            ],
            [
                {"type": "EquipWeapon", "actor": "tobin", "main_hand": "", "off_hand": ""}
                | {"as_bonus": True},  # T9: a Punch needs empty hands
                {"type": "Punch", "actor": "tobin", "target": "bandit", "as_bonus": False},
                {"type": "Hide", "actor": "tobin"},
            ],
        ]
        for commands in turns:
            for command in commands:
                await table.send(command, refusable=True)
                await table.check(TAEL_KEPT)
            await table.send({"type": "EndTurn", "actor": ""})
        await table.send({"type": "Brace", "actor": "mira"}, refusable=True)
        await table.check(TAEL_KEPT)
        gm = table.followers["gm"]
        done = (
            "SkillChecked",
            "Dashed",
            "TilesMoved",
            "HideAttempted",
            "Braced",
            "WeaponsEquipped",
        )
        for kind in done:
            assert events_of(gm, kind), kind
        hits = {e["kind"] for e in events_of(gm, "HitChecked")}
        assert {"weapon", "off_hand", "punch"} <= hits
        assert gm.view.snapshot_seq == 0
