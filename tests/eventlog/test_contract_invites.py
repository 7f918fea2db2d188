"""The EventLog contract, continued: what finds a room again (its invite codes and its
card), on every backend."""

from __future__ import annotations

import pytest

from server.eventlog import EventLog, Invite, InviteTaken, RoomCard

GM = Invite("GMCODE2345", "room-a", "gm")
AYLA = Invite("AYLA234567", "room-a", "player", "ayla", ("ayla", "wolf"))
WATCH = Invite("WATCH23456", "room-a", "spectator")
OTHER = Invite("OTHER23456", "room-b", "gm")


async def test_an_invite_is_found_by_its_code_as_it_was_kept(event_log: EventLog) -> None:
    await event_log.add_invites([GM, AYLA, WATCH])
    await event_log.add_invites([OTHER])

    assert await event_log.find_invite("AYLA234567") == AYLA
    assert await event_log.find_invite("OTHER23456") == OTHER
    assert await event_log.find_invite("NEVER23456") is None


async def test_a_rooms_live_invites_are_listed_in_the_order_they_were_added(
    event_log: EventLog,
) -> None:
    await event_log.add_invites([GM, AYLA])
    await event_log.add_invites([OTHER])
    await event_log.add_invites([WATCH])

    assert await event_log.invites("room-a") == [GM, AYLA, WATCH]
    assert await event_log.invites("room-b") == [OTHER]
    assert await event_log.invites("nowhere") == []


async def test_a_code_in_use_keeps_the_whole_batch_out(event_log: EventLog) -> None:
    await event_log.add_invites([GM])

    clash = Invite("GMCODE2345", "room-b", "spectator")
    with pytest.raises(InviteTaken) as taken:
        await event_log.add_invites([OTHER, clash])
    with pytest.raises(InviteTaken):  # twice in one batch
        await event_log.add_invites([WATCH, WATCH])

    assert taken.value.code == "GMCODE2345"
    assert "GMCODE2345" not in str(taken.value)  # a code is a secret: never in a message
    assert await event_log.find_invite("GMCODE2345") == GM
    assert await event_log.find_invite("OTHER23456") is None
    assert await event_log.find_invite("WATCH23456") is None
    assert await event_log.invites("room-b") == []


async def test_a_revoked_code_is_found_no_more_and_never_given_again(
    event_log: EventLog,
) -> None:
    await event_log.add_invites([GM, AYLA, WATCH])

    assert await event_log.revoke_invite("room-a", "AYLA234567") == AYLA

    assert await event_log.find_invite("AYLA234567") is None
    assert await event_log.invites("room-a") == [GM, WATCH]
    with pytest.raises(InviteTaken):
        await event_log.add_invites([Invite("AYLA234567", "room-a", "player", "ayla", ("ayla",))])
    assert await event_log.revoke_invite("room-a", "AYLA234567") is None  # already revoked


async def test_revoking_another_rooms_code_or_an_unknown_one_changes_nothing(
    event_log: EventLog,
) -> None:
    await event_log.add_invites([GM, OTHER])

    assert await event_log.revoke_invite("room-a", "OTHER23456") is None
    assert await event_log.revoke_invite("room-a", "NEVER23456") is None

    assert await event_log.find_invite("OTHER23456") == OTHER
    assert await event_log.invites("room-a") == [GM]


async def test_a_rooms_card_is_kept_and_a_later_one_replaces_it(event_log: EventLog) -> None:
    assert await event_log.load_card("room-a") is None

    await event_log.save_card("room-a", RoomCard("Goblin ambush", "verse", "live", ("ayla", "g1")))
    await event_log.save_card("room-b", RoomCard("", "tael", "turn_based"))
    assert await event_log.load_card("room-a") == RoomCard(
        "Goblin ambush", "verse", "live", ("ayla", "g1")
    )

    await event_log.save_card("room-a", RoomCard("Cellar brawl", "verse", "turn_based", ("gob",)))
    assert await event_log.load_card("room-a") == RoomCard(
        "Cellar brawl", "verse", "turn_based", ("gob",)
    )
    assert await event_log.load_card("room-b") == RoomCard("", "tael", "turn_based", ())
