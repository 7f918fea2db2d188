"""The bus: fan-out of a room's events to whoever listens (gateways, views, tests).

Topics are room ids. A subscriber sees what is published after it subscribed, in
publish order; it catches up on anything older from the event log (messages carry
sequence numbers for that). The bus is not the truth, the log is.

Bounded queues (ARCHITECTURE, convention 6): each subscription buffers at most `limit`
messages. Publishing never waits for a subscriber: one whose buffer cannot take a whole
batch is dropped and marked lagging. It still receives everything buffered before the
drop (a gap-free prefix), then `get` raises `SubscriberLagging`; the consumer reads the
rest from the log (`read(after_seq=last seen)`) and subscribes again. A slow client
thus costs itself a catch-up and never slows the room or the other subscribers.

The bus is generic in its message type and imports only the standard library
(ARCHITECTURE: the layer table); a networked backend is given a codec. Backends live in
their own modules (`server.bus.memory.MemoryBus`) and pass tests/bus/ contract tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class SubscriptionClosed(Exception):
    """The subscription was closed (by its owner or the bus) and is drained."""


class SubscriberLagging(SubscriptionClosed):
    """The subscriber fell behind and was dropped; catch up from the event log."""


class Subscription(Protocol[T_co]):
    @property
    def lagging(self) -> bool:
        """True once dropped for falling behind."""
        ...

    async def get(self) -> T_co:
        """The next message; waits for one. Raises `SubscriberLagging` or
        `SubscriptionClosed` once the subscription ended and its buffer is empty."""
        ...

    def __aiter__(self) -> AsyncIterator[T_co]:
        """Iterate the messages; ends on close, raises `SubscriberLagging` on a drop."""
        ...

    async def close(self) -> None:
        """Stop receiving; messages already buffered can still be read."""
        ...


class Bus(Protocol[T]):
    async def publish(self, topic: str, messages: Sequence[T]) -> None:
        """Hand `messages` to every subscriber of `topic`, in order; never waits for them."""
        ...

    async def subscribe(self, topic: str, limit: int | None = None) -> Subscription[T]:
        """Listen to `topic` from now on; `limit` overrides the bus's buffer size."""
        ...


__all__ = ["Bus", "SubscriberLagging", "Subscription", "SubscriptionClosed"]
