"""Redis over TLS (`rediss://`): a private `redis-server` serving TLS only, with a
throwaway authority made for the test, that asks clients for a certificate and a
password. Two server processes share a fight through it; a server that cannot check
Redis's certificate does not start, and says why."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.cluster.support import attack, cluster, hold
from tests.support.redis import Certificates, RedisServer, make_certificates
from tests.support.server import ServerProcess

PASSWORD = "over the wire, encrypted"


@pytest.fixture
def certificates(tmp_path: Path) -> Certificates:
    return make_certificates(tmp_path / "tls")


def tls_options(certificates: Certificates) -> list[str]:
    return [
        *("--redis-tls-ca", str(certificates.ca)),
        *("--redis-tls-cert", str(certificates.client_cert)),
        *("--redis-tls-key", str(certificates.client_key)),
        *("--redis-password", PASSWORD),
    ]


async def test_a_fight_through_redis_over_tls(tmp_path: Path, certificates: Certificates) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(
        tmp_path / "redis",
        appendfsync="everysec",
        password=PASSWORD,
        tls=certificates,
        client_certificates=True,
    )
    assert redis.url.startswith("rediss://")
    async with cluster(tmp_path, 2, redis=redis, options=tls_options(certificates)) as fight:
        gm = await fight.join(0, "GM")
        bram = await fight.join(1, "bram")  # forwarded to the runner, over TLS
        await gm.acked({"type": "StartCombat"})
        declared = await bram.acked(hold("bram"), cid="bram-declares")
        await gm.acked(attack("g1", "bram", "scimitar"), cid="g1-declares")
        await gm.until_seq(declared.last_seq)
        stream = await fight.stream()
        assert [seq for seq, _, _ in stream] == list(range(1, len(stream) + 1))
        assert stream[declared.first_seq - 1][1] == "DeclarationMade"


async def test_a_server_that_cannot_check_redis_s_certificate_does_not_start(
    tmp_path: Path, certificates: Certificates
) -> None:
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis", tls=certificates)
    redis.start()
    try:
        # no --redis-tls-ca: the system's authorities do not know the test's
        server = ServerProcess(tmp_path / "server", options=["--redis", redis.url])
        with pytest.raises(RuntimeError, match="did not start"):
            await asyncio.wait_for(asyncio.to_thread(server.start), 30)
        said = server.log_path.read_text()
        assert "the TLS handshake with Redis failed" in said, said
        assert "--redis-tls-ca" in said
    finally:
        redis.kill()
