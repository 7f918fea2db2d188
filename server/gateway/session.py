"""One websocket connection: handshake, catch-up, commands in, views out.

The session is a thin shell (ARCHITECTURE): it reads frames, checks them
(`protocol.decode`), takes the role from the token and nothing else, turns a `send`
into the engine's command (`commands.CommandReader`), hands it to the room, and
writes what the room's feed says. It never decides a rule.

Outgoing frames are written at once, in order, into the socket's buffer (as
`websockets.broadcast` writes): no queue, no writer task, nothing for the feed to wait
on. The buffer is bounded in bytes (`send_buffer`): a client that does not read fast
enough is closed with 4009 (`slow_reader`) instead of holding its room's feed back; it
reconnects and resumes from its last seq.

Commands of one connection are handled one after another: the next `send` is read
once the previous one is acknowledged or refused. A token bucket bounds each
connection's command rate: a `send` over it is refused (`rate_limited`), and a
connection that keeps sending far over it is closed (4008).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed

from protocol.codec import binary_for, decode, pack
from protocol.errors import CLOSE_CODES, CloseCode, ErrorCode, ProtocolError
from protocol.messages import PROTOCOL_VERSION, Create, Hello, Ping, Renew, Send
from server.encounters import EncounterError
from server.engine.authority import Principal, Role
from server.engine.errors import CommandRefused
from server.engine.state import Encounter
from server.engine.views import Audience, audience_of
from server.gateway.feed import Frame
from server.gateway.tokens import Grant, JoinTokens, TokenError
from server.hosting import Unavailable

if TYPE_CHECKING:
    from server.gateway.server import Gateway
    from server.hosting import Hosted

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-connection limits (docs/protocol.md, "What the server enforces")."""

    hello_seconds: float = 10.0
    commands_per_second: float = 20.0
    command_burst: int = 40
    rate_strikes: int = 50  # refusals in a row for rate before the connection is closed
    send_buffer: int = 1 << 20  # bytes a client may leave unread before it is cut off


class Bucket:
    """A token bucket: `rate` per second, at most `burst` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Closing(Exception):
    """End the connection with `code` after sending an `error` (when `send_error`)."""

    def __init__(self, code: ErrorCode, message: str, *, send_error: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.send_error = send_error


class Session:
    def __init__(self, ws: ServerConnection, gateway: Gateway) -> None:
        self.ws = ws
        self.gateway = gateway
        self.limits = gateway.limits
        self.binary = binary_for(ws.subprotocol)
        self._allowance = 0  # catch-up bytes the send buffer may hold beyond its limit
        self._closing: Closing | None = None
        self._principal: Principal | None = None
        self._bucket = Bucket(self.limits.commands_per_second, self.limits.command_burst)
        self._strikes = 0
        self._closer: asyncio.Task[None] | None = None
        self.role = "unknown"

    # -- what the feed calls ----------------------------------------------------------

    def audience(self, state: Encounter) -> Audience:
        assert self._principal is not None
        return audience_of(self._principal, state)

    def push(self, frame: Frame, *, catch_up: bool = False) -> None:
        """Write `frame` now, without waiting (as `websockets.broadcast` does): the
        frame goes to the socket's buffer in order, and the feed never waits for a
        client. What the client has not read yet stays in the buffer; over
        `send_buffer` bytes the client is a slow reader and is closed (4009).

        Catch-up frames (the snapshot or missed events of a join) are written whatever
        their size, and the buffer may hold that much more until it drains below its
        limit again, so a big fight can still be joined."""
        if self._closing is not None:
            return
        transport = self.ws.transport
        buffered = transport.get_write_buffer_size() if transport is not None else 0
        if catch_up:
            self._allowance = max(self._allowance, buffered) + len(frame)
        elif buffered > self.limits.send_buffer + self._allowance:
            self._close_soon(Closing(ErrorCode.SLOW_READER, "not reading", send_error=False))
            return
        elif buffered <= self.limits.send_buffer:
            self._allowance = 0  # the catch-up has drained
        broadcast((self.ws,), frame)
        self.gateway.metrics.frames.inc()

    def send(self, message: dict[str, Any]) -> None:
        self.push(pack(message, binary=self.binary))

    # -- the connection ---------------------------------------------------------------

    async def run(self) -> None:
        hosted: Hosted | None = None
        try:
            hosted = await self._handshake()
            await self._read(hosted)
        except Closing as closing:
            self._close_soon(closing)
        except ConnectionClosed:
            pass
        finally:
            if hosted is not None:
                hosted.feed.leave(self)
                self.gateway.metrics.connections.labels(self.role).dec()
            elif self.role == "host":
                self.gateway.metrics.connections.labels(self.role).dec()
            if self._closer is not None:
                with contextlib.suppress(Exception):
                    await self._closer

    def _close_soon(self, closing: Closing) -> None:
        """Send the `error` (if any), then close with the error's close code. A slow
        reader gets no `error`: it would only wait behind what it does not read."""
        if self._closing is not None:
            return
        if closing.send_error and closing.code != ErrorCode.SLOW_READER:
            self.send({"type": "error", "code": str(closing.code), "message": closing.message})
        self._closing = closing
        code = CLOSE_CODES.get(closing.code, CloseCode.INTERNAL_ERROR)
        self.gateway.metrics.cut.labels(str(closing.code)).inc()
        # websockets aborts the socket if the close handshake times out.
        self._closer = asyncio.create_task(self.ws.close(int(code), str(closing.code)))

    async def _handshake(self) -> Hosted | None:
        try:
            frame = await asyncio.wait_for(self.ws.recv(), self.limits.hello_seconds)
        except TimeoutError:
            raise Closing(ErrorCode.HELLO_REQUIRED, "no hello came in time") from None
        try:
            hello = decode(frame)
        except ProtocolError as error:
            if error.code == ErrorCode.FRAME_TOO_LARGE:
                raise Closing(error.code, error.message) from None
            raise Closing(ErrorCode.HELLO_REQUIRED, f"{error.code}: {error.message}") from None
        if not isinstance(hello, Hello):
            raise Closing(
                ErrorCode.HELLO_REQUIRED, f"the first message must be a hello, not a {hello.type}"
            )
        if hello.protocol != PROTOCOL_VERSION:
            raise Closing(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.protocol}",
            )
        grant = self._verify(hello.token)
        if grant is None:
            self.role = "host"
            self.gateway.metrics.connections.labels(self.role).inc()
            self.send(_welcome("", "", "host", "", [], 0))
            return None
        try:
            hosted = await self.gateway.host.get(grant.room_id)
        except Unavailable as error:
            logger.warning("room unavailable", extra={"room": grant.room_id, "error": str(error)})
            raise Closing(
                ErrorCode.UNAVAILABLE, "the room cannot be reached now; reconnect soon"
            ) from None
        if hosted is None:
            raise Closing(ErrorCode.UNAUTHORIZED, "the token names no room on this server")
        self._principal = grant.principal
        self.role = str(grant.role)
        self.gateway.metrics.connections.labels(self.role).inc()
        feed = hosted.feed
        self.send(
            _welcome(
                grant.room_id,
                feed.state.ruleset,
                self.role,
                grant.seat if self.role == "player" else "",
                list(grant.controls),
                feed.seq,
            )
        )
        feed.join(self, hello.resume_from_seq)
        logger.info(
            "joined",
            extra={
                "room": grant.room_id,
                "role": self.role,
                "seat": grant.seat,
                "client": hello.client,
                "token": grant.token_id,  # which token joined, never the token itself
            },
        )
        return hosted

    def _verify(self, token: str) -> Grant | None:
        """The token's grant, None for a host token; `Closing` for anything else."""
        issuer = self.gateway.host.issuer
        try:
            return issuer.verify(token)
        except TokenError as error:
            if error.code != ErrorCode.UNAUTHORIZED:
                raise Closing(error.code, error.message) from None
            not_a_join_token = error
        try:  # not a join token: perhaps a host token
            issuer.verify_host(token)
        except TokenError as host_error:
            if host_error.code == ErrorCode.TOKEN_EXPIRED:  # a genuine host token, expired
                raise Closing(host_error.code, host_error.message) from None
            raise Closing(not_a_join_token.code, not_a_join_token.message) from None
        return None

    async def _read(self, hosted: Hosted | None) -> None:
        async for frame in self.ws:
            if self._closing is not None:
                return
            try:
                message = decode(frame)
            except ProtocolError as error:
                if error.close_code is not None:
                    raise Closing(error.code, error.message) from None
                self.send({"type": "error", "code": str(error.code), "message": error.message})
                continue
            if isinstance(message, Send):
                await self._command(hosted, message)
            elif isinstance(message, Create):
                await self._create(hosted, message)
            elif isinstance(message, Renew):
                await self._renew(hosted, message)
            elif isinstance(message, Ping):
                self.send({"type": "pong", "nonce": message.nonce})
            else:
                self.send(
                    {
                        "type": "error",
                        "code": str(ErrorCode.UNEXPECTED_MESSAGE),
                        "message": f"a {message.type} is only valid as the first message",
                    }
                )

    def _refuse(self, cid: str, code: str, message: str) -> None:
        self.gateway.metrics.commands.labels("refused", code).inc()
        self.send({"type": "refused", "cid": cid, "code": code, "message": message[:1024]})

    def _rate_ok(self, cid: str) -> bool:
        if self._bucket.take():
            self._strikes = 0
            return True
        self._strikes += 1
        if self._strikes > self.limits.rate_strikes:
            raise Closing(ErrorCode.RATE_LIMITED, "far over the command rate for too long")
        self._refuse(cid, ErrorCode.RATE_LIMITED, "over the command rate: slow down")
        return False

    async def _command(self, hosted: Hosted | None, message: Send) -> None:
        started = time.perf_counter()
        if hosted is None or self._principal is None:
            self._refuse(message.cid, ErrorCode.FORBIDDEN, "a host token joins no room")
            return
        if self._principal.role == Role.SPECTATOR:  # before reading: spectators send nothing
            self._refuse(message.cid, ErrorCode.FORBIDDEN, "a spectator may send no command")
            return
        if not self._rate_ok(message.cid):
            return
        try:
            command = hosted.reader.read(message.command)
            ack = await hosted.runner.submit(self._principal, command, message.cid)
        except CommandRefused as refused:
            self._refuse(message.cid, refused.code, refused.message)
            return
        except Exception:
            logger.exception("command failed", extra={"room": hosted.room_id})
            raise Closing(ErrorCode.INTERNAL_ERROR, "the server failed; reconnect") from None
        self.send(
            {
                "type": "ack",
                "cid": message.cid,
                "first_seq": ack.first_seq,
                "last_seq": ack.last_seq,
            }
        )
        self.gateway.metrics.commands.labels("acked", "").inc()
        self.gateway.metrics.latency.observe(time.perf_counter() - started)

    async def _create(self, hosted: Hosted | None, message: Create) -> None:
        if hosted is not None or self.role != "host":
            self._refuse(
                message.cid, ErrorCode.FORBIDDEN, "only a host token may create encounters"
            )
            return
        if not self._rate_ok(message.cid):
            return
        try:
            built, tokens = await self.gateway.host.create(message.encounter)
        except EncounterError as error:
            self._refuse(message.cid, ErrorCode.INVALID_ENCOUNTER, "; ".join(error.problems))
            return
        logger.info("created", extra={"room": tokens["room"], "seats": len(tokens["players"])})
        self._tokens(message.cid, tokens, built.name, built.encounter.ruleset)

    async def _renew(self, hosted: Hosted | None, message: Renew) -> None:
        """Fresh tokens for an existing room: a fight prepared weeks ago, a GM whose
        token expired. The seats are named again (the encounter file has them); each
        combatant must be in the room now."""
        if hosted is not None or self.role != "host":
            self._refuse(message.cid, ErrorCode.FORBIDDEN, "only a host token may renew tokens")
            return
        if not self._rate_ok(message.cid):
            return
        room = await self.gateway.host.get(message.room)
        if room is None:
            self._refuse(message.cid, ErrorCode.INVALID_ENCOUNTER, f"no room {message.room!r}")
            return
        present = room.feed.state.combatants
        missing = sorted({c for ids in message.seats.values() for c in ids} - set(present))
        if missing:
            problem = f"no combatant {', '.join(missing)} in room {message.room}"
            self._refuse(message.cid, ErrorCode.INVALID_ENCOUNTER, problem)
            return
        try:
            tokens = self.gateway.host.issuer.join_tokens(message.room, message.seats)
        except ValueError as error:  # a combatant in two seats
            self._refuse(message.cid, ErrorCode.INVALID_ENCOUNTER, str(error))
            return
        logger.info("renewed", extra={"room": message.room, "seats": len(tokens["players"])})
        self._tokens(message.cid, tokens, "", room.feed.state.ruleset)

    def _tokens(self, cid: str, tokens: JoinTokens, name: str, ruleset: str) -> None:
        self.gateway.metrics.commands.labels("acked", "").inc()
        self.send(
            {
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
        )


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
