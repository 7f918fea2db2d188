"""Where the servers find Redis and how they speak to it: the URL forms `--redis`
accepts (one Redis, TLS, Sentinel), the options beside it, and what a person sees when
one is wrong."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from server.app import parse
from server.redis_clients import RedisSettings


@pytest.fixture(autouse=True)
def _root_logging() -> Iterator[None]:
    """`parse` sets up the server's JSON logging on the root logger: undo it after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_one_redis_by_its_url() -> None:
    plain = RedisSettings.parse("redis://redis.internal:6380/2")
    assert (plain.host, plain.port, plain.db, plain.tls, plain.sentinels) == (
        "redis.internal",
        6380,
        2,
        False,
        (),
    )
    guarded = RedisSettings.parse("rediss://combat:s%40cret@10.0.0.5")
    assert (guarded.username, guarded.password, guarded.tls) == ("combat", "s@cret", True)
    assert (guarded.port, guarded.db) == (6379, 0)
    assert RedisSettings.parse("redis://:only-a-password@h").password == "only-a-password"


def test_sentinels_and_the_service_by_their_url() -> None:
    settings = RedisSettings.parse(
        "redis+sentinel://:pw@sentinel-0:26379,sentinel-1,[::1]:26380/combat/1"
    )
    assert settings.sentinels == (("sentinel-0", 26379), ("sentinel-1", 26379), ("::1", 26380))
    assert (settings.service, settings.db, settings.password) == ("combat", 1, "pw")
    assert RedisSettings.parse("rediss+sentinel://s:1/combat").tls


def test_where_never_shows_the_password() -> None:
    assert RedisSettings.parse("redis://user:secret@h:1/0").where() == "redis://user@h:1/0"
    assert (
        RedisSettings.parse("redis+sentinel://:secret@a:1,b:2/combat").where()
        == "redis+sentinel://a:1,b:2/combat/0"
    )


@pytest.mark.parametrize(
    ("url", "told"),
    [
        ("http://h:1", "a Redis URL starts with redis://"),
        ("redis+sentinel://a:1,b:2", "names the service after the hosts"),
        ("redis://h:port", "not a port"),
        ("redis://h/zero", "a Redis database is a number"),
    ],
)
def test_a_url_of_no_known_form_is_refused(url: str, told: str) -> None:
    with pytest.raises(ValueError, match=told):
        RedisSettings.parse(url)


def test_the_options_beside_the_url_win_over_it() -> None:
    options = parse(
        [
            "--redis",
            "rediss://:from-url@h:1/0",
            "--redis-durability",
            "replicated",
            "--redis-tls-ca",
            "ca.pem",
        ],
        {"REDIS_PASSWORD": "from-env", "REDIS_USERNAME": "combat"},
    )
    settings = options.redis_access()
    assert settings is not None
    assert (settings.password, settings.username) == ("from-env", "combat")
    assert (settings.durability, settings.durability_timeout) == ("replicated", 1.0)
    assert settings.tls_ca == "ca.pem"


def test_sentinels_given_apart_from_a_url() -> None:
    options = parse(
        ["--redis-sentinel", "s-0:26379,s-1:26379", "--redis-service", "combat"],
        {"REDIS_SENTINEL_PASSWORD": "sentinels", "COMBAT_REDIS_DURABILITY": "replicated"},
    )
    settings = options.redis_access()
    assert settings is not None
    assert settings.sentinels == (("s-0", 26379), ("s-1", 26379))
    assert (settings.service, settings.sentinel_password) == ("combat", "sentinels")
    assert settings.durability == "replicated"


@pytest.mark.parametrize(
    ("argv", "told"),
    [
        (["--redis-sentinel", "s:1"], "--redis-sentinel needs --redis-service"),
        (["--redis", "redis://h", "--redis-sentinel", "s:1"], "not both"),
        (["--redis-service", "combat"], "goes with --redis-sentinel"),
        (["--redis", "redis://h", "--redis-tls-ca", "ca.pem"], "not rediss://"),
        (["--redis", "redis://h", "--redis-durability", "always"], "invalid choice"),
        (["--redis", "rediss://h", "--redis-tls-cert", "c.pem"], "needs its key"),
    ],
)
def test_options_that_do_not_fit_are_a_usage_error(
    argv: list[str], told: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        parse(argv, {})
    assert exit.value.code == 2
    assert told in capsys.readouterr().err
