"""A Redis that asks for a password (`requirepass`): the servers give it
(`--redis-password`), a server without it does not start and says why, and a Redis
restarted with another password is refused with a clear log line while the servers
keep trying, and recover once it has the right one again.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from protocol.messages import Ack, Refused
from tests.cluster.support import attack, close_windows_until_the_round_ends, cluster, hold
from tests.server.wire import Wire
from tests.support.redis import RedisServer
from tests.support.server import ServerProcess

PASSWORD = "correct horse battery staple"
LEASE_TTL = 2.0
FORWARD_TIMEOUT = 4.0  # server.cluster.node.settings_for(LEASE_TTL)


async def answer(wire: Wire, command: dict[str, object], cid: str, timeout: float) -> Ack | Refused:
    await wire.send({"type": "send", "cid": cid, "command": command})
    found = await wire.expect(lambda m: isinstance(m, Ack | Refused) and m.cid == cid, timeout)
    assert isinstance(found, Ack | Refused)
    return found


def warnings(server: ServerProcess) -> list[str]:
    return [line["message"] for line in server.log_lines() if line.get("level") == "warning"]


@pytest.fixture
def guarded(tmp_path: Path) -> RedisServer:
    """A private Redis with a password (started by the test), append-only file on."""
    (tmp_path / "redis").mkdir()
    return RedisServer(tmp_path / "redis", appendfsync="always", password=PASSWORD)


async def test_a_server_without_the_password_does_not_start_and_says_why(
    tmp_path: Path, guarded: RedisServer
) -> None:
    await asyncio.to_thread(guarded.start)
    try:
        for options, told in (
            ([], "Redis refuses this server's credentials"),
            (["--redis-password", "not it"], "invalid username-password pair"),
        ):
            server = ServerProcess(tmp_path / "server", options=["--redis", guarded.url, *options])
            with pytest.raises(RuntimeError, match="did not start"):
                await asyncio.wait_for(asyncio.to_thread(server.start), 30)
            assert server.process is not None
            assert server.process.wait(10) == 1
            said = server.log_path.read_text()
            assert told in said, said
            assert PASSWORD not in said and "not it" not in said
            server.log_path.unlink()
    finally:
        guarded.kill()


async def test_a_redis_restarted_with_another_password_is_refused_until_it_has_ours_again(
    tmp_path: Path, guarded: RedisServer
) -> None:
    options = ["--redis-password", PASSWORD]
    async with cluster(tmp_path, 2, lease_ttl=LEASE_TTL, redis=guarded, options=options) as fight:
        loop = asyncio.get_running_loop()
        gm = await fight.join(1, "GM")
        ayla = await fight.join(0, "ayla")  # on the runner
        bram = await fight.join(1, "bram")  # forwarded to the runner
        await gm.acked({"type": "StartCombat"})
        await ayla.acked(attack("ayla", "g1", "longsword"), cid="ayla-declares")

        # Redis comes back with a password the servers do not have
        guarded.kill()
        guarded.password = "another password"
        await asyncio.to_thread(guarded.start)
        sent = loop.time()
        refused = await answer(bram, hold("bram"), "bram-declares", FORWARD_TIMEOUT + 5)
        assert isinstance(refused, Refused) and refused.code == "unavailable", refused
        waited = loop.time() - sent
        told: list[str] = []
        while loop.time() - sent < 10 and len(told) < 2:
            told = [
                message
                for server in fight.servers
                for message in warnings(server)
                if "Redis refuses this server's credentials" in message
            ]
            await asyncio.sleep(0.1)
        assert len(told) >= 2, [warnings(server) for server in fight.servers]
        assert "--redis-password or REDIS_PASSWORD" in told[0] and "keeps trying" in told[0]
        for wire in (gm, ayla, bram):  # nobody was disconnected
            await wire.ping(1)

        # the right password again: the same command, the same cid, applied once
        guarded.kill()
        guarded.password = PASSWORD
        await asyncio.to_thread(guarded.start)
        back = loop.time()
        again: Ack | Refused | None = None
        while loop.time() - back < 20:
            again = await answer(bram, hold("bram"), "bram-declares", FORWARD_TIMEOUT + 5)
            if isinstance(again, Ack):
                break
            assert again.code == "unavailable", again
            await asyncio.sleep(0.2)
        assert isinstance(again, Ack), again
        recovered = loop.time() - back
        await gm.acked(attack("g1", "ayla", "scimitar"), cid="g1-declares")
        await gm.acked(attack("g2", "bram", "scimitar"), cid="g2-declares")
        corvin = await fight.join(0, "corvin")
        await corvin.acked(hold("corvin"))
        await close_windows_until_the_round_ends(gm)
        last = gm.last_seq

        stream = await fight.stream()
        assert [seq for seq, _, _ in stream] == list(range(1, last + 1))
        declared = Counter(
            e["combatant"] for _, e in gm.sequenced if e["$type"] == "DeclarationMade"
        )
        assert declared == {"ayla": 1, "bram": 1, "corvin": 1, "g1": 1, "g2": 1}
        for wire in (gm, ayla, bram):
            await wire.until_seq(last)
            assert wire.seqs == list(range(1, last + 1))
        every_line = "".join(server.log_path.read_text() for server in fight.servers)
        assert PASSWORD not in every_line
        print(
            f"\nRedis back with another password: refused with 'unavailable' after "
            f"{waited:.1f}s, the log said {told[0]!r}; with ours again the retried command "
            f"was acked within {recovered:.1f}s"
        )
