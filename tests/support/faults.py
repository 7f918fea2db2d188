"""A TCP proxy that breaks on demand, put between server code and a Redis of the tests.

`FaultyProxy` listens on a free loopback port and forwards every connection to the
Redis it was made for (a private `redis-server`, or the one `REDIS_URL` names); code
under test is given `proxy.url` instead of Redis's own URL. The faults, each until
`heal()`:

- `cut()`: every connection is closed (the client reads end of file) and new ones are
  refused (nothing listens on the port: `ECONNREFUSED`), as when Redis is down;
- `stall()`: bytes are taken in but not passed on, in both directions or one
  (`to_redis=False`: requests reach Redis, replies are held), as with a frozen Redis
  or a network that drops packets; on `heal()` what was held goes through, in order;
- `slow(seconds)`: every chunk waits `seconds` before going on, as on a slow link;
- `reset()`: every connection is aborted with a TCP reset (`SO_LINGER` 0: the client
  reads `ECONNRESET`); unlike `cut()` new connections are taken at once.

The proxy never touches Redis itself: a fault test breaks only its own connections,
whichever Redis is behind. `stop()` closes everything within a deadline, held bytes
and all.

Every wait of a pump ends: a read when its side sends or closes, a stall on `heal()`,
each of them when its link ends or `stop()` cancels it (within its deadline); passing a
chunk on waits at most `STUCK` seconds for the other side to take it, then the link is
reset. A read has no deadline of its own: an idle Redis connection (a subscription with
nothing published) is healthy, and the proxy breaks nothing a test did not ask it to.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import Coroutine
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

Direction = Literal["to_redis", "to_client"]
CHUNK = 65536
CONNECT_TIMEOUT = 5.0
STUCK = 10.0
"""Seconds a chunk passed on may wait for the other side to take it (its socket's buffer
full) before the link is given up with a reset, as a TCP stack gives up on a dead peer."""


class _Link:
    """One client connection and its connection to Redis, with a pump each way."""

    def __init__(
        self,
        client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        redis: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    ) -> None:
        self.client_reader, self.client_writer = client
        self.redis_reader, self.redis_writer = redis
        self.pumps: list[asyncio.Task[None]] = []

    def writers(self) -> tuple[asyncio.StreamWriter, asyncio.StreamWriter]:
        return self.client_writer, self.redis_writer

    def close(self) -> None:
        """Close both sockets (a FIN each way, what was written is still sent)."""
        for writer in self.writers():
            writer.close()

    def abort(self) -> None:
        """Reset both sockets: `SO_LINGER` 0, then close without flushing."""
        for writer in self.writers():
            sock = writer.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()


class FaultyProxy:
    """A proxy to the Redis at `upstream` (`redis://host:port/db`); the module docstring."""

    def __init__(self, upstream: str, *, host: str = "127.0.0.1") -> None:
        parts = urlsplit(upstream)
        if parts.hostname is None:
            raise ValueError(f"no host in {upstream!r}")
        self.upstream = upstream
        self.redis_host = parts.hostname
        self.redis_port = parts.port or 6379
        self.host = host
        self.port = 0
        self.accepted = 0  # connections taken so far
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # pumps, and connections being opened
        self._flowing: dict[Direction, asyncio.Event] = {
            "to_redis": asyncio.Event(),
            "to_client": asyncio.Event(),
        }
        for event in self._flowing.values():
            event.set()
        self._delay = 0.0
        self._refusing = False
        self.holding = 0  # chunks taken in and held back by a stall, right now

    @property
    def url(self) -> str:
        """The upstream URL with the proxy's address: same scheme, password and db."""
        parts = urlsplit(self.upstream)
        credentials = parts.netloc.rpartition("@")[0]
        netloc = f"{credentials}@" if credentials else ""
        return urlunsplit(parts._replace(netloc=f"{netloc}{self.host}:{self.port}"))

    @property
    def connections(self) -> int:
        """Connections open through the proxy now."""
        return len(self._links)

    # -- life ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on a free port (the same one again after a `cut`)."""
        self._server = await asyncio.start_server(self._accept, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop listening and reset every connection; return within `timeout` seconds."""
        self._refusing = True
        await self._close_listener()
        for link in list(self._links):
            self._end(link, reset=True)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            _, stuck = await asyncio.wait(tasks, timeout=timeout)
            if stuck:
                raise TimeoutError(f"{len(stuck)} proxy tasks did not stop in {timeout}s")

    async def __aenter__(self) -> FaultyProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- faults -------------------------------------------------------------------------

    async def cut(self) -> None:
        """Close every connection and refuse new ones until `heal()`."""
        self._refusing = True
        await self._close_listener()
        for link in list(self._links):
            self._end(link, reset=False)

    def stall(self, *, to_redis: bool = True, to_client: bool = True) -> None:
        """Hold the bytes going `to_redis`, `to_client` or both, until `heal()`."""
        if to_redis:
            self._flowing["to_redis"].clear()
        if to_client:
            self._flowing["to_client"].clear()

    def slow(self, seconds: float) -> None:
        """Delay every chunk, either way, by `seconds` until `heal()`."""
        self._delay = seconds

    async def reset(self) -> None:
        """Abort every open connection with a TCP reset; new ones are taken as usual."""
        for link in list(self._links):
            self._end(link, reset=True)

    async def heal(self) -> None:
        """End every fault: listen again after a cut, let held bytes go, no delay."""
        self._delay = 0.0
        for event in self._flowing.values():
            event.set()
        if self._refusing:
            self._refusing = False
            await self.start()

    # -- the forwarding -----------------------------------------------------------------

    async def _close_listener(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 1.0)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._refusing:  # accepted just before the listener closed
            writer.transport.abort()
            return
        self.accepted += 1
        opening = asyncio.current_task()
        assert opening is not None
        self._tasks.add(opening)
        try:
            redis = await asyncio.wait_for(
                asyncio.open_connection(self.redis_host, self.redis_port), CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError, asyncio.CancelledError):
            writer.transport.abort()
            return
        finally:
            self._tasks.discard(opening)
        if self._refusing:  # cut while connecting
            redis[1].transport.abort()
            writer.transport.abort()
            return
        link = _Link((reader, writer), redis)
        self._links.add(link)
        link.pumps = [
            self._spawn(self._pump(link, link.client_reader, link.redis_writer, "to_redis")),
            self._spawn(self._pump(link, link.redis_reader, link.client_writer, "to_client")),
        ]

    def _spawn(self, job: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _end(self, link: _Link, *, reset: bool) -> None:
        """Close (or reset) `link` and stop its pumps; what they held is dropped."""
        self._links.discard(link)
        if reset:
            link.abort()
        else:
            link.close()
        current = asyncio.current_task()
        for pump in link.pumps:
            if pump is not current:
                pump.cancel()

    async def _pump(
        self,
        link: _Link,
        source: asyncio.StreamReader,
        sink: asyncio.StreamWriter,
        direction: Direction,
    ) -> None:
        """Copy `source` to `sink` chunk by chunk, through the faults; either side's end
        (or error) closes the whole link."""
        try:
            while data := await source.read(CHUNK):
                if not self._flowing[direction].is_set():
                    self.holding += 1
                    try:
                        await self._flowing[direction].wait()
                    finally:
                        self.holding -= 1
                if self._delay:
                    await asyncio.sleep(self._delay)
                sink.write(data)
                async with asyncio.timeout(STUCK):
                    await sink.drain()
        except TimeoutError:  # the other side takes nothing: flushing would never end
            if link in self._links:
                self._end(link, reset=True)
            return
        except OSError:
            pass
        if link in self._links:  # this side ended first: end the other one too
            self._end(link, reset=False)
