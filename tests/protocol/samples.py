"""One filled-in example of every wire message, shared by the protocol tests."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from protocol.messages import (
    Ack,
    Asked,
    Choices,
    Codes,
    Create,
    Created,
    Error,
    Events,
    Hello,
    InviteCodes,
    Invites,
    Listed,
    Listing,
    Log,
    Peek,
    Peeked,
    Ping,
    Pong,
    ReadSheet,
    Refused,
    Renew,
    Revoke,
    Rooms,
    Send,
    Sequenced,
    SheetRead,
    Snapshot,
    Table,
    Update,
    Welcome,
    WentBack,
    Window,
)
from protocol.table import (
    Against,
    Card,
    Choice,
    Face,
    GridView,
    Hole,
    HoleOption,
    LogLine,
    Modifier,
    PatchOp,
    RollCard,
    SeatChoices,
    Slot,
    TableView,
    Tag,
)

ROLL: dict[str, Any] = {
    "$type": "Roll",
    "dice": [{"$type": "DiceResult", "sides": 20, "faces": [10], "negative": False}],
    "modifiers": [["Dexterity", 2], ["Training", 1]],
    "total": 13,
    "multiplier": 1,
    "dice_used": 1,
}
ATTACK_ROLLED: dict[str, Any] = {
    "$type": "AttackRolled",
    "attacker": "g1",
    "target": "ayla",
    "weapon": "shortbow",
    "kind": "ranged",
    "action": "standard",
    "roll": ROLL,
    "defence_name": "PD",
    "defence": 12,
    "outcome": "hit",
}

CLIENT_SAMPLES: list[BaseModel] = [
    Hello(token="tok.sig", resume_from_seq=57, client="tests/1"),
    Hello(token="tok.sig"),
    Send(
        cid="c-1",
        command={
            "type": "Declare",
            "actor": "ayla",
            "actions": [{"$type": "Attack", "actor": "ayla", "target": "g1", "weapon": ""}],
            "turn": 0,
        },
    ),
    Send(cid="c-2", command={"type": "SetSetting", "name": "reaction_seconds", "value": 10.5}),
    Send(cid="c-3", command={"type": "SetPosition", "combatant": "g1", "ascension": None}),
    Create(
        cid="new-1",
        encounter={
            "name": "Goblin ambush",
            "ruleset": "verse",
            "combatants": [{"id": "g1", "side": "goblins", "sheet": {"name": "Goblin"}}],
        },
    ),
    Create(cid="new-3", files={"duel.toml": 'name = "Duel"\n'}, file="duel.toml"),
    Renew(cid="renew-1", room="goblin-ambush-4f1c2a", seats={"ayla": ["ayla"]}),
    Hello(token="K7QM4XPR2W"),
    Rooms(cid="rooms-1"),
    Invites(cid="inv-1"),
    Revoke(cid="inv-2", code="K7QM4XPR2W", reissue=True),
    Revoke(cid="inv-3", code="k7qm4-xpr2w"),
    Peek(cid="peek-1", seq=41),
    ReadSheet(cid="sheet-1", file="goblin.toml", text='name = "Goblin"\nhealth = 12\n'),
    Ping(nonce=7),
    Ping(),
]

SERVER_SAMPLES: list[BaseModel] = [
    Welcome(
        room="r-7f3a",
        ruleset="verse",
        role="player",
        seat="seat-1",
        controls=["ayla", "horse"],
        seq=57,
    ),
    Welcome(room="r-7f3a", ruleset="verse", role="spectator", seq=0),
    Ack(cid="c-1", first_seq=58, last_seq=66),
    Refused(cid="c-2", code="not_your_turn", message="it is g1's turn"),
    Error(code="invalid_message", message="cid: Input should be a valid string"),
    Events(
        events=[
            Sequenced(seq=58, event=ATTACK_ROLLED),
            Sequenced(seq=59, event={"$type": "DeclarationMade", "combatant": "g1", "actions": []}),
        ]
    ),
    Events(events=[]),
    Snapshot(seq=57, view={"$type": "Encounter", "id": "r-7f3a", "round": 1, "window": None}),
    Window(
        seq=66,
        window=8,
        kind="reaction",
        about="g1",
        asked=[Asked(combatant="ayla", options=["dodge", "block"])],
        answered=["bram"],
        total_ms=8000,
        remaining_ms=6400,
        running=False,
    ),
    Table(
        seq=57,
        view=TableView(
            ruleset="verse",
            mode="live",
            phase="combat",
            round=1,
            turn="ayla",
            order=[Slot(combatant="ayla", initiative=17), Slot(combatant="g1")],
            grid=GridView(kind="square"),
            combatants={
                "g1": Card(
                    id="g1",
                    name="Goblin",
                    side="goblins",
                    position=[3, 4],
                    health_word="wounded",
                    conditions=[Tag(name="prone", rounds_left=1)],
                )
            },
        ),
    ),
    Update(
        from_seq=57,
        seq=58,
        patch=[PatchOp(op="replace", path="/combatants/g1/health_word", value="bloodied")],
        log=[
            LogLine(
                seq=58,
                kind="AttackRolled",
                text="Ayla attacks Goblin (g1) with longsword: hit",
                rolls=[
                    RollCard(
                        label="attack",
                        by="ayla",
                        dice=[Face(sides=20, faces=[14])],
                        modifiers=[Modifier(name="Strength", value=3)],
                        total=17,
                        against=Against(name="PD", value=13),
                        outcome="hit",
                    )
                ],
            )
        ],
        events=[Sequenced(seq=58, event=ATTACK_ROLLED)],
    ),
    Log(lines=[LogLine(seq=1, kind="RoundStarted", text="Round 1 begins")]),
    WentBack(seq=17, from_seq=163, message="the fight went back to event 17"),
    Choices(
        seq=58,
        seats=[
            SeatChoices(
                combatant="ayla",
                window=9,
                options=[
                    Choice(
                        key="dodge",
                        label="Dodge",
                        command={"type": "Answer", "actor": "ayla", "window": 9, "option": "dodge"},
                    )
                ],
            )
        ],
    ),
    Choices(  # only what changed: g1's seat came, with a move's short paths; g2's went
        seq=59,
        whole=False,
        seats=[
            SeatChoices(
                combatant="g1",
                window=10,
                options=[
                    Choice(
                        key="move",
                        label="Move",
                        part={"$type": "Move", "actor": "g1", "path": None},
                        holes=[
                            Hole(
                                path="/path",
                                label="cell",
                                kind="path",
                                options=[
                                    HoleOption(value=[[1, 0], [2, -1]], label="Move to (2, -1)")
                                ],
                            )
                        ],
                    )
                ],
            )
        ],
        gone=["g2"],
        order=["gm", "g1"],
    ),
    Created(
        cid="new-1",
        room="goblin-ambush-4f1c2a",
        name="Goblin ambush",
        ruleset="verse",
        gm="gm-token",
        players={"ayla": "ayla-token"},
        spectator="spectator-token",
        expires_at=1_800_000_000,
    ),
    Created(
        cid="new-2",
        room="duel-9c2e11",
        ruleset="tael",
        gm="gm-token",
        players={},
        spectator="spectator-token",
        expires_at=1_800_000_000,
        codes=InviteCodes(gm="R8WJZ3QHMC", spectator="T4NGB9XDPA"),
    ),
    Peeked(
        cid="peek-1",
        seq=41,
        view=TableView(
            ruleset="verse",
            mode="live",
            phase="combat",
            round=2,
            grid=GridView(kind="square"),
            version=41,
        ),
    ),
    Listing(cid="rooms-1", rooms=[]),
    Listing(
        cid="rooms-2",
        rooms=[
            Listed(
                room="goblin-ambush-4f1c2a",
                name="Goblin ambush",
                ruleset="verse",
                mode="live",
                seats={"ayla": ["ayla"]},
                gm_plays=["g1", "g2"],
                codes=InviteCodes(gm="R8WJZ3QHMC", players={"ayla": "K7QM4XPR2W"}),
            ),
            Listed(room="duel-9c2e11", ruleset="tael"),
        ],
    ),
    Codes(
        cid="inv-2",
        room="goblin-ambush-4f1c2a",
        codes=InviteCodes(gm="R8WJZ3QHMC", players={"ayla": "M2HXV7KQ9T"}, spectator=""),
    ),
    Welcome(room="", ruleset="", role="host", seq=0),
    SheetRead(
        cid="sheet-1",
        combatant={
            "$type": "VerseCombatant",
            "id": "",
            "side": "",
            "sheet": {"$type": "VerseSheet", "name": "Goblin"},
            "health": 12,
            "position": {"$type": "Cell", "x": 0, "y": 0},
        },
    ),
    Pong(nonce=7),
    Pong(),
]
