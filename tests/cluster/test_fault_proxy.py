"""The fault-injecting proxy of tests/support/faults.py does what the fault tests rely
on: each fault, seen from a client speaking Redis's protocol through it, and seen from
Redis (asked directly, past the proxy)."""

from __future__ import annotations

import asyncio
import errno
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from tests.support.faults import FaultyProxy
from tests.support.redis import fresh_prefix
from tests.support.waiting import within

STEP = 5.0  # seconds any single exchange through a healthy proxy may take, at most


@pytest.fixture
async def proxy(redis_url: str) -> AsyncIterator[FaultyProxy]:
    async with FaultyProxy(redis_url) as started:
        yield started


@pytest.fixture
async def direct(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await within(client.aclose(), what="closing the direct client")


class Line:
    """A raw connection through the proxy, speaking Redis's inline commands."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, proxy: FaultyProxy) -> Line:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(proxy.host, proxy.port), STEP
        )
        return cls(reader, writer)

    async def send(self, command: str) -> None:
        self.writer.write(command.encode() + b"\r\n")
        await asyncio.wait_for(self.writer.drain(), STEP)

    async def reply(self, timeout: float = STEP) -> bytes:
        return await asyncio.wait_for(self.reader.readline(), timeout)

    async def ask(self, command: str) -> bytes:
        await self.send(command)
        return await self.reply()

    def close(self) -> None:
        self.writer.close()


async def test_a_healthy_proxy_passes_everything_through(proxy: FaultyProxy, direct: Redis) -> None:
    key = fresh_prefix() + "k"
    line = await Line.open(proxy)
    try:
        assert await line.ask("PING") == b"+PONG\r\n"
        assert await line.ask(f"SET {key} through") == b"+OK\r\n"
        assert await direct.get(key) == b"through"
        assert proxy.connections == 1 and proxy.accepted == 1
    finally:
        line.close()
        await direct.delete(key)
    assert proxy.url.startswith("redis://127.0.0.1:") and str(proxy.port) in proxy.url


async def test_cut_closes_connections_and_refuses_new_ones_until_healed(
    proxy: FaultyProxy,
) -> None:
    line = await Line.open(proxy)
    assert await line.ask("PING") == b"+PONG\r\n"
    await proxy.cut()
    assert await line.reply() == b""  # end of file: the connection was closed
    with pytest.raises(ConnectionRefusedError):
        await Line.open(proxy)
    await proxy.heal()
    again = await Line.open(proxy)  # the same port listens again
    try:
        assert await again.ask("PING") == b"+PONG\r\n"
    finally:
        again.close()
        line.close()


async def test_stall_holds_the_bytes_and_heal_lets_them_through_in_order(
    proxy: FaultyProxy, direct: Redis
) -> None:
    key = fresh_prefix() + "k"
    line = await Line.open(proxy)
    try:
        assert await line.ask("PING") == b"+PONG\r\n"
        proxy.stall()
        await line.send(f"SET {key} held")
        await line.send(f"APPEND {key} -then")
        with pytest.raises(TimeoutError):
            await line.reply(timeout=0.3)
        assert await direct.get(key) is None  # the request never reached Redis
        assert proxy.holding >= 1
        await proxy.heal()
        assert await line.reply() == b"+OK\r\n"
        assert await line.reply() == b":9\r\n"  # len("held-then")
        assert proxy.holding == 0
        assert await direct.get(key) == b"held-then"
    finally:
        line.close()
        await direct.delete(key)


async def test_a_stall_of_the_replies_only_lets_requests_reach_redis(
    proxy: FaultyProxy, direct: Redis
) -> None:
    key = fresh_prefix() + "k"
    line = await Line.open(proxy)
    try:
        proxy.stall(to_redis=False)
        await line.send(f"SET {key} landed")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STEP
        while await direct.get(key) is None:  # Redis applied it...
            assert loop.time() < deadline, "the request did not reach Redis"
            await asyncio.sleep(0.01)
        with pytest.raises(TimeoutError):  # ...and its answer is held
            await line.reply(timeout=0.3)
        await proxy.heal()
        assert await line.reply() == b"+OK\r\n"
    finally:
        line.close()
        await direct.delete(key)


async def test_slow_delays_every_chunk(proxy: FaultyProxy) -> None:
    line = await Line.open(proxy)
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert await line.ask("PING") == b"+PONG\r\n"
        quick = loop.time() - started
        proxy.slow(0.2)
        started = loop.time()
        assert await line.ask("PING") == b"+PONG\r\n"
        assert loop.time() - started >= 0.4  # 0.2 s there, 0.2 s back
        await proxy.heal()
        started = loop.time()
        assert await line.ask("PING") == b"+PONG\r\n"
        assert loop.time() - started < max(0.2, 10 * quick)
    finally:
        line.close()


async def test_reset_aborts_open_connections_but_takes_new_ones(proxy: FaultyProxy) -> None:
    line = await Line.open(proxy)
    try:
        assert await line.ask("PING") == b"+PONG\r\n"
        await proxy.reset()
        with pytest.raises(ConnectionResetError) as reset:
            await line.ask("PING")
            await line.ask("PING")  # the reset may land after the first write
        assert reset.value.errno in (errno.ECONNRESET, None)
        again = await Line.open(proxy)
        try:
            assert await again.ask("PING") == b"+PONG\r\n"
        finally:
            again.close()
    finally:
        line.close()


async def test_stop_ends_stalled_connections_within_its_deadline(redis_url: str) -> None:
    proxy = FaultyProxy(redis_url)
    await proxy.start()
    lines = [await Line.open(proxy) for _ in range(3)]
    for line in lines:
        assert await line.ask("PING") == b"+PONG\r\n"
    proxy.stall()
    for line in lines:
        await line.send("PING")
    loop = asyncio.get_running_loop()
    started = loop.time()
    await proxy.stop(timeout=2.0)
    assert loop.time() - started < 2.0
    assert proxy.connections == 0
    for line in lines:  # reset, their held requests dropped: no answer will come
        try:
            answer = await line.reply()
        except ConnectionResetError:
            answer = b""
        assert answer == b""
        line.close()
    with pytest.raises(ConnectionRefusedError):
        await Line.open(proxy)
