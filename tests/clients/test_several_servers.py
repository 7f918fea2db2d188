"""A client that knows several addresses of one service: it joins the first that
answers, and when its server dies it reconnects to a live one and resumes by seq,
missing nothing and repeating nothing.

An embedded server cannot share its data dir with a second process, so here the
server is killed and started again on the same data dir at another port, one of the
addresses the client was given (tests/cluster/test_several_servers.py kills one of two
processes of a cluster instead)."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from clients import cli
from clients.client import Client, JoinError
from tests.clients.support import ANSWER, Terminal, seqs
from tests.support.redis import free_port
from tests.support.server import JOIN_LINE, JOIN_LINES, ServerProcess
from tests.support.waiting import until, within

RESTART = 30.0
"""Seconds a server process may take to start (a busy machine)."""


def url_on(port: int) -> str:
    return f"ws://127.0.0.1:{port}/ws"


@pytest.fixture
def first(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / "data")
    server.start(RESTART)
    try:
        yield server
    finally:
        server.kill()


def printed_codes(server: ServerProcess) -> dict[str, str]:
    lines = server.read_output(JOIN_LINES)
    return {m.group(1).strip(): m.group(2) for line in lines if (m := JOIN_LINE.match(line))}


@pytest.fixture
async def moved(first: ServerProcess) -> AsyncIterator[list[ServerProcess]]:
    """Started again later (`moved[0].start()`) on the first's data dir, another port."""
    again = ServerProcess(first.data_dir, port=free_port())
    yield [again]
    again.kill()


async def following(client: Client, seq: int) -> None:
    await until(lambda: client.seq == seq, 20, f"{client.role} up to event {seq}")


async def test_the_client_moves_to_a_live_address_and_resumes_by_seq(
    first: ServerProcess, moved: list[ServerProcess]
) -> None:
    codes = printed_codes(first)
    later = moved[0]
    urls = [first.url, url_on(later.port)]
    gm = await Client.connect(
        urls, codes["GM"], auto_reconnect=True, backoff=[0.05, 0.2], keep_events=True
    )
    ayla = await Client.connect(
        urls[::-1], codes["ayla"], auto_reconnect=True, keep_events=True
    )  # B first
    async with gm, ayla:
        assert (gm.url, ayla.url) == (first.url, first.url)  # B is not there: A answered
        started = await gm.send({"type": "StartCombat"}, timeout=ANSWER)
        assert started.type == "ack"
        await following(ayla, started.last_seq)

        first.kill()  # no goodbye: the connections just break
        await asyncio.to_thread(later.start, RESTART)
        await until(lambda: gm.url == later.url and gm.connected, 20, "the GM on the new address")

        paused = await gm.send({"type": "Pause", "by": "gm"}, timeout=ANSWER)
        assert paused.type == "ack"
        for client in (gm, ayla):
            await following(client, paused.last_seq)
            assert seqs(client) == list(range(1, paused.last_seq + 1))
            assert (client.gaps, client.repeats) == (0, 0)
            assert client.url == later.url
        assert gm.connections == 2


async def test_no_live_address_says_which_were_tried(tmp_path: Path) -> None:
    dead = [url_on(free_port()), url_on(free_port())]

    with pytest.raises(JoinError) as failed:
        await within(
            Client.connect(dead, "K7QM4XPR2W", keep_events=True), 20, "trying two dead addresses"
        )

    assert failed.value.code == "connection_failed"
    assert failed.value.message.startswith(f"no server welcomed us ({dead[0]}: ")
    assert f"; {dead[1]}: connection_failed: cannot open {dead[1]}" in failed.value.message


async def test_a_final_refusal_is_not_tried_on_the_other_addresses(
    first: ServerProcess,
) -> None:
    printed_codes(first)
    with pytest.raises(JoinError) as refused:
        await Client.connect([first.url, url_on(free_port())], "ABCDE23456", keep_events=True)
    assert refused.value.code == "unauthorized"


async def test_the_program_takes_several_servers_and_says_where_it_reconnected(
    first: ServerProcess, moved: list[ServerProcess]
) -> None:
    codes = printed_codes(first)
    later = moved[0]
    servers = cli.servers([f"{first.url}, {url_on(later.port)}"])
    assert servers == [first.url, url_on(later.port)]
    assert cli.servers([first.url, url_on(later.port)]) == servers  # --server twice
    assert cli.servers([]) == [cli.DEFAULT_SERVER]
    client = await Client.connect(
        servers, codes["spectator"], auto_reconnect=True, keep_events=True
    )
    async with client:
        watcher = Terminal(client, "watch")
        await watcher.shows("as spectator; type 'help'")

        first.kill()
        await asyncio.to_thread(later.start, RESTART)

        await within(watcher.shows(f"reconnected to {later.url}: resuming after event 0"), 20)


async def test_join_lines_name_every_server(first: ServerProcess) -> None:
    printed_codes(first)
    both = f"{first.url},{url_on(free_port())}"
    out = io.StringIO()

    assert await cli.rooms(both, first.host_token, "msgpack", out) == 0

    gm = next(line for line in out.getvalue().splitlines() if line.lstrip().startswith("GM:"))
    assert re.search(f" gm --server {re.escape(both)} --token ", gm)
