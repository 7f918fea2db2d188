"""New connections per client address (`server/gateway/admission.py`), with time as a
number: a burst, then the rate; an IPv6 address counted by its /64; the table of
addresses bounded by time."""

from __future__ import annotations

import pytest

from server.gateway.admission import SWEEP_FROM, Admission, counted_as
from server.gateway.connection import Limits

LIMITS = Limits(address_connections_per_second=2.0, address_connection_burst=3)


def test_a_burst_then_the_rate_and_how_long_to_wait() -> None:
    admission = Admission(LIMITS)
    assert [admission.admit("192.0.2.1", 0.0) for _ in range(3)] == [None, None, None]
    assert admission.admit("192.0.2.1", 0.0) == pytest.approx(0.5)  # 2 a second
    assert admission.admit("192.0.2.1", 0.25) == pytest.approx(0.25)
    assert admission.admit("192.0.2.1", 0.5) is None
    assert admission.admit("192.0.2.1", 0.5) is not None


def test_each_address_has_its_own_budget() -> None:
    admission = Admission(LIMITS)
    for _ in range(3):
        admission.admit("192.0.2.1", 0.0)
    assert admission.admit("192.0.2.1", 0.0) is not None
    assert admission.admit("192.0.2.2", 0.0) is None


def test_an_ipv6_address_counts_by_its_64_and_a_mapped_ipv4_as_itself() -> None:
    assert counted_as("2001:db8:1:2:aaaa::1") == ("2001:db8:1:2::/64", False)
    assert counted_as("2001:db8:1:2:ffff::9%eth0") == ("2001:db8:1:2::/64", False)
    assert counted_as("::ffff:192.0.2.7") == ("192.0.2.7", False)
    assert counted_as("192.0.2.7") == ("192.0.2.7", False)
    assert counted_as("not an address") == ("not an address", False)
    admission = Admission(LIMITS)
    for n in range(3):
        assert admission.admit(f"2001:db8:1:2::{n + 1}", 0.0) is None
    assert admission.admit("2001:db8:1:2:ffff::1", 0.0) is not None
    assert admission.admit("2001:db8:1:3::1", 0.0) is None


def test_no_limit_at_a_rate_of_0_or_without_an_address() -> None:
    off = Admission(Limits(address_connections_per_second=0.0, address_connection_burst=1))
    assert all(off.admit("192.0.2.1", 0.0) is None for _ in range(100))
    assert off.addresses == 0
    admission = Admission(LIMITS)
    assert all(admission.admit(None, 0.0) is None for _ in range(100))


def test_the_table_keeps_only_addresses_seen_lately() -> None:
    """Buckets that have filled up again are dropped when the table has grown: what an
    address may do is the same as if it had been kept, and a busy one is never pushed
    out by new ones."""
    admission = Admission(LIMITS)
    for _ in range(3):
        admission.admit("192.0.2.1", 0.0)  # emptied: kept
    for n in range(SWEEP_FROM * 4):
        admission.admit(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}", n * 0.01)
    # Refilled after burst / rate = 1.5 s: about the last 150 new ones, and no more.
    assert admission.addresses <= 2 * SWEEP_FROM
    assert admission.admit("192.0.2.1", SWEEP_FROM * 4 * 0.01) is None  # refilled by now
    busy = Admission(LIMITS)
    for _ in range(3):
        busy.admit("192.0.2.1", 100.0)
    for n in range(SWEEP_FROM * 2):
        busy.admit(f"10.0.{n >> 8 & 255}.{n & 255}", 100.0)
    assert busy.admit("192.0.2.1", 100.0) is not None  # still empty: not forgotten


def test_loopback_is_not_limited_unless_asked() -> None:
    """A connection from this machine comes from a proxy in front, whose clients all
    share its address, or from the operator's own programs."""
    assert counted_as("127.0.0.1") == ("127.0.0.1", True)
    assert counted_as("::1") == ("::/64", True)
    assert counted_as("::ffff:127.0.0.2") == ("127.0.0.2", True)
    free = Admission(LIMITS)
    assert all(free.admit(address, 0.0) is None for address in ["127.0.0.1", "::1"] * 50)
    limited = Admission(
        Limits(address_connections_per_second=2.0, address_connection_burst=3, limit_loopback=True)
    )
    assert [limited.admit("127.0.0.1", 0.0) is None for _ in range(4)] == [True] * 3 + [False]
