"""Join tokens: who a connection is, signed by the server, with an expiry.

Creating an encounter hands out one token per audience: the GM's, one per player seat
(bound to the combatants that seat controls) and a spectator's. A connection presents
its token in its hello; the gateway verifies it here and gets a `Grant`, whose
`principal` is what `server.engine.authority` checks every command against. The role
comes from the token and nothing else: a message can never claim one.

Format: a JWT (RFC 7519) signed with HMAC-SHA256 by PyJWT, a well-kept library, rather
than hand-rolled signing and parsing. Claims:

    aud       "verse-combat"      a token signed for some other use of the secret is refused
    room      the room id         a token opens one room only
    role      "gm" | "player" | "spectator"   ("room" is the server's own, never granted)
    seat      the seat's name     the principal's name; a player's is never empty
    controls  [combatant ids]     a player's: never empty; the GM and spectators: empty
    iat, exp  issued at, expires  whole seconds since the epoch, from the injected clock
    jti       a random token id   for logs and for a later revocation list

Verification accepts HS256 only, so `alg: none` and algorithm confusion are refused,
and checks expiry against the issuer's own clock (tests inject it) rather than PyJWT's
wall clock. Expiry is checked last: `token_expired` is only ever said of a token that
is otherwise genuine and valid for the room asked about; anything else is
`unauthorized`. Messages never contain the token, the secret or the token's claims.

The secret: at least 32 bytes (HMAC-SHA256's own digest size; shorter ones are
refused). With no `--secret`, the server keeps one in its data dir
(`load_or_create_secret`): 32 random bytes written as 64 hex characters, mode 0600,
created once and read on every later start, so tokens survive a restart. The key is the
file's text, so `--secret "$(cat DATA_DIR/token-secret)"` gives a second server the
same key.

A token stays valid until it expires: there is no revocation list yet (`jti` is there
for one). The short invite codes that stand for tokens (`invites.py`) are kept in the
log instead, and the GM may revoke them. Expiry is checked when a connection presents
the token (hello, resume); a connection already open is not cut off when its token
expires mid-fight.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NotRequired, TypedDict

import jwt

from protocol.errors import ErrorCode, ProtocolError
from server.engine.authority import Principal, Role

AUDIENCE: Final = "verse-combat"
HOST_AUDIENCE: Final = "verse-combat-host"
"""A host token's audience: it may create encounters and join none."""
HOST_TTL_SECONDS: Final = 30 * 24 * 60 * 60
"""A month: the server prints a fresh host token on every start."""
ALGORITHM: Final = "HS256"
MIN_SECRET_BYTES: Final = 32
"""HMAC-SHA256's digest size: a shorter key weakens the signature (RFC 7518, 3.2)."""
DEFAULT_TTL_SECONDS: Final = 30 * 24 * 60 * 60
"""A month: a fight prepared days ahead still opens at the table. A host token renews
them (`renew`, `combat renew`) for an existing room."""
MAX_TOKEN_CHARS: Final = 8192
"""Longer than any token this module issues; a longer one is refused before parsing."""
SECRET_FILE_NAME: Final = "token-secret"
"""The secret's file in the data dir when no `--secret` is given."""

GRANTED_ROLES: Final = frozenset({Role.GM, Role.PLAYER, Role.SPECTATOR})
_REQUIRED_CLAIMS: Final = ("aud", "room", "role", "seat", "controls", "iat", "exp", "jti")


class TokenError(ProtocolError):
    """A token that cannot be used: `code` is `unauthorized` or `token_expired`.

    A `ProtocolError`, so the gateway sends it as an `Error` and closes with
    `close_code` (4001 or 4002). The message never contains the token or the secret.
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code, message)


def _unauthorized(message: str) -> TokenError:
    return TokenError(ErrorCode.UNAUTHORIZED, message)


def _expired() -> TokenError:
    return TokenError(
        ErrorCode.TOKEN_EXPIRED, "the token has expired; ask the GM for a new one (combat renew)"
    )


@dataclass(frozen=True, slots=True)
class Grant:
    """What a verified token grants: one room, one role, and a player's combatants."""

    room_id: str
    role: Role
    seat: str
    controls: tuple[str, ...]
    expires_at: int
    token_id: str
    principal: Principal = field(init=False, repr=False, compare=False)
    """The principal `authority.authorize` checks commands against: made once, since
    the feed asks for it for every connection after every batch."""

    def __post_init__(self) -> None:
        principal = Principal(self.role, self.controls, self.seat or str(self.role))
        object.__setattr__(self, "principal", principal)


class JoinCodes(TypedDict):
    """The invite codes of one encounter (`server/gateway/invites.py`): the GM's, one
    per player seat, the spectators'; "" where it has none."""

    gm: str
    players: dict[str, str]
    spectator: str


class JoinTokens(TypedDict):
    """The tokens of one encounter, as the "create encounter" CLI and HTTP print them,
    and its invite codes once the host has kept them."""

    room: str
    gm: str
    players: dict[str, str]
    spectator: str
    expires_at: int
    codes: NotRequired[JoinCodes]


def check_secret(secret: bytes) -> bytes:
    """Return `secret` if it is long enough to sign with; raise ValueError if not."""
    if not isinstance(secret, bytes):
        raise TypeError("the token secret must be bytes")
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(
            f"the token secret is {len(secret)} bytes; at least {MIN_SECRET_BYTES} are needed"
        )
    return secret


class TokenIssuer:
    """Issues and verifies the join tokens of every room, with one secret and clock."""

    def __init__(
        self,
        secret: bytes,
        clock: Callable[[], float] = time.time,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
    ) -> None:
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int) or ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be a positive whole number of seconds")
        self._secret = check_secret(secret)
        self._clock = clock
        self.ttl_seconds = ttl_seconds

    def __repr__(self) -> str:  # never show the secret
        return f"TokenIssuer(ttl_seconds={self.ttl_seconds})"

    def now(self) -> int:
        """The issuer's clock, in whole seconds."""
        return int(self._clock())

    def issue(self, room_id: str, role: str, seat: str = "", controls: Iterable[str] = ()) -> str:
        """A signed token for `role` in `room_id`, valid for `ttl_seconds` from now.

        A player's token needs a seat name and at least one controlled combatant; the
        GM's and a spectator's control none. Mistakes here are the caller's: ValueError.
        """
        return self._issue(self.now(), room_id, role, seat, tuple(controls))

    def join_tokens(self, room_id: str, seats: Mapping[str, Iterable[str]]) -> JoinTokens:
        """The GM's token, one per player seat, and a spectator's, all expiring together.

        `seats` maps each seat's name to the ids of the combatants it controls. A
        combatant belongs to one seat at most, so each player's view is unambiguous.
        """
        now = self.now()
        owner: dict[str, str] = {}
        players: dict[str, str] = {}
        for seat, ids in seats.items():
            controls = tuple(ids)
            for combatant_id in controls:
                if owner.setdefault(combatant_id, seat) != seat:
                    raise ValueError(
                        f"combatant {combatant_id!r} is in seats {owner[combatant_id]!r} "
                        f"and {seat!r}; a combatant belongs to one seat"
                    )
            players[seat] = self._issue(now, room_id, Role.PLAYER, seat, controls)
        return JoinTokens(
            room=room_id,
            gm=self._issue(now, room_id, Role.GM, "gm", ()),
            players=players,
            spectator=self._issue(now, room_id, Role.SPECTATOR, "spectator", ()),
            expires_at=now + self.ttl_seconds,
        )

    def verify(self, token: object, room_id: str | None = None) -> Grant:
        """The grant of a genuine, unexpired token; `TokenError` for any other.

        With `room_id`, the token must be for that room. `token` is typed `object`
        because it comes off the wire: anything but a string is `unauthorized` too.
        """
        if not isinstance(token, str) or not token:
            raise _unauthorized("a token (a non-empty string) is required")
        if len(token) > MAX_TOKEN_CHARS:
            raise _unauthorized("the token is too long")
        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=[ALGORITHM],
                audience=AUDIENCE,
                options={
                    "require": list(_REQUIRED_CLAIMS),
                    "strict_aud": True,
                    # Time is checked below against the injected clock, not PyJWT's.
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                },
            )
        except jwt.InvalidAudienceError:
            raise _unauthorized("the token is not a verse-combat join token") from None
        except jwt.MissingRequiredClaimError:
            raise _unauthorized("the token lacks a required claim") from None
        except jwt.InvalidSignatureError:
            raise _unauthorized("the token's signature is not valid") from None
        except jwt.InvalidAlgorithmError:
            raise _unauthorized("the token is not signed with HS256") from None
        except jwt.InvalidTokenError:
            raise _unauthorized("the token is malformed") from None
        grant = _grant(claims)
        if room_id is not None and grant.room_id != room_id:
            raise _unauthorized("the token is for another room")
        if self.now() >= grant.expires_at:
            raise _expired()
        return grant

    def host_token(self, ttl_seconds: int = HOST_TTL_SECONDS) -> str:
        """A token that may create encounters (`create`) and join no room.

        Its own audience keeps it apart from join tokens: it cannot open a room, and a
        join token cannot create one.
        """
        now = self.now()
        claims = {
            "aud": HOST_AUDIENCE,
            "iat": now,
            "exp": now + ttl_seconds,
            "jti": secrets.token_urlsafe(12),
        }
        return jwt.encode(claims, self._secret, algorithm=ALGORITHM)

    def verify_host(self, token: object) -> int:
        """The expiry of a genuine, unexpired host token; `TokenError` for any other."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_CHARS:
            raise _unauthorized("a host token (a non-empty string) is required")
        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=[ALGORITHM],
                audience=HOST_AUDIENCE,
                options={
                    "require": ["aud", "iat", "exp", "jti"],
                    "strict_aud": True,
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                },
            )
        except jwt.InvalidTokenError:
            raise _unauthorized("the token is not a valid host token") from None
        expires_at = claims["exp"]
        if not _is_int(expires_at):
            raise _unauthorized("the token's times are malformed")
        if self.now() >= expires_at:
            raise TokenError(
                ErrorCode.TOKEN_EXPIRED,
                "the host token has expired; the server writes a fresh one at every start",
            )
        return int(expires_at)

    def _issue(
        self, now: int, room_id: str, role: str, seat: str, controls: tuple[str, ...]
    ) -> str:
        if not isinstance(room_id, str) or not room_id:
            raise ValueError("room_id must be a non-empty string")
        granted = _granted_role(role)
        if granted is None:
            raise ValueError(f"role must be one of gm, player, spectator, not {role!r}")
        if not isinstance(seat, str):
            raise ValueError("seat must be a string")
        if not all(isinstance(c, str) and c for c in controls):
            raise ValueError("controlled combatant ids must be non-empty strings")
        if len(set(controls)) != len(controls):
            raise ValueError(f"seat {seat!r} lists a combatant twice")
        if granted is Role.PLAYER and not (seat and controls):
            raise ValueError("a player's token needs a seat name and at least one combatant")
        if granted is not Role.PLAYER and controls:
            raise ValueError(f"a {granted} token controls no combatant")
        claims = {
            "aud": AUDIENCE,
            "room": room_id,
            "role": str(granted),
            "seat": seat,
            "controls": list(controls),
            "iat": now,
            "exp": now + self.ttl_seconds,
            "jti": secrets.token_urlsafe(12),
        }
        return jwt.encode(claims, self._secret, algorithm=ALGORITHM)


def _granted_role(value: object) -> Role | None:
    """The role a token may carry, or None (unknown, or the server's own "room")."""
    if not isinstance(value, str):
        return None
    try:
        role = Role(value)
    except ValueError:
        return None
    return role if role in GRANTED_ROLES else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _grant(claims: dict[str, Any]) -> Grant:
    """Check the shape of a signature-verified token's claims and build its grant.

    The signature proves the server made the token, but the checks stay strict so that
    a token from a buggy or older issuer cannot grant more than it says.
    """
    room, seat, controls = claims["room"], claims["seat"], claims["controls"]
    issued_at, expires_at, token_id = claims["iat"], claims["exp"], claims["jti"]
    role = _granted_role(claims["role"])
    if role is None:
        raise _unauthorized("the token's role is not one a token can grant")
    if not isinstance(room, str) or not room or not isinstance(seat, str):
        raise _unauthorized("the token's room or seat is malformed")
    if not isinstance(controls, list) or not all(isinstance(c, str) and c for c in controls):
        raise _unauthorized("the token's controlled combatants are malformed")
    if not (_is_int(issued_at) and _is_int(expires_at) and issued_at < expires_at):
        raise _unauthorized("the token's times are malformed")
    if not isinstance(token_id, str) or not token_id:
        raise _unauthorized("the token's id is malformed")
    if role is Role.PLAYER and not (seat and controls):
        raise _unauthorized("a player token must name its seat and its combatants")
    if role is not Role.PLAYER and controls:
        raise _unauthorized(f"a {role} token cannot control combatants")
    return Grant(room, role, seat, tuple(controls), expires_at, token_id)


def load_or_create_secret(path: Path | str) -> bytes:
    """The token secret kept at `path`: read it, or create it on the first start.

    Created as 64 hex characters (32 random bytes) plus a newline, mode 0600; the key
    is the text without the newline. The file appears whole or not at all (written to a
    temporary file, then hard-linked into place), so two servers starting at once agree
    on one secret. An existing file readable by group or others, or too short, is
    refused rather than used (as ssh does with private keys).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        _create_secret_file(path)
    mode = path.stat().st_mode
    if mode & 0o077:
        raise PermissionError(
            f"the token secret file {path} is readable by others (mode {mode & 0o777:o}); "
            "run chmod 600 on it"
        )
    secret = path.read_bytes().rstrip(b"\r\n")
    try:
        return check_secret(secret)
    except ValueError:
        raise ValueError(
            f"the token secret file {path} holds {len(secret)} bytes; "
            f"at least {MIN_SECRET_BYTES} are needed"
        ) from None


def _create_secret_file(path: Path) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "wb") as file:
            os.fchmod(file.fileno(), 0o600)
            file.write(secrets.token_hex(MIN_SECRET_BYTES).encode("ascii") + b"\n")
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another server made it first: use theirs
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the new name itself survives a power cut
    finally:
        os.close(directory)


__all__ = [
    "ALGORITHM",
    "AUDIENCE",
    "DEFAULT_TTL_SECONDS",
    "HOST_AUDIENCE",
    "HOST_TTL_SECONDS",
    "MIN_SECRET_BYTES",
    "SECRET_FILE_NAME",
    "Grant",
    "JoinCodes",
    "JoinTokens",
    "TokenError",
    "TokenIssuer",
    "check_secret",
    "load_or_create_secret",
]
