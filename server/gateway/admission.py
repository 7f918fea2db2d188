"""New connections per client address: a token bucket each, so that one address
opening connections as fast as it can (each a TCP accept, an HTTP upgrade, a `hello`
to verify and a room's table to send) cannot take the CPU from the tables.

Without I/O, as `connection.py`: the gateway asks `admit(address, now)` for every
request on its port before anything else is done for it, and answers one refused with
HTTP 429 and `Retry-After` (docs/protocol.md, "What the server enforces"). Every
handshake comes on a connection of its own (a connection sends one `hello`), so the
bucket bounds the handshakes too.

An IPv6 address counts by its /64, the block one subscriber's devices share (one host
may hold billions of addresses in it); an IPv4-mapped IPv6 address as its IPv4 address.
A loopback address is not limited (unless `Limits.limit_loopback`): a connection from
this machine comes from a proxy in front (docs/deploy.md: nginx on the same machine,
whose clients all share its address) or from a program of whoever runs the server.

The table is bounded by time, not by a count: an address's bucket is dropped once it
has filled up again (it would admit as a fresh one would), looked for whenever the
table has doubled since the last look. So it holds about the addresses seen in the
last `burst / rate` seconds, and an address is never let in by being pushed out.
"""

from __future__ import annotations

import ipaddress

from server.gateway.connection import Bucket, Limits

SWEEP_FROM = 1024
"""Addresses the table holds before it first looks for refilled buckets to drop."""


class Admission:
    """The per-address buckets of one serving gateway. Slotted, as anything per server."""

    __slots__ = ("_buckets", "_sweep_at", "burst", "loopback", "rate")

    def __init__(self, limits: Limits) -> None:
        self.rate = limits.address_connections_per_second
        self.burst = limits.address_connection_burst
        self.loopback = limits.limit_loopback
        self._buckets: dict[str, Bucket] = {}
        self._sweep_at = SWEEP_FROM

    @property
    def addresses(self) -> int:
        """Addresses whose bucket is kept."""
        return len(self._buckets)

    def admit(self, address: str | None, now: float) -> float | None:
        """None if a new connection from `address` may go on; else the seconds until
        it may (for `Retry-After`). No address (a Unix socket), a loopback address or a
        rate of 0 (the limit is off): always admitted."""
        if address is None or self.rate <= 0:
            return None
        key, loopback = counted_as(address)
        if loopback and not self.loopback:
            return None
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            bucket = self._buckets[key] = Bucket(self.rate, self.burst, now)
        if bucket.take(now):
            return None
        return (1.0 - bucket.tokens) / self.rate

    def _sweep(self, now: float) -> None:
        """Drop the buckets that have filled up again by `now`."""
        refill = self.burst / self.rate
        self._buckets = {k: b for k, b in self._buckets.items() if now - b.at < refill}
        self._sweep_at = max(SWEEP_FROM, 2 * len(self._buckets))


def counted_as(address: str) -> tuple[str, bool]:
    """What an address is counted as (itself, or its /64 for IPv6), and whether it is
    a loopback address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # without a zone (fe80::1%eth0)
    except ValueError:
        return address, False
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        else:
            return str(ipaddress.IPv6Network((ip, 64), strict=False)), ip.is_loopback
    return str(ip), ip.is_loopback
