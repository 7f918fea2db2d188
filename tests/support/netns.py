"""Private test hosts on one switch: network namespaces a test can cut apart and heal.

A `Network` is a set of hosts, each a network namespace of its own with `lo` up and one
veth (`eth0`, an address in 10.213.N.0/24) into a bridge that lives in a namespace of
its own too (the "switch"). Every link is made inside those namespaces, so the
machine's own network never sees an interface, an address or a route of them: two runs
at once, each with its own random name suffix, never meet, even on the same subnet.

Processes run inside a host with `host.command(...)` as a prefix (`ip netns exec NAME
...`), so a `redis-server` or a combat server binds the host's address and talks to the
others over the switch. The test itself reaches the hosts from a host of its own (an
observer, never part of a cut): `host.call(fn)` runs `fn` in a thread that entered the
host's namespace (a network namespace is a thread's, and every socket opened in that
thread, or in the threads it starts, is the namespace's), and `host.run(coroutine
function)` runs an event loop there.

A partition (`cut`) drops every packet between two sets of hosts, in both directions,
inside the switch: a `u32` filter on each host's switch port sends the other side's
packets to a queue that holds none. Nothing is refused or reset: a connection across
the cut stalls, a new one times out, as when a real network splits, and both go on
when the filters are removed (`heal`). Where the kernel lacks those queueing modules
the cut falls back to blackhole routes on both sides; they drop packets too, but a
process on the cut side then gets `EINVAL` at once when it opens a connection, rather
than a stall (`Network.method` says which is in use).

Teardown (`close`, which the `network` fixture runs even after a failure) kills every
process still inside the namespaces (they are this run's alone) and deletes them,
which deletes every link with them.

Needs root and `ip netns` (iproute2); `require_netns` skips the test otherwise, saying
why.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import random
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

T = TypeVar("T")

IP = "ip"
CLONE_NEWNET = 0x40000000
SUBNET_PREFIX = "10.213"
"""The first two bytes of every test host's address: a private range that exists only
inside the test namespaces."""
SWITCH_ADDRESS_LAST = 254
STEP = 20.0
"""Seconds any one `ip` or `tc` command may take (a busy machine included)."""


def netns_unavailable() -> str | None:
    """Why private hosts cannot be made here, or None if they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (run the partition tests as root, as CI does)"
    if shutil.which(IP) is None:
        return "iproute2 (`ip`) is not installed"
    try:
        listed = subprocess.run([IP, "netns", "list"], capture_output=True, timeout=STEP)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`ip netns` does not work here: {error}"
    if listed.returncode != 0:
        return f"`ip netns` does not work here: {listed.stderr.decode().strip()}"
    return None


def require_netns() -> None:
    """Skip the test, saying why, when private hosts cannot be made here."""
    why = netns_unavailable()
    if why is not None:
        pytest.skip(why)


def _run(argv: Sequence[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run one `ip`/`tc` command, bounded; `RuntimeError` with its stderr on failure."""
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=STEP)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done


_libc: ctypes.CDLL | None = None


def _enter(namespace: str) -> None:
    """Move the calling thread into `namespace` (the threads it starts go with it)."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"setns into {namespace}: {os.strerror(error)}")
    finally:
        os.close(fd)


@dataclass(eq=False)
class Host:
    """One private host: a namespace with `eth0` at `address` on the network's switch."""

    name: str
    namespace: str
    address: str
    port: str  # its veth's end in the switch namespace

    def command(self, *argv: str) -> list[str]:
        """`argv` as a command line that runs inside this host."""
        return [IP, "netns", "exec", self.namespace, *argv]

    def call(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        """`fn()` in a thread inside this host; its result (or its exception).
        `TimeoutError` after `timeout` seconds (the thread is left to end by itself)."""
        done: Future[T] = Future()

        def inside() -> None:
            try:
                _enter(self.namespace)
                done.set_result(fn())
            except BaseException as error:
                done.set_exception(error)

        thread = threading.Thread(target=inside, name=f"in {self.name}", daemon=True)
        thread.start()
        return done.result(timeout)

    def run(self, main: Callable[[], Awaitable[T]], timeout: float | None = None) -> T:
        """`asyncio.run(main())` in a thread inside this host (`call`)."""

        async def wrapped() -> T:
            return await main()

        return self.call(lambda: asyncio.run(wrapped()), timeout)

    def pids(self) -> list[int]:
        """The processes running inside this host now."""
        found = _run([IP, "netns", "pids", self.namespace], check=False)
        return [int(word) for word in found.stdout.split() if word.isdigit()]


@dataclass(eq=False)
class Network:
    """Hosts on one switch, named with a suffix of this run's own (`hosts[name]`)."""

    suffix: str = field(default_factory=lambda: secrets.token_hex(3))
    subnet: int = field(default_factory=lambda: random.randrange(256))
    hosts: dict[str, Host] = field(default_factory=dict)
    method: str = ""  # how `cut` drops packets: "tc" (in the switch) or "blackhole"
    cuts: list[tuple[Host, Host]] = field(default_factory=list)
    _namespaces: list[str] = field(default_factory=list)
    _filters: dict[str, int] = field(default_factory=dict)  # port -> filters on it

    @property
    def switch(self) -> str:
        return f"combat-switch-{self.suffix}"

    def start(self) -> None:
        """Make the switch: a namespace with a bridge `br0`, up."""
        self._add_namespace(self.switch)
        _run([IP, "-n", self.switch, "link", "set", "lo", "up"])
        _run([IP, "-n", self.switch, "link", "add", "br0", "type", "bridge"])
        _run([IP, "-n", self.switch, "link", "set", "br0", "up"])

    def add(self, name: str) -> Host:
        """A new host `name` on the switch, with the next address."""
        if name in self.hosts:
            raise ValueError(f"there is a host {name} already")
        number = len(self.hosts) + 1
        if number >= SWITCH_ADDRESS_LAST:
            raise ValueError("a network holds at most 253 hosts")
        namespace = f"combat-{name}-{self.suffix}"
        address = f"{SUBNET_PREFIX}.{self.subnet}.{number}"
        host = Host(name, namespace, address, f"port{number}")
        self._add_namespace(namespace)
        # both ends are made where they live: the machine's namespace never holds them
        _run([IP, "link", "add", "eth0", "netns", namespace, "type", "veth",
              "peer", "name", host.port, "netns", self.switch])  # fmt: skip
        _run([IP, "-n", self.switch, "link", "set", host.port, "master", "br0", "up"])
        _run([IP, "-n", namespace, "link", "set", "lo", "up"])
        _run([IP, "-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0"])
        _run([IP, "-n", namespace, "link", "set", "eth0", "up"])
        self._prepare_port(host)
        self.hosts[name] = host
        return host

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]

    # -- partitions ---------------------------------------------------------------------

    def _prepare_port(self, host: Host) -> None:
        """Give the host's switch port two classes: everything (default), and a queue
        that holds nothing (`pfifo limit 0`), where a cut sends the other side's
        packets. Falls back to blackhole routes if the kernel lacks htb or pfifo."""
        if self.method == "blackhole":
            return
        tc = [IP, "netns", "exec", self.switch, "tc"]
        steps = [
            ["qdisc", "add", "dev", host.port, "root", "handle", "1:", "htb", "default", "1",
             "r2q", "1000"],
            ["class", "add", "dev", host.port, "parent", "1:", "classid", "1:1", "htb",
             "rate", "10gbit"],
            ["class", "add", "dev", host.port, "parent", "1:", "classid", "1:2", "htb",
             "rate", "1kbit"],
            ["qdisc", "add", "dev", host.port, "parent", "1:2", "handle", "20:", "pfifo",
             "limit", "0"],
        ]  # fmt: skip
        for step in steps:
            if _run([*tc, *step], check=False).returncode != 0:
                self.method = "blackhole"
                _run([*tc, "qdisc", "del", "dev", host.port, "root"], check=False)
                return
        self.method = "tc"

    def cut(self, side: Iterable[Host], other: Iterable[Host]) -> None:
        """Drop every packet between a host of `side` and a host of `other`, both ways.
        Hosts in neither (the observer) still reach both sides."""
        side, other = list(side), list(other)
        if set(side) & set(other):
            raise ValueError("a host cannot be on both sides of a cut")
        for one in side:
            for two in other:
                self._drop(one, two)
                self._drop(two, one)

    def _drop(self, source: Host, target: Host) -> None:
        """Drop what `source` sends to `target`."""
        if self.method == "tc":
            # a filter on `target`'s switch port (its egress: what the bridge hands it)
            # sends `source`'s packets to the queue that drops them
            priority = self._filters.get(target.port, 0) + 1
            _run([IP, "netns", "exec", self.switch, "tc", "filter", "add", "dev", target.port,
                  "parent", "1:", "protocol", "ip", "prio", str(priority), "u32",
                  "match", "ip", "src", f"{source.address}/32", "flowid", "1:2"])  # fmt: skip
            self._filters[target.port] = priority
        else:
            _run(source.command(IP, "route", "add", "blackhole", f"{target.address}/32"))
        self.cuts.append((source, target))

    def heal(self) -> None:
        """Undo every cut: the filters (or routes) go, and stalled connections go on."""
        for port in list(self._filters):
            _run([IP, "netns", "exec", self.switch, "tc", "filter", "del", "dev", port,
                  "parent", "1:"], check=False)  # fmt: skip
        self._filters.clear()
        if self.method == "blackhole":
            for source, target in self.cuts:
                route = [IP, "route", "del", "blackhole", f"{target.address}/32"]
                _run(source.command(*route), check=False)
        self.cuts.clear()

    # -- teardown -------------------------------------------------------------------------

    def _add_namespace(self, namespace: str) -> None:
        _run([IP, "netns", "add", namespace])
        self._namespaces.append(namespace)

    def close(self) -> None:
        """Kill what still runs inside the hosts, then delete every namespace made
        (their links go with them). Safe to call twice, and after a failed start."""
        hosts = [host for host in self.hosts.values() if host.namespace in self._namespaces]
        for host in hosts:
            for pid in host.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + STEP
        while any(host.pids() for host in hosts) and time.monotonic() < deadline:
            time.sleep(0.05)
        for namespace in reversed(self._namespaces):
            _run([IP, "netns", "del", namespace], check=False)
        self._namespaces.clear()


@pytest.fixture
def network() -> Iterator[Network]:
    """A private network for this test (skipped without root or `ip netns`), torn
    down whatever happens to the test."""
    require_netns()
    made = Network()
    try:
        made.start()
        yield made
    finally:
        made.close()
