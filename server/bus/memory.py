"""An in-process bus: the embedded default and the contract tests' reference.

Messages are handed over by reference (they are immutable engine records); each
subscription has its own bounded buffer (see `server.bus` for the lagging rule).
`BoundedSubscription`, that buffer, is shared with the Redis bus (`server.bus.redis`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Sequence
from typing import Generic, TypeVar

from server.bus import SubscriberLagging, SubscriptionClosed

T = TypeVar("T")
DEFAULT_LIMIT = 1024


class BoundedSubscription(Generic[T]):
    """One subscriber's bounded buffer, filled by its bus (the lagging rule of
    `server.bus`). Every backend's subscriptions are these; a backend says only how a
    closed subscription leaves its bus (`_detach`)."""

    def __init__(self, topic: str, limit: int) -> None:
        if limit < 1:
            raise ValueError("a subscription must buffer at least one message")
        self.topic = topic
        self._limit = limit
        self._buffer: deque[T] = deque()
        self._ended: SubscriptionClosed | None = None
        self._waiter: asyncio.Future[None] | None = None

    @property
    def lagging(self) -> bool:
        return isinstance(self._ended, SubscriberLagging)

    @property
    def ended(self) -> bool:
        return self._ended is not None

    def offer(self, messages: Sequence[T]) -> bool:
        """Buffer the whole batch, or end as lagging if it does not fit. False: drop me."""
        if self._ended is not None:
            return False
        if len(self._buffer) + len(messages) > self._limit:
            self.end(SubscriberLagging(f"subscriber of {self.topic} fell behind"))
            return False
        self._buffer.extend(messages)
        self._wake()
        return True

    def end(self, reason: SubscriptionClosed) -> None:
        """No more messages: `get` raises `reason` once the buffer is read."""
        if self._ended is None:
            self._ended = reason
        self._wake()

    async def get(self) -> T:
        while not self._buffer:
            if self._ended is not None:
                raise self._ended
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._buffer.popleft()

    def __aiter__(self) -> AsyncIterator[T]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[T]:
        while True:
            try:
                message = await self.get()
            except SubscriberLagging:
                raise
            except SubscriptionClosed:
                return
            yield message

    async def close(self) -> None:
        self.end(SubscriptionClosed(f"subscription to {self.topic} closed"))
        await self._detach()

    async def _detach(self) -> None:
        """Leave the bus: it delivers nothing more here."""

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


class MemorySubscription(BoundedSubscription[T]):
    def __init__(self, bus: MemoryBus[T], topic: str, limit: int) -> None:
        super().__init__(topic, limit)
        self._bus = bus

    async def _detach(self) -> None:
        self._bus.forget(self)


class MemoryBus(Generic[T]):
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._topics: dict[str, list[MemorySubscription[T]]] = {}

    async def publish(self, topic: str, messages: Sequence[T]) -> None:
        if not messages:
            return
        subscribers = self._topics.get(topic)
        if not subscribers:
            return
        kept = [sub for sub in subscribers if sub.offer(messages)]
        if len(kept) != len(subscribers):
            self._topics[topic] = kept
            if not kept:
                del self._topics[topic]

    async def subscribe(self, topic: str, limit: int | None = None) -> MemorySubscription[T]:
        subscription = MemorySubscription(self, topic, self.limit if limit is None else limit)
        self._topics.setdefault(topic, []).append(subscription)
        return subscription

    def subscribers(self, topic: str) -> int:
        """How many subscriptions `topic` has (lagging ones are gone)."""
        return len(self._topics.get(topic, ()))

    def forget(self, subscription: MemorySubscription[T]) -> None:
        subscribers = self._topics.get(subscription.topic, [])
        if subscription in subscribers:
            subscribers.remove(subscription)
            if not subscribers:
                del self._topics[subscription.topic]
