"""Cluster tests run on private `redis-server`s (tests/support/redis.py), never on the
machine's own Redis."""

from tests.support.redis import private_redis, redis_url

__all__ = ["private_redis", "redis_url"]
