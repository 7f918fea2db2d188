"""Prometheus metrics of one server process, served at `/metrics` on the websocket port.

prometheus_client (the reference client) keeps and formats them; each server gets its
own registry, so two servers in one process (tests) do not mix their counts.

`frames_sent` is counted on every frame written, ten or more per command: a plain
integer there, read by a collector when `/metrics` is scraped, costs a tenth of a
`Counter`'s locked increment on the fan-out's path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Command-to-ack latency buckets, in seconds: the target is a p99 under 10 ms.
LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self, rooms: Callable[[], int]) -> None:
        self.registry = CollectorRegistry()
        self.connections = Gauge(
            "combat_connections", "Open websocket connections", ["role"], registry=self.registry
        )
        rooms_gauge = Gauge("combat_rooms", "Rooms running in this process", registry=self.registry)
        rooms_gauge.set_function(lambda: float(rooms()))
        self.commands = Counter(
            "combat_commands",
            "Commands received, by outcome (acked, refused) and refusal code",
            ["outcome", "code"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "combat_command_seconds",
            "From a command frame read to its ack written to the socket",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.frames_sent = 0  # combat_frames_sent_total, read by `_FramesSent`
        self.registry.register(_FramesSent(self))
        self.cut = Counter(
            "combat_connections_closed",
            "Connections the server closed, by error code",
            ["code"],
            registry=self.registry,
        )
        self.refused = Counter(
            "combat_connections_refused",
            "New connections refused before their handshake (address: over its budget)",
            ["reason"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _FramesSent(Collector):
    """`combat_frames_sent_total`, read from `Metrics.frames_sent` at scrape time."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(
            "combat_frames_sent", "Frames written to clients", value=self._metrics.frames_sent
        )
