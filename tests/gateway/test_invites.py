"""Invite codes (gateway/invites.py): their shape, how they are read, what they grant."""

from __future__ import annotations

from server.engine.authority import Role
from server.eventlog import Invite
from server.eventlog.memory import MemoryEventLog
from server.gateway.invites import ALPHABET, CODE_LENGTH, grant_of, issue, new_code, read_code
from server.gateway.tokens import TokenIssuer


def test_a_code_is_ten_signs_without_look_alikes() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(code) == CODE_LENGTH and set(code) <= set(ALPHABET) for code in codes)
    assert not set("01OILU") & set(ALPHABET)


def test_a_code_is_read_in_any_case_with_dashes_and_spaces() -> None:
    assert read_code("k7qm4-xpr2w") == "K7QM4XPR2W"
    assert read_code(" K7QM 4XPR 2W ") == "K7QM4XPR2W"
    assert read_code("K7QM4XPR2") is None  # one short
    assert read_code("K7QM4XPR2O") is None  # an O is no sign of a code
    token = TokenIssuer(b"k" * 32).issue("r1", "gm")
    assert read_code(token) is None
    assert read_code("-" * 30 + "K7QM4XPR2W") is None


def test_a_code_grants_what_its_token_would_and_nothing_malformed() -> None:
    gm = grant_of(Invite("K7QM4XPR2W", "r1", "gm"))
    ayla = grant_of(Invite("K7QM4XPR2X", "r1", "player", "ayla", ("ayla",)))
    assert gm is not None and (gm.room_id, gm.role, gm.seat, gm.controls) == (
        "r1",
        Role.GM,
        "gm",
        (),
    )
    assert ayla is not None and ayla.principal.controls == ("ayla",)
    assert "K7QM4XPR2X" not in ayla.token_id  # the logs never show a code
    assert grant_of(Invite("K7QM4XPR2W", "r1", "room")) is None
    assert grant_of(Invite("K7QM4XPR2W", "r1", "admin")) is None
    assert grant_of(Invite("K7QM4XPR2W", "r1", "player", "ayla")) is None  # plays nobody
    assert grant_of(Invite("K7QM4XPR2W", "r1", "gm", "", ("g1",))) is None


async def test_issuing_again_keeps_each_live_code_and_adds_the_missing_ones() -> None:
    log = MemoryEventLog()
    first = await issue(log, "r1", {"ayla": ["ayla"]})
    again = await issue(log, "r1", {"ayla": ["ayla"], "bram": ["bram"]})

    assert again["gm"] == first["gm"] and again["spectator"] == first["spectator"]
    assert again["players"]["ayla"] == first["players"]["ayla"]
    assert [invite.seat for invite in await log.invites("r1")] == ["", "", "ayla", "bram"]
