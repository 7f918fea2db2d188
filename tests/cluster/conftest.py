"""Cluster tests run on private `redis-server`s (tests/support/redis.py), never on the
machine's own Redis."""

from tests.support.redis import redis_url

__all__ = ["redis_url"]
