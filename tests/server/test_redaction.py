"""Hidden information never leaves the server for a role that may not see it.

docs/protocol.md, "What the server enforces", Redaction: nobody receives the dice
source; players and spectators never receive anyone's GM `notes`, another side's numbers
(health, mana, armour; a GM `SetHealth` on it shows only `health_state`) or another
side's declarations before they are revealed. The test plants markers that cannot occur
by chance (a secret sentence in the notes, a distinctive seed, health and mana no roll
can make), plays a planning window, and searches every raw frame each player and
spectator connection received — live, as a late snapshot and as a resume from 0, in both
subprotocols. The GM's frames must contain every marker but the dice seed: that proves
the search would find a leak. The dice seed reaches nobody, the GM included. Another
side's rolls (R77) are searched the same way: a round of attacks by and against goblins
whose Strength, Dexterity and defences are markers.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack

from protocol.codec import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, decode_server
from protocol.messages import Created, Window
from tests.server.wire import Frame, Wire
from tests.support.server import served

SUBPROTOCOLS = (MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL)
SEED = 8_675_309_123_457
GOBLIN_SECRET = "Skrix hides the cellar key under the third barrel"
AYLA_SECRET = "Ayla is the lost heir of the river duchy"
GOBLIN_HEALTH = 9137
GOBLIN_MANA = 4451
GOBLIN_ARMOUR = 7919
SET_HEALTH = 6029


def sheet(name: str, health: int, mana: int, armour: int, notes: str) -> dict[str, Any]:
    return {
        "name": name,
        "level": 1,
        "health": health,
        "mana": mana,
        "armour_durability": armour,
        "notes": notes,
        "abilities": {
            "strength": 2,
            "dexterity": 3,
            "constitution": 2,
            "sanity": 0,
            "intellect": 1,
            "empathy": 0,
        },
        "defences": {
            "physical_dodge": 13,
            "physical_resistance": 1,
            "spell_dodge": 10,
            "spell_resistance": 0,
        },
        "training": {"one_handed": 1},
        "weapons": [{"name": "scimitar", "damage": "1d6", "category": "one_handed"}],
    }


ENCOUNTER: dict[str, Any] = {
    "name": "Cellar secrets",
    "mode": "live",
    "seed": SEED,
    "combatants": [
        {
            "id": "ayla",
            "side": "pc",
            "seat": "ayla",
            "sheet": sheet("Ayla", 24, 4, 12, AYLA_SECRET),
            "at": [0, 0],
        },
        {
            "id": "bram",
            "side": "pc",
            "seat": "bram",
            "sheet": sheet("Bram", 16, 2, 3, ""),
            "at": [0, 2],
        },
        {
            "id": "g1",
            "side": "goblins",
            "sheet": sheet("Goblin", GOBLIN_HEALTH, GOBLIN_MANA, GOBLIN_ARMOUR, GOBLIN_SECRET),
            "at": [1, 0],
            "facing": 4,
        },
    ],
}


def attack(actor: str, target: str) -> dict[str, Any]:
    return {"$type": "Attack", "actor": actor, "target": target, "weapon": "scimitar"}


def declared(actor: str) -> tuple[bytes, str]:
    """How the start of `actor`'s declared attack looks in msgpack and in JSON."""
    pairs = ("$type", "Attack", "actor", actor)
    return b"".join(msgpack.packb(p) for p in pairs), f'"$type":"Attack","actor":"{actor}"'


def marker_strings() -> dict[str, tuple[bytes, str]]:
    """What must never reach a player or spectator, as raw msgpack bytes and JSON text."""
    return {
        "goblin's notes": (GOBLIN_SECRET.encode(), GOBLIN_SECRET),
        "ayla's notes": (AYLA_SECRET.encode(), AYLA_SECRET),
        "dice seed": (msgpack.packb(SEED), str(SEED)),
        "goblin's declaration": declared("g1"),
    }


HIDDEN_NUMBERS = {GOBLIN_HEALTH, GOBLIN_MANA, GOBLIN_ARMOUR, SET_HEALTH, SEED}


def leaks(frames: list[Frame], markers: dict[str, tuple[bytes, str]]) -> set[str]:
    """The markers found in `frames`: by bytes or text, and the numbers by value."""
    found = set()
    for frame in frames:
        for name, (packed, text) in markers.items():
            if (packed in frame) if isinstance(frame, bytes) else (text in frame):
                found.add(name)
        data = decode_server(frame).model_dump()
        found |= {f"number {n}" for n in numbers(data) if n in HIDDEN_NUMBERS}
    return found


def numbers(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from numbers(item)


async def test_players_and_spectators_never_receive_hidden_information(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        await host.send({"type": "create", "cid": "make", "encounter": copy.deepcopy(ENCOUNTER)})
        created = await host.expect(lambda m: isinstance(m, Created))
        assert isinstance(created, Created)
        tokens = {
            "gm": created.gm,
            "ayla": created.players["ayla"],
            "spectator": created.spectator,
        }

        live: dict[tuple[Any, ...], Wire] = {
            (who, sub): await Wire.join(server.url, tokens[who], subprotocol=sub)
            for who in tokens
            for sub in SUBPROTOCOLS
        }
        gm = live["gm", MSGPACK_SUBPROTOCOL]
        ayla = await Wire.join(server.url, tokens["ayla"])
        await gm.acked({"type": "StartCombat"})
        await gm.acked({"type": "Declare", "actor": "g1", "actions": [attack("g1", "ayla")]})
        await ayla.acked({"type": "Declare", "actor": "ayla", "actions": [attack("ayla", "g1")]})
        last = await gm.acked({"type": "SetHealth", "combatant": "g1", "health": SET_HEALTH})
        # bram has not declared: the planning window stays open, nothing is revealed.

        late: dict[tuple[Any, ...], Wire] = {
            (who, sub, resume): await Wire.join(
                server.url, tokens[who], subprotocol=sub, resume_from_seq=resume
            )
            for who in tokens
            for sub in SUBPROTOCOLS
            for resume in (None, 0)
        }
        streams = {**live, **late}
        for wire in streams.values():
            await wire.until_seq(last.last_seq)

        markers = marker_strings()
        everything = {*markers, *(f"number {n}" for n in HIDDEN_NUMBERS)}
        in_events = {"goblin's declaration", f"number {SET_HEALTH}"}
        for key, wire in streams.items():
            who = key[0]
            found = leaks(wire.raw, markers)
            if who == "gm":  # a resume from 0 has the events only, no snapshot
                expected = everything if wire.snapshots else in_events
                expected -= {"dice seed", f"number {SEED}"}  # the future: nobody's
                assert expected <= found, f"the GM's stream {key} lacks {expected - found}"
                assert not found & {"dice seed", f"number {SEED}"}, f"{key} got the dice"
            else:
                assert not found, f"{key} received {found}"

        # Ayla's own declaration reaches her; a spectator sees only that she declared.
        mine = declared("ayla")
        assert any(mine[0] in frame for frame in live["ayla", MSGPACK_SUBPROTOCOL].raw)
        assert any(mine[1] in frame for frame in live["ayla", JSON_SUBPROTOCOL].raw)
        for sub in SUBPROTOCOLS:
            spectator = live["spectator", sub]
            assert not leaks(spectator.raw, {"ayla's declaration": mine})
            made = [
                event for _, event in spectator.sequenced if event["$type"] == "DeclarationMade"
            ]
            assert [(e["combatant"], e["actions"]) for e in made] == [("g1", []), ("ayla", [])]
            health_set = [e for _, e in spectator.sequenced if e["$type"] == "HealthSet"]
            # 6029 of 9137 is two thirds: the table sees "wounded" and no number.
            assert health_set == [
                {"$type": "HealthSet", "combatant": "g1", "health_state": "wounded"}
            ]


async def test_another_sides_answers_in_a_reaction_window_stay_hidden(tmp_path: Path) -> None:
    """A reaction window shows everyone whom it waits for, but the options of an ask
    only to the asked combatant's side and the GM (they tell its feats and hands)."""
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        await host.send({"type": "create", "cid": "make", "encounter": copy.deepcopy(ENCOUNTER)})
        created = await host.expect(lambda m: isinstance(m, Created))
        assert isinstance(created, Created)
        gm = await Wire.join(server.url, created.gm)
        ayla = await Wire.join(server.url, created.players["ayla"])
        bram = await Wire.join(server.url, created.players["bram"])
        spectator = await Wire.join(server.url, created.spectator, subprotocol=JSON_SUBPROTOCOL)

        await gm.acked({"type": "StartCombat"})
        planning = await gm.expect(lambda m: isinstance(m, Window))
        assert isinstance(planning, Window)
        await gm.acked({"type": "Declare", "actor": "g1", "actions": [attack("g1", "ayla")]})
        await ayla.acked({"type": "Declare", "actor": "ayla", "actions": [attack("ayla", "g1")]})
        await bram.acked({"type": "PassWindow", "actor": "bram", "window": planning.window})

        def reaction(message: Any) -> bool:
            return isinstance(message, Window) and message.kind == "reaction"

        seen = {
            name: await wire.expect(reaction)
            for name, wire in {"gm": gm, "ayla": ayla, "spectator": spectator}.items()
        }

    options = {
        name: {ask.combatant: ask.options for ask in window.asked}  # type: ignore[attr-defined]
        for name, window in seen.items()
    }
    side = {"ayla": "pc", "bram": "pc", "g1": "goblins"}
    asked = options["gm"]
    assert asked and any(asked.values()), asked  # the GM sees what each may answer
    for combatant, answers in asked.items():
        assert options["spectator"][combatant] == []
        expected = answers if side[combatant] == "pc" else []
        assert options["ayla"][combatant] == expected


# --- another side's rolls (R77) ----------------------------------------------------------
#
# The goblins' sheets carry numbers no roll can make: g1's Strength (in its attack
# roll), Dexterity (its initiative and its turn's tie-break) and Physical Dodge (Ayla's
# attack against it), g2's Physical Resistance (Bram's damage against it). A total a
# marker is part of is within 40 of it, so the search looks for that whole range.

ROLL_MARKERS = {
    "g1's Strength": 2741,
    "g1's Dexterity": 3307,
    "g1's Physical Dodge": 5113,
    "g2's Physical Resistance": 6197,
}


def marked_sheet(name: str, **numbers: int) -> dict[str, Any]:
    data = sheet(name, 16, 2, 5, "")
    for ability in ("strength", "dexterity"):
        data["abilities"][ability] = numbers.get(ability, data["abilities"][ability])
    for defence in ("physical_dodge", "physical_resistance"):
        data["defences"][defence] = numbers.get(defence, data["defences"][defence])
    return data


ROLLS_ENCOUNTER: dict[str, Any] = {
    "name": "Open and hidden rolls",
    "mode": "turn_based",
    "seed": SEED,
    "combatants": [
        {
            "id": "ayla",
            "side": "pc",
            "seat": "ayla",
            "sheet": sheet("Ayla", 24, 4, 12, ""),
            "at": [0, 0],
        },
        {
            "id": "bram",
            "side": "pc",
            "seat": "bram",
            "sheet": sheet("Bram", 16, 2, 3, ""),
            "at": [0, 2],
        },
        {
            "id": "g1",
            "side": "goblins",
            "sheet": marked_sheet("Goblin", strength=2741, dexterity=3307, physical_dodge=5113),
            "at": [1, 0],
            "facing": 4,
        },
        {
            "id": "g2",
            "side": "goblins",
            "sheet": marked_sheet("Goblin", physical_dodge=0, physical_resistance=6197),
            "at": [1, 2],
            "facing": 4,
        },
    ],
}
ATTACKS = {"g1": "ayla", "ayla": "g1", "bram": "g2"}  # g2 only ends its turn


def marked(data: Any) -> set[str]:
    """The roll markers found in `data`: any number within 40 above a marker."""
    return {name for n in numbers(data) for name, m in ROLL_MARKERS.items() if m <= n <= m + 40}


def turn_now(gm: Wire) -> str:
    started = [e for _, e in gm.sequenced if e["$type"] == "TurnStarted"]
    return str(started[-1]["combatant"])


async def test_another_sides_numbers_never_reach_a_player_or_a_spectator_through_rolls(
    tmp_path: Path,
) -> None:
    """R77, under the default `roll_visibility` ("faces"): a round of attacks, the
    goblins' first. Ayla's player and spectators, live, as a late snapshot and as a
    resume from 0, in both subprotocols, receive the faces of every roll and the
    goblins' turns in the order, never a goblin's Strength, Dexterity or defences, nor a
    total one is part of; Ayla's player receives her own roll whole. The GM's events
    hold every marker: the search would find a leak."""
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        encounter = copy.deepcopy(ROLLS_ENCOUNTER)
        await host.send({"type": "create", "cid": "make", "encounter": encounter})
        created = await host.expect(lambda m: isinstance(m, Created))
        assert isinstance(created, Created)
        tokens = {"gm": created.gm, "ayla": created.players["ayla"], "spectator": created.spectator}
        live = {
            (who, sub): await Wire.join(server.url, tokens[who], subprotocol=sub)
            for who in tokens
            for sub in SUBPROTOCOLS
        }
        gm = live["gm", MSGPACK_SUBPROTOCOL]
        last = await gm.acked({"type": "StartCombat"})
        for _ in range(4):  # one turn each
            await gm.until_seq(last.last_seq)
            who = turn_now(gm)
            if who in ATTACKS:
                attack = {"type": "Attack", "actor": who, "target": ATTACKS[who]}
                await gm.acked({**attack, "weapon": "scimitar"})
            last = await gm.acked({"type": "EndTurn", "actor": who})

        late = {
            (who, sub, resume): await Wire.join(
                server.url, tokens[who], subprotocol=sub, resume_from_seq=resume
            )
            for who in tokens
            for sub in SUBPROTOCOLS
            for resume in (None, 0)
        }
        streams = {**live, **late}
        for wire in streams.values():
            await wire.until_seq(last.last_seq)

        kinds = {e["$type"] for _, e in gm.sequenced}
        assert {"InitiativeRolled", "AttackRolled", "DamageDealt"} <= kinds
        # The GM's events hold every marker (its snapshots hold the sheets anyway).
        assert marked([e for _, e in gm.sequenced]) == set(ROLL_MARKERS)
        for key, wire in streams.items():
            if key[0] != "gm":
                found = set().union(*(marked(decode_server(f).model_dump()) for f in wire.raw))
                assert not found, f"{key} received {found}"

        for sub in SUBPROTOCOLS:
            spectator = live["spectator", sub]
            attacks = [e for _, e in spectator.sequenced if e["$type"] == "AttackRolled"]
            assert len(attacks) == 3
            for attack in attacks:  # the faces and the outcome, no modifier, total or PD
                assert set(attack["roll"]) == {"$type", "dice", "multiplier", "dice_used"}
                assert "defence" not in attack and attack["outcome"]
            mine = [
                e
                for _, e in live["ayla", sub].sequenced
                if e["$type"] == "AttackRolled" and e["attacker"] == "ayla"
            ]
            assert mine and all("total" in e["roll"] and "defence" not in e for e in mine)


async def test_a_rewind_shows_players_and_spectators_nothing_hidden(tmp_path: Path) -> None:
    """A rewind sends everyone a whole state again (`Rewound`, and in protocol 2 a
    patch of the table and a log line): to a player or spectator, thin or asking for
    the raw events, live or joining after it, it holds no hidden marker."""
    async with served(tmp_path, demo=False) as server:
        host = await Wire.join(server.url, server.host_token)
        await host.send({"type": "create", "cid": "make", "encounter": copy.deepcopy(ENCOUNTER)})
        created = await host.expect(lambda m: isinstance(m, Created))
        assert isinstance(created, Created)
        tokens = {"ayla": created.players["ayla"], "spectator": created.spectator}
        gm = await Wire.join(server.url, created.gm)
        live = {
            (who, sub, events): await Wire.join(
                server.url, tokens[who], subprotocol=sub, events=events
            )
            for who in tokens
            for sub in SUBPROTOCOLS
            for events in (False, True)
        }
        started = await gm.acked({"type": "StartCombat"})
        await gm.acked({"type": "Declare", "actor": "g1", "actions": [attack("g1", "ayla")]})
        await gm.acked({"type": "SetHealth", "combatant": "g1", "health": SET_HEALTH})
        last = await gm.acked({"type": "Rewind", "to_version": started.last_seq})
        late = {
            (who, sub, events, resume): await Wire.join(
                server.url, tokens[who], subprotocol=sub, events=events, resume_from_seq=resume
            )
            for who in tokens
            for sub in SUBPROTOCOLS
            for events in (False, True)
            for resume in (None, 0, started.last_seq)
        }
        streams = {**live, **late}
        for wire in streams.values():
            await wire.until_seq(last.last_seq)
        await gm.until_seq(last.last_seq)
        markers = marker_strings()
        assert {"goblin's notes", f"number {SET_HEALTH}"} <= leaks(gm.raw, markers)
        for key, wire in streams.items():
            assert not leaks(wire.raw, markers), f"{key} received {leaks(wire.raw, markers)}"
