"""One connection's protocol without I/O: frames and time in; frames, a close and
requests for the room out.

Built the way the `websockets` library builds its own protocol core: the
`Connection` never touches a socket, a clock or a room. The shell
(`gateway/session.py`) tells it what arrived and when (`arrived`, `received`,
`expire`), performs what it asks (`Redeem`, `Join`, `Submit`, `CreateRoom`,
`RenewTokens`, `ListRooms`, `ListInvites`, `RevokeInvite`, `PeekPast`, `ReadSheetText`) and
tells it how
that went
(`redeemed`, `joined`, `acked`, `refused`, ...). Every answer is a list
of outputs: `Send` a frame, `Close` the connection, or one of those requests. So the
handshake, the budgets and every refusal are tested without sockets
(tests/gateway/test_connection.py), with time as a number.

The limits (docs/protocol.md, "What the server enforces"):

* a **frame budget**: every frame the client sends counts, whatever its type (data,
  ping, pong, a fragment of a message), against a token bucket; a connection over it
  is closed with 4010 (`flooding`). One frame is cheap for a client and costs the
  server a decode and often an answer: without a budget, one connection's flood of
  malformed frames or pings stalls everyone else on the process;
* **pongs at a bounded rate**: a `ping` over `pongs_per_second` gets no `pong`;
* a **command rate**: a `send`, `create`, `renew`, `rooms`, `invites`, `revoke`,
  `peek` or `read_sheet` over it is refused with
  `rate_limited`, and a connection that keeps far over it is closed with 4008;
* a **hello deadline**: no valid `hello` within `hello_seconds` closes with 4003.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from protocol import messages
from protocol.codec import Frame, decode, pack
from protocol.errors import CLOSE_CODES, CloseCode, ErrorCode, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Create,
    Hello,
    Invites,
    Peek,
    Ping,
    ReadSheet,
    Renew,
    Revoke,
    Rooms,
)
from server.engine.authority import Principal, Role
from server.gateway.invites import read_code
from server.gateway.tokens import Grant, JoinCodes, JoinTokens, TokenError, TokenIssuer


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-connection limits, and the per-address one on new connections (docs/protocol.md,
    "What the server enforces")."""

    hello_seconds: float = 10.0
    commands_per_second: float = 20.0
    command_burst: int = 40
    rate_strikes: int = 50  # refusals in a row for rate before the connection is closed
    send_buffer: int = 1 << 20  # bytes a client may leave unread before it is cut off
    # Every frame counts. A client's own use stays far below: 20 commands a second,
    # a ping now and then, websockets' keep-alive pings every 20 s.
    frames_per_second: float = 60.0
    frame_burst: int = 200
    pongs_per_second: float = 4.0
    pong_burst: int = 8
    # The keepalive: a ping every `ping_interval` seconds; one unanswered for
    # `ping_timeout` seconds closes the connection with 4009 (`slow_reader`).
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    # Per client address, not per connection (`admission.py`): new connections at most
    # `address_connections_per_second`, bursts of `address_connection_burst`; over it,
    # HTTP 429. 0 turns it off: behind a proxy, every client has the proxy's address.
    # Loopback addresses only with `limit_loopback` (a proxy on this machine, tools).
    address_connections_per_second: float = 20.0
    address_connection_burst: int = 100
    limit_loopback: bool = False


class Bucket:
    """A token bucket: `rate` per second, at most `burst` at once, on the time it is
    given (`take(now)`), so tests need no clock. Slotted, as everything an open
    connection holds: each connection has three."""

    __slots__ = ("at", "burst", "rate", "tokens")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = now

    def take(self, now: float) -> bool:
        if now > self.at:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


# --- what the connection asks of its shell ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Write `frame` to the client. `outcome` says what it answers, for the metrics:
    `("acked", "")`, `("refused", code)`, or None for any other frame."""

    frame: Frame
    outcome: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Close:
    """End the connection with the close code of `code`, after `frame` (the `error`,
    when there is one to send)."""

    code: ErrorCode
    message: str
    frame: Frame | None

    @property
    def close_code(self) -> int:
        return int(CLOSE_CODES.get(self.code, CloseCode.INTERNAL_ERROR))


@dataclass(frozen=True, slots=True)
class Redeem:
    """Find what the invite code `code` grants (`redeemed`), then join as with a token."""

    code: str
    resume_from_seq: int | None
    client: str


@dataclass(frozen=True, slots=True)
class Join:
    """Find the room `grant` names (`joined`, `join_failed`), then follow it from
    `resume_from_seq`."""

    grant: Grant
    resume_from_seq: int | None
    client: str


@dataclass(frozen=True, slots=True)
class Submit:
    """Read the command and submit it to the room as `principal` (`acked`, `refused`)."""

    cid: str
    principal: Principal
    command: Any


@dataclass(frozen=True, slots=True)
class CreateRoom:
    """Build and start the encounter, given as a map or as files (`created`,
    `refused`)."""

    cid: str
    encounter: Any
    files: Mapping[str, str]
    file: str


@dataclass(frozen=True, slots=True)
class RenewTokens:
    """Issue fresh tokens for an existing room's seats (`created`, `refused`)."""

    cid: str
    room: str
    seats: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class ListRooms:
    """Every room the store knows, with how to join each (`listed`, `refused`)."""

    cid: str


@dataclass(frozen=True, slots=True)
class ListInvites:
    """The GM's room's live invite codes (`codes`, `refused`)."""

    cid: str
    room: str


@dataclass(frozen=True, slots=True)
class RevokeInvite:
    """Revoke one of the GM's room's invite codes (`codes`, `refused`)."""

    cid: str
    room: str
    code: str
    reissue: bool


@dataclass(frozen=True, slots=True)
class PeekPast:
    """The GM's room's table after event `seq`, as a rewind there would restore it
    (`peeked`, `refused`)."""

    cid: str
    room: str
    seq: int


@dataclass(frozen=True, slots=True)
class ReadSheetText:
    """The combatant a sheet file's text makes in the GM's room (`sheet_read`,
    `refused`)."""

    cid: str
    file: str
    text: str


@dataclass(frozen=True, slots=True)
class Welcomed:
    """A host is in: count the connection (a joining one is counted once its room is
    found)."""


Output = (
    Send
    | Close
    | Welcomed
    | Redeem
    | Join
    | Submit
    | CreateRoom
    | RenewTokens
    | ListRooms
    | ListInvites
    | RevokeInvite
    | PeekPast
    | ReadSheetText
)


class Phase(Enum):
    HELLO = "hello"  # waiting for the hello
    JOINING = "joining"  # a join token verified (or a code looked up), the room being found
    HOST = "host"  # a host token: create, renew and list the rooms
    JOINED = "joined"  # following a room
    CLOSED = "closed"  # a close was asked for: nothing more is done


class Connection:
    """One connection's state: its phase, its budgets, and who it is."""

    __slots__ = (
        "_commands",
        "_frames",
        "_pongs",
        "_strikes",
        "binary",
        "events",
        "grant",
        "hello_deadline",
        "issuer",
        "limits",
        "phase",
        "role",
        "web",
    )

    def __init__(
        self, limits: Limits, issuer: TokenIssuer, *, binary: bool, now: float, web: str = ""
    ):
        self.limits = limits
        self.web = web  # the web app's page, told to a host (`Welcome.web`)
        self.issuer = issuer
        self.binary = binary
        self.phase = Phase.HELLO
        self.grant: Grant | None = None
        self.events = False  # the hello asked for the raw events too (`Hello.events`)
        self.role = "unknown"  # for metrics and logs: host, gm, player, spectator
        self.hello_deadline = now + limits.hello_seconds
        self._frames = Bucket(limits.frames_per_second, limits.frame_burst, now)
        self._pongs = Bucket(limits.pongs_per_second, limits.pong_burst, now)
        self._commands = Bucket(limits.commands_per_second, limits.command_burst, now)
        self._strikes = 0

    @property
    def principal(self) -> Principal | None:
        return None if self.grant is None else self.grant.principal

    @property
    def closed(self) -> bool:
        return self.phase is Phase.CLOSED

    # -- time and frames in --------------------------------------------------------------

    def arrived(self, now: float) -> list[Output]:
        """A frame of any type came in (the shell calls this for every one, before
        websockets acts on it). Over the frame budget: close with 4010."""
        if self.closed or self._frames.take(now):
            return []
        return self._close(ErrorCode.FLOODING, "over the connection's frame budget", error=False)

    def expire(self, now: float) -> list[Output]:
        """The shell's timer: close a connection that sent no hello in time."""
        if self.phase is Phase.HELLO and now >= self.hello_deadline:
            return self._close(ErrorCode.HELLO_REQUIRED, "no hello came in time")
        return []

    def received(self, frame: Frame, now: float) -> list[Output]:
        """A whole message came in."""
        if self.closed:
            return []
        if self.phase is Phase.HELLO:
            return self._hello(frame, now)
        try:
            message = decode(frame)
        except ProtocolError as error:
            if error.close_code is not None:
                return self._close(error.code, error.message)
            return [self._error(error.code, error.message)]
        if isinstance(message, Ping):
            if not self._pongs.take(now):
                return []  # answered at a bounded rate: the frame budget counts the rest
            return [self._send({"type": "pong", "nonce": message.nonce})]
        if isinstance(message, messages.Send):
            return self._command(message, now)
        if isinstance(message, Create):
            create = CreateRoom(message.cid, message.encounter, message.files, message.file)
            return self._host_request(message.cid, now, create)
        if isinstance(message, Renew):
            request = RenewTokens(message.cid, message.room, message.seats)
            return self._host_request(message.cid, now, request)
        if isinstance(message, Rooms):
            return self._host_request(message.cid, now, ListRooms(message.cid))
        if isinstance(message, Invites | Revoke | Peek | ReadSheet):
            return self._gm_request(message, now)
        return [
            self._error(
                ErrorCode.UNEXPECTED_MESSAGE, f"a {message.type} is only valid as the first message"
            )
        ]

    # -- how the shell's requests went ----------------------------------------------------

    def joined(self, room: str, ruleset: str, seq: int) -> list[Output]:
        """The room is found: welcome the client (the feed's catch-up follows). A
        connection closed meanwhile (cut off while the room was loading) gets nothing."""
        if self.closed:
            return []
        assert self.phase is Phase.JOINING and self.grant is not None
        self.phase = Phase.JOINED
        grant = self.grant
        seat = grant.seat if grant.role == Role.PLAYER else ""
        return [self._send(_welcome(room, ruleset, self.role, seat, list(grant.controls), seq))]

    def join_failed(self, code: ErrorCode, message: str) -> list[Output]:
        """No such room (`unauthorized`), or its store is away (`unavailable`)."""
        return self._close(code, message)

    def redeemed(self, request: Redeem, grant: Grant | None) -> list[Output]:
        """What the code grants, found in the store: join as its token would (None: no
        live code, `unauthorized`)."""
        if self.closed:
            return []
        if grant is None:
            message = "the invite code is not valid: mistyped, revoked or never given"
            return self._close(ErrorCode.UNAUTHORIZED, message)
        self.grant = grant
        self.role = str(grant.role)
        return [Join(grant, request.resume_from_seq, request.client)]

    def acked(self, cid: str, first_seq: int, last_seq: int) -> list[Output]:
        message = {"type": "ack", "cid": cid, "first_seq": first_seq, "last_seq": last_seq}
        return [self._send(message, ("acked", ""))]

    def refused(self, cid: str, code: str, message: str) -> list[Output]:
        refusal = {"type": "refused", "cid": cid, "code": code, "message": message[:1024]}
        return [self._send(refusal, ("refused", str(code)))]

    def created(self, cid: str, tokens: JoinTokens, name: str, ruleset: str) -> list[Output]:
        message = {
            "type": "created",
            "cid": cid,
            "room": tokens["room"],
            "name": name,
            "ruleset": ruleset,
            "gm": tokens["gm"],
            "players": tokens["players"],
            "spectator": tokens["spectator"],
            "expires_at": tokens["expires_at"],
        }
        if "codes" in tokens:
            message["codes"] = dict(tokens["codes"])
        return [self._send(message, ("acked", ""))]

    def listed(self, cid: str, rooms: Sequence[Mapping[str, Any]]) -> list[Output]:
        """The answer to `rooms`: each room as `Host.listing` describes it."""
        message = {"type": "listing", "cid": cid, "rooms": [dict(room) for room in rooms]}
        return [self._send(message, ("acked", ""))]

    def codes(self, cid: str, room: str, codes: JoinCodes) -> list[Output]:
        """The answer to `invites` and `revoke`: the room's live codes."""
        message = {"type": "codes", "cid": cid, "room": room, "codes": dict(codes)}
        return [self._send(message, ("acked", ""))]

    def peeked(self, cid: str, seq: int, view: Mapping[str, Any]) -> list[Output]:
        """The answer to `peek`: the GM's table after event `seq`."""
        message = {"type": "peeked", "cid": cid, "seq": seq, "view": view}
        return [self._send(message, ("acked", ""))]

    def sheet_read(self, cid: str, combatant: Mapping[str, Any]) -> list[Output]:
        """The answer to `read_sheet`: the combatant the sheet makes."""
        message = {"type": "sheet_read", "cid": cid, "combatant": dict(combatant)}
        return [self._send(message, ("acked", ""))]

    def failed(self) -> list[Output]:
        """The server failed on this connection's request: a bug, never the client's."""
        return self._close(ErrorCode.INTERNAL_ERROR, "the server failed; reconnect")

    def slow(self) -> list[Output]:
        """The client leaves too much unread: cut it off (no `error`: it would only
        wait behind what the client does not read)."""
        return self._close(ErrorCode.SLOW_READER, "not reading", error=False)

    # -- the handshake ------------------------------------------------------------------

    def _hello(self, frame: Frame, now: float) -> list[Output]:
        if now >= self.hello_deadline:
            return self._close(ErrorCode.HELLO_REQUIRED, "no hello came in time")
        try:
            hello = decode(frame)
        except ProtocolError as error:
            if error.code == ErrorCode.FRAME_TOO_LARGE:
                return self._close(error.code, error.message)
            return self._close(ErrorCode.HELLO_REQUIRED, f"{error.code}: {error.message}")
        if not isinstance(hello, Hello):
            return self._close(
                ErrorCode.HELLO_REQUIRED, f"the first message must be a hello, not a {hello.type}"
            )
        if hello.protocol != PROTOCOL_VERSION:
            return self._close(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.protocol}",
            )
        self.events = hello.events
        code = read_code(hello.token)
        if code is not None:  # an invite code: the store says what it grants
            self.phase = Phase.JOINING
            return [Redeem(code, hello.resume_from_seq, hello.client)]
        try:
            grant = self._verify(hello.token)
        except TokenError as error:
            return self._close(error.code, error.message)
        if grant is None:
            self.phase = Phase.HOST
            self.role = "host"
            welcome = {**_welcome("", "", "host", "", [], 0), "web": self.web}
            return [Welcomed(), self._send(welcome)]
        self.phase = Phase.JOINING
        self.grant = grant
        self.role = str(grant.role)
        return [Join(grant, hello.resume_from_seq, hello.client)]

    def _verify(self, token: str) -> Grant | None:
        """The token's grant, None for a host token; `TokenError` for anything else."""
        try:
            return self.issuer.verify(token)
        except TokenError as error:
            if error.code != ErrorCode.UNAUTHORIZED:
                raise
            not_a_join_token = error
        try:  # not a join token: perhaps a host token
            self.issuer.verify_host(token)
        except TokenError as host_error:
            if host_error.code == ErrorCode.TOKEN_EXPIRED:  # a genuine host token, expired
                raise
            raise not_a_join_token from None
        return None

    # -- requests -------------------------------------------------------------------------

    def _command(self, message: messages.Send, now: float) -> list[Output]:
        principal = self.principal
        if self.phase is not Phase.JOINED or principal is None:
            return self.refused(message.cid, ErrorCode.FORBIDDEN, "a host token joins no room")
        if principal.role == Role.SPECTATOR:  # before reading: spectators send nothing
            return self.refused(message.cid, ErrorCode.FORBIDDEN, "a spectator may send no command")
        over = self._over_rate(message.cid, now)
        if over is not None:
            return over
        return [Submit(message.cid, principal, message.command)]

    def _host_request(self, cid: str, now: float, request: Output) -> list[Output]:
        if self.phase is not Phase.HOST:
            what = {CreateRoom: "create encounters", RenewTokens: "renew tokens"}.get(
                type(request), "list the rooms"
            )
            return self.refused(cid, ErrorCode.FORBIDDEN, f"only a host token may {what}")
        over = self._over_rate(cid, now)
        return [request] if over is None else over

    def _gm_request(self, message: Invites | Revoke | Peek | ReadSheet, now: float) -> list[Output]:
        grant = self.grant
        if self.phase is not Phase.JOINED or grant is None or grant.role is not Role.GM:
            if isinstance(message, Peek):
                problem = "only the GM may look at the fight as it was"
            elif isinstance(message, ReadSheet):
                problem = "only the GM may add combatants from sheet files"
            else:
                what = "see" if isinstance(message, Invites) else "revoke"
                problem = f"only the GM may {what} the room's invite codes"
            return self.refused(message.cid, ErrorCode.FORBIDDEN, problem)
        over = self._over_rate(message.cid, now)
        if over is not None:
            return over
        if isinstance(message, Peek):
            return [PeekPast(message.cid, grant.room_id, message.seq)]
        if isinstance(message, Invites):
            return [ListInvites(message.cid, grant.room_id)]
        if isinstance(message, ReadSheet):
            return [ReadSheetText(message.cid, message.file, message.text)]
        code = read_code(message.code)
        if code is None:
            problem = "that is not an invite code (10 letters and digits, as create printed)"
            return self.refused(message.cid, ErrorCode.UNKNOWN_INVITE, problem)
        return [RevokeInvite(message.cid, grant.room_id, code, message.reissue)]

    def _over_rate(self, cid: str, now: float) -> list[Output] | None:
        """None when the command rate allows one more; else the refusal or the close."""
        if self._commands.take(now):
            self._strikes = 0
            return None
        self._strikes += 1
        if self._strikes > self.limits.rate_strikes:
            return self._close(ErrorCode.RATE_LIMITED, "far over the command rate for too long")
        return self.refused(cid, ErrorCode.RATE_LIMITED, "over the command rate: slow down")

    # -- frames -------------------------------------------------------------------------

    def _send(self, message: dict[str, Any], outcome: tuple[str, str] | None = None) -> Send:
        return Send(pack(message, binary=self.binary), outcome)

    def _error(self, code: ErrorCode, message: str) -> Send:
        return self._send({"type": "error", "code": str(code), "message": message})

    def _close(self, code: ErrorCode, message: str, *, error: bool = True) -> list[Output]:
        if self.closed:
            return []
        self.phase = Phase.CLOSED
        frame = self._error(code, message).frame if error else None
        return [Close(code, message, frame)]


def _welcome(
    room: str, ruleset: str, role: str, seat: str, controls: list[str], seq: int
) -> dict[str, Any]:
    return {
        "type": "welcome",
        "protocol": PROTOCOL_VERSION,
        "room": room,
        "ruleset": ruleset,
        "role": role,
        "seat": seat,
        "controls": controls,
        "seq": seq,
    }
