"""Invite codes: short stand-ins for a room's join tokens, kept with the room.

A join token (`tokens.py`) is a signed JWT of some 300 characters: fine to paste, no
good to read out at the table or to type. So a room also has one **invite code** per
audience: the GM's, one per player seat and the spectators'. A code is 10 characters
from an alphabet without look-alikes (no `0`/`O`, `1`/`I`/`L`, nor `U`: 30 signs,
about 49 bits), drawn with `secrets`. `hello.token` may be a code, in any case, with
`-` or spaces anywhere: the server looks it up and grants what it stands for, as the
token would.

The log keeps each code with what it grants (`server.eventlog.Invite`), so every
process of a cluster knows it and a restart loses none. A code does not expire: the GM
revokes it (`revoke`), and from then on it lets nobody in (`unauthorized`; connections
already in stay). A code is never given twice, so a revoked one stays refused.

A room has one live code per audience. `issue` keeps it while its seat plays the same
combatants and gives a fresh one otherwise (revoking the old: it grants the seat as it
was), so `create` and `renew` hand out the codes a table already knows.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping
from typing import Final

from server.engine.authority import Role
from server.eventlog import EventLog, Invite, InviteTaken
from server.gateway.tokens import Grant, JoinCodes

ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
"""The signs of a code: digits and capitals that cannot be taken for one another."""
CODE_LENGTH: Final = 10
ISSUE_TRIES: Final = 5
"""Codes drawn again when one is taken: a clash is rare (30**10 codes), several none."""
NEVER: Final = 0
"""An invite's grant's `expires_at`: a code does not expire, it is revoked."""


def new_code() -> str:
    """A fresh code: CODE_LENGTH signs of ALPHABET, from the system's random source."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def read_code(text: str) -> str | None:
    """The code `text` spells (any case; `-` and spaces ignored), None if it is not one.
    A join or host token never reads as a code: it is long and holds dots."""
    if len(text) > 2 * CODE_LENGTH:
        return None
    code = text.replace("-", "").replace(" ", "").upper()
    if len(code) == CODE_LENGTH and all(sign in ALPHABET for sign in code):
        return code
    return None


def grant_of(invite: Invite) -> Grant | None:
    """What a live invite grants, as its token would; None for a malformed one."""
    try:
        role = Role(invite.role)
    except ValueError:
        return None
    if role is Role.ROOM or bool(invite.controls) != (role is Role.PLAYER):
        return None
    if role is Role.PLAYER and not invite.seat:
        return None
    seat = invite.seat if role is Role.PLAYER else str(role)
    # an id for the logs, which never show the code itself
    token_id = "invite-" + hashlib.sha256(invite.code.encode()).hexdigest()[:12]
    return Grant(invite.room_id, role, seat, tuple(invite.controls), NEVER, token_id)


def seated(invites: Iterable[Invite]) -> set[str]:
    """The combatants a room's live player invites play: the others are the GM's."""
    return {c for invite in invites if invite.role == Role.PLAYER for c in invite.controls}


def codes_of(invites: Iterable[Invite]) -> JoinCodes:
    """The codes of a room's live invites, by audience; a later one wins."""
    codes = JoinCodes(gm="", players={}, spectator="")
    for invite in invites:
        if invite.role == Role.PLAYER:
            codes["players"][invite.seat] = invite.code
        elif invite.role == Role.GM:
            codes["gm"] = invite.code
        elif invite.role == Role.SPECTATOR:
            codes["spectator"] = invite.code
    return codes


def _place(invite: Invite) -> tuple[str, str]:
    return invite.role, invite.seat


async def issue(log: EventLog, room_id: str, seats: Mapping[str, Iterable[str]]) -> JoinCodes:
    """The room's codes for the GM, the spectators and each seat of `seats` (seat ->
    the combatants it plays): a live code is kept while its seat plays the same
    combatants; any other gets a fresh one (the old one revoked)."""
    live = {_place(invite): invite for invite in await log.invites(room_id)}
    wanted = [Invite("", room_id, str(Role.GM)), Invite("", room_id, str(Role.SPECTATOR))]
    wanted += [
        Invite("", room_id, str(Role.PLAYER), seat, tuple(ids)) for seat, ids in seats.items()
    ]
    kept: list[Invite] = []
    needed: list[Invite] = []
    for want in wanted:
        old = live.get(_place(want))
        if old is not None and old.controls == want.controls:
            kept.append(old)
            continue
        if old is not None:
            await log.revoke_invite(room_id, old.code)
        needed.append(want)
    fresh = await _add(log, needed)
    by_place = {_place(invite): invite for invite in [*kept, *fresh]}
    return codes_of(by_place[_place(want)] for want in wanted)


async def revoke(log: EventLog, room_id: str, code: str, reissue: bool) -> JoinCodes | None:
    """Revoke the room's live code `code` (with `reissue`, its audience gets a fresh
    one) and return the room's codes now; None, changing nothing, for a code that is
    not one of the room's live codes."""
    revoked = await log.revoke_invite(room_id, code)
    if revoked is None:
        return None
    if reissue:
        await _add(log, [revoked._replace(code="")])
    return codes_of(await log.invites(room_id))


async def _add(log: EventLog, wanted: list[Invite]) -> list[Invite]:
    """Keep `wanted` with fresh codes, drawing them again if one is taken."""
    if not wanted:
        return []
    for _ in range(ISSUE_TRIES):
        fresh = [want._replace(code=new_code()) for want in wanted]
        try:
            await log.add_invites(fresh)
        except InviteTaken:
            continue
        return fresh
    raise InviteTaken("")


__all__ = [
    "ALPHABET",
    "CODE_LENGTH",
    "codes_of",
    "grant_of",
    "issue",
    "new_code",
    "read_code",
    "revoke",
]
