"""The composition root: `combat-server` (or `python -m server`).

With no options it serves on 127.0.0.1:8765 with the embedded defaults: an in-process
bus and a SQLite event log in the data dir, so a restart loses nothing. Every option
can also be set by an environment variable (the option wins over the variable):

    --host       COMBAT_HOST       address to listen on (127.0.0.1)
    --port       COMBAT_PORT       port for websockets and HTTP (8765; 0 picks a free one)
    --web-port   COMBAT_WEB_PORT   port for the web app, the table in a browser (8780; 0
                                   picks a free one; `off` or --no-web: none)
    --data-dir   COMBAT_DATA_DIR   where the log, the token secret and the host token live
                                   (./combat-data)
    --secret     COMBAT_SECRET     the token signing key (at least 32 bytes); without it
                                   the server keeps one in DATA_DIR/token-secret (with
                                   --redis: in Redis, shared by every process)
    --redis      REDIS_URL         scale out: keep the rooms in this Redis
                                   (redis://host:port/db, rediss:// for TLS, or
                                   redis+sentinel://host:port,host:port/service for the
                                   primary Sentinel names) and share them with every
                                   process started with the same URL (docs/deploy.md)
    --redis-sentinel COMBAT_REDIS_SENTINEL  host:port,...: the sentinels to ask for the
                                   primary (instead of --redis), with
    --redis-service COMBAT_REDIS_SERVICE    the name they monitor it under
    --redis-username REDIS_USERNAME, --redis-password REDIS_PASSWORD: Redis's AUTH (an
                                   ACL user, or the password alone), over the URL's
    --redis-sentinel-password REDIS_SENTINEL_PASSWORD: the sentinels' own password
    --redis-tls-ca REDIS_TLS_CA, --redis-tls-cert REDIS_TLS_CERT, --redis-tls-key
                                   REDIS_TLS_KEY: the authority to check Redis's
                                   certificate against, and a client certificate
    --redis-durability COMBAT_REDIS_DURABILITY  when an append counts as done: local
                                   (the primary has it; default), replicated (a replica
                                   has it too: WAIT), every-replica (every replica the
                                   sentinels find up has it: nothing acknowledged is lost
                                   to a failover or a partition; Sentinel only) or fsync
                                   (the primary's append-only file is synced: WAITAOF,
                                   Redis 7.2+)
    --redis-durability-timeout COMBAT_REDIS_DURABILITY_TIMEOUT  seconds an append waits
                                   for that (1); past it the command is refused
    --redis-prefix COMBAT_REDIS_PREFIX  a prefix for every Redis key ("")
    --lease-ttl  COMBAT_LEASE_TTL  seconds a room's lease lives unrenewed (5): how long a
                                   room waits for a new process after its own died
    --connections-per-address COMBAT_CONNECTIONS_PER_ADDRESS  new connections a second
                                   from one client address (20, bursts of five seconds'
                                   worth; over it HTTP 429); 0: no limit, for a server
                                   behind a proxy, where every client has its address

On a first start with no encounter in the log it creates the demo encounter
(`server/samples/encounters/demo.toml`) and prints the commands with which the GM, each
player and a spectator join it, and the links that open their seats in a browser. Every
start writes a fresh host token, which may create encounters (`combat create`, or the
web app's create link), to DATA_DIR/host-token (mode 0600).

SIGINT or SIGTERM stops it gracefully: connections are closed with 1001 (going away),
rooms finish the commands they have queued, the log is closed. With --redis, each
room's lease is given back, so another process takes the room at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import gc
import logging
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from websockets.asyncio.server import Server

from server.bus.memory import MemoryBus
from server.cluster.node import (
    Node,
    RedisUnreachable,
    RedisUnsuitable,
    settings_for,
    shared_secret,
)
from server.encounters import read_file
from server.engine.core import RULESETS
from server.eventlog import Entry, EventLog
from server.eventlog.sqlite import SqliteEventLog
from server.gateway.commands import reader_for
from server.gateway.connection import Limits
from server.gateway.server import WS_PATH, Gateway
from server.gateway.tokens import (
    SECRET_FILE_NAME,
    JoinTokens,
    TokenIssuer,
    check_secret,
    load_or_create_secret,
)
from server.hosting import Embedded, Host, Placement
from server.join_lines import (
    DEMO_ENCOUNTER,
    HOST_TOKEN_FILE,
    WebLinks,
    create_instructions,
    join_instructions,
)
from server.logs import configure
from server.plain_http import HttpServer
from server.redis_clients import DURABILITIES, RedisSettings
from server.room.clock import SystemClock
from server.web import WEB_ROOT, WebApp

logger = logging.getLogger(__name__)

LOG_FILE = "events.sqlite"
ADDRESS_BURST_SECONDS = 5
"""`--connections-per-address`'s burst: this many seconds' worth."""
WEB_PORT = 8780

REDIS_SETTINGS = (
    ("--redis-service", "COMBAT_REDIS_SERVICE", "the name the sentinels monitor the primary under"),
    ("--redis-username", "REDIS_USERNAME", "Redis ACL user"),
    ("--redis-password", "REDIS_PASSWORD", "Redis password; the variable is safer, unseen"),
    ("--redis-sentinel-password", "REDIS_SENTINEL_PASSWORD", "the sentinels' own password"),
    ("--redis-tls-ca", "REDIS_TLS_CA", "check Redis's TLS certificate against this CA file"),
    ("--redis-tls-cert", "REDIS_TLS_CERT", "a client certificate for Redis's TLS"),
    ("--redis-tls-key", "REDIS_TLS_KEY", "the client certificate's key"),
)
"""The Redis options that are a text or nothing, each with its environment variable."""


@dataclass(frozen=True)
class Options:
    host: str = "127.0.0.1"
    port: int = 8765
    web_port: int | None = WEB_PORT  # None: no web app
    web_root: Path = WEB_ROOT  # the web app's files (no option: tests serve others)
    data_dir: Path = Path("combat-data")
    secret: str | None = None
    demo: bool = True
    redis: str | None = None
    redis_prefix: str = ""
    lease_ttl: float = 5.0
    redis_settings: RedisSettings | None = None  # from `redis` and the options beside it
    connections_per_address: float = 20.0  # Limits.address_connections_per_second's default

    def limits(self) -> Limits:
        """The gateway's limits: the protocol's, with the per-address one chosen here."""
        rate = self.connections_per_address
        burst = max(1, round(rate * ADDRESS_BURST_SECONDS))
        return Limits(address_connections_per_second=rate, address_connection_burst=burst)

    def redis_access(self) -> RedisSettings | None:
        """How to reach the cluster's Redis, None when embedded."""
        if self.redis_settings is not None:
            return self.redis_settings
        return None if self.redis is None else RedisSettings.parse(self.redis)


def parse(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> Options:
    env = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="combat-server", description="Serve real-time tabletop combat over websockets."
    )
    parser.add_argument(
        "--host",
        default=env.get("COMBAT_HOST", "127.0.0.1"),
        help="address to listen on (COMBAT_HOST; default 127.0.0.1, this machine only)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env.get("COMBAT_PORT", "8765")),
        help="port for websockets, /healthz and /metrics (COMBAT_PORT; default 8765; 0: any)",
    )
    parser.add_argument(
        "--web-port",
        type=_web_port,
        default=env.get("COMBAT_WEB_PORT", str(WEB_PORT)),
        help=f"port for the web app (COMBAT_WEB_PORT; default {WEB_PORT}; 0: any; off: none)",
    )
    parser.add_argument(
        "--no-web",
        dest="web_port",
        action="store_const",
        const=None,
        help="serve no web app (the same as --web-port off)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(env.get("COMBAT_DATA_DIR", "combat-data")),
        help="the event log, token secret and host token (COMBAT_DATA_DIR)",
    )
    parser.add_argument(
        "--secret",
        default=env.get("COMBAT_SECRET"),
        help="token signing key, 32+ bytes (COMBAT_SECRET; default: DATA_DIR/token-secret)",
    )
    parser.add_argument(
        "--no-demo", dest="demo", action="store_false", help="do not offer the demo encounter"
    )
    parser.add_argument(
        "--log-level",
        default=env.get("COMBAT_LOG_LEVEL", "info"),
        type=str.lower,
        choices=("debug", "info", "warning", "error"),
        help="JSON logs on stderr from this level (COMBAT_LOG_LEVEL; default info)",
    )
    parser.add_argument(
        "--redis",
        default=env.get("REDIS_URL") or None,
        help="scale out on this Redis (REDIS_URL): redis://, rediss:// or redis+sentinel://",
    )
    parser.add_argument(
        "--redis-sentinel",
        default=env.get("COMBAT_REDIS_SENTINEL") or None,
        metavar="HOST:PORT,...",
        help="scale out on the primary these sentinels name (COMBAT_REDIS_SENTINEL)",
    )
    for flag, variable, what in REDIS_SETTINGS:
        parser.add_argument(flag, default=env.get(variable) or None, help=f"{what} ({variable})")
    parser.add_argument(
        "--redis-durability",
        default=env.get("COMBAT_REDIS_DURABILITY", "local"),
        choices=DURABILITIES,
        help="when an append counts as done (COMBAT_REDIS_DURABILITY; default local)",
    )
    parser.add_argument(
        "--redis-durability-timeout",
        type=float,
        default=float(env.get("COMBAT_REDIS_DURABILITY_TIMEOUT", "1")),
        help="seconds an append waits for its durability (COMBAT_REDIS_DURABILITY_TIMEOUT)",
    )
    parser.add_argument(
        "--redis-prefix",
        default=env.get("COMBAT_REDIS_PREFIX", ""),
        help="key prefix, to share one Redis between clusters (COMBAT_REDIS_PREFIX)",
    )
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=float(env.get("COMBAT_LEASE_TTL", "5")),
        help="seconds a room's lease lasts unrenewed: the failover time (COMBAT_LEASE_TTL)",
    )
    parser.add_argument(
        "--connections-per-address",
        type=float,
        default=float(env.get("COMBAT_CONNECTIONS_PER_ADDRESS", "20")),
        metavar="N",
        help="new connections a second from one client address, bursts of 5 s' worth;"
        " 0: no limit, as behind a proxy (COMBAT_CONNECTIONS_PER_ADDRESS; default 20)",
    )
    args = parser.parse_args(argv)
    if args.lease_ttl <= 0:
        parser.error("--lease-ttl must be positive")
    if args.connections_per_address < 0:
        parser.error("--connections-per-address must be 0 (no limit) or more")
    if args.web_port is not None and args.web_port != 0 and args.web_port == args.port:
        parser.error(f"--web-port {args.web_port} is the websocket's --port: give it another")
    url = args.redis
    if args.redis_sentinel is not None:
        if url is not None:
            parser.error("give --redis or --redis-sentinel, not both")
        if not args.redis_service:
            parser.error("--redis-sentinel needs --redis-service: the name of the primary")
        scheme = "rediss+sentinel" if args.redis_tls_ca else "redis+sentinel"
        url = f"{scheme}://{args.redis_sentinel}/{args.redis_service}"
    elif args.redis_service is not None and url is None:
        parser.error("--redis-service goes with --redis-sentinel")
    settings = None
    if url is not None:
        try:
            settings = RedisSettings.parse(
                url,
                username=args.redis_username,
                password=args.redis_password,
                sentinel_password=args.redis_sentinel_password,
                tls_ca=args.redis_tls_ca,
                tls_cert=args.redis_tls_cert,
                tls_key=args.redis_tls_key,
                durability=args.redis_durability,
                durability_timeout=args.redis_durability_timeout,
            )
        except ValueError as error:
            parser.error(str(error))
    configure(args.log_level)
    return Options(
        host=args.host,
        port=args.port,
        web_port=args.web_port,
        data_dir=args.data_dir,
        secret=args.secret,
        demo=args.demo,
        redis=url,
        redis_prefix=args.redis_prefix,
        lease_ttl=args.lease_ttl,
        redis_settings=settings,
        connections_per_address=args.connections_per_address,
    )


def _web_port(text: str) -> int | None:
    """A port number, or `off` for none (argparse's type for --web-port)."""
    if text.strip().lower() == "off":
        return None
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number or 'off': {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {port}")
    return port


class PortTaken(Exception):
    """A port the server was told to listen on is another program's."""

    def __init__(self, port: int, what: str, option: str, variable: str) -> None:
        super().__init__(
            f"{what} port {port} is in use by another program: "
            f"choose one with {option} (or {variable})"
        )


class App:
    """A running server: its log, where its rooms run, its host of rooms and gateway.

    Embedded (no `redis`): SQLite in the data dir and the in-process bus; every room
    runs here. With `redis`: a `server.cluster.node.Node`, one of the processes
    sharing that Redis (docs/architecture.md, "Scale-out").
    """

    def __init__(self, options: Options) -> None:
        self.options = options
        data = options.data_dir
        data.mkdir(parents=True, exist_ok=True)
        clock = SystemClock()
        self.node: Node | None = None
        redis = options.redis_access()
        if options.secret is not None:
            secret = check_secret(options.secret.encode())
        elif redis is not None:
            secret = check_secret(shared_secret(redis, options.redis_prefix))
        else:
            secret = load_or_create_secret(data / SECRET_FILE_NAME)
        self.issuer = TokenIssuer(secret)
        placement: Placement
        if redis is None:
            self.log: EventLog = SqliteEventLog(data / LOG_FILE)
            placement = Embedded(self.log, MemoryBus[Entry](), clock)
        else:
            self.node = Node(
                redis,
                clock,
                prefix=options.redis_prefix,
                settings=settings_for(options.lease_ttl),
            )
            self.log = self.node.log
            placement = self.node
        self.host = Host(self.log, placement, clock, self.issuer)
        self.gateway = Gateway(self.host, options.limits())
        self.url = ""
        self.web_url = ""  # the web app's address, "" when it is off
        self.host_token = ""  # written to DATA_DIR/host-token at each start
        self._servers: list[Server | HttpServer] = []

    async def start(self) -> None:
        if self.node is not None:
            await self.node.start()
        for ruleset in RULESETS:  # a room's first start then need not build them
            reader_for(ruleset)
        host, options = _url_host(self.options.host), self.options
        with _taken(options.port, "the websocket", "--port", "COMBAT_PORT"):
            server = await self.gateway.serve(options.host, options.port)
        self._servers.append(server)
        port = _bound_port(server)
        self.url = f"ws://{host}:{port}{WS_PATH}"
        if options.web_port is not None:
            web = WebApp(ws_port=port, ws_path=WS_PATH, root=options.web_root)
            try:
                with _taken(options.web_port, "the web app's", "--web-port", "COMBAT_WEB_PORT"):
                    web_server = await web.serve(options.host, options.web_port)
            except BaseException:
                await self._close_servers()
                raise
            self._servers.append(web_server)
            self.web_url = f"http://{host}:{_bound_port(web_server)}/"
            self.host.web_page = self.web_url  # a host's `welcome` names it
        self.host_token = self.issuer.host_token()
        _write_private(self.options.data_dir / HOST_TOKEN_FILE, self.host_token)
        logger.info(
            "serving",
            extra={"url": self.url, "web": self.web_url, "data_dir": str(options.data_dir)},
        )

    async def offer_demo(self) -> JoinTokens | None:
        """Create the demo encounter if the log has no encounter yet."""
        if not self.options.demo or await self.log.rooms():
            return None
        if self.node is not None and not await self.node.claim_demo():
            return None  # another process of the cluster offers it
        _, tokens = await self.host.create(read_file(DEMO_ENCOUNTER))
        return tokens

    async def stop(self) -> None:
        await self._close_servers()
        await self.host.close()
        if self.node is not None:
            await self.node.close()
        else:
            await self.log.close()

    async def _close_servers(self) -> None:
        servers, self._servers = self._servers, []
        for server in servers:
            server.close()
        for server in servers:
            await server.wait_closed()


@contextlib.contextmanager
def _taken(port: int, what: str, option: str, variable: str) -> Iterator[None]:
    """Say which option chooses another port when `port` is another program's."""
    try:
        yield
    except OSError as error:
        if error.errno != errno.EADDRINUSE:
            raise
        raise PortTaken(port, what, option, variable) from error


def _bound_port(server: Server | HttpServer) -> int:
    port: int = next(iter(server.sockets)).getsockname()[1]
    return port


def _url_host(host: str) -> str:
    if host in ("", "0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text + "\n")


GC_YOUNG_THRESHOLD = 20_000
"""Allocations between young collections (Python's default is 700). Every command makes
thousands of short-lived records; collecting them every 700 allocations made the
collector run many times per command."""


def settle_garbage_collector() -> None:
    """Keep the collector off the latency tail: what exists after start-up (modules, the
    rules' tables, the loaded rooms) is moved out of its sight (`gc.freeze`), and young
    collections run less often. Full collections over the whole heap were the 120 ms
    steps in the steady benchmark's worst case (bench/RESULTS.md)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


async def run(options: Options) -> None:
    app = App(options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await app.start()
    where = f"data in {options.data_dir}" if options.redis is None else "rooms in Redis"
    browser = f"; in a browser: {app.web_url}" if app.web_url else ""
    print(f"combat-server: serving on {app.url} ({where}){browser}", flush=True)
    tokens = await app.offer_demo()
    web = WebLinks(app.web_url, app.host_token) if app.web_url else None
    if tokens is not None:
        print(join_instructions(app.url, tokens, options.data_dir, web=web), flush=True)
    elif options.redis is None:  # the host token is in the data dir
        print(create_instructions(app.url, options.data_dir, web=web), flush=True)
    settle_garbage_collector()
    try:
        await stop.wait()
    finally:
        await app.stop()


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = parse(argv)
    except SystemExit as exit:
        return int(exit.code or 0)
    try:
        asyncio.run(run(options))
    # a taken port, a bad secret, a Redis out of reach or refusing us
    except (OSError, ValueError, PortTaken, RedisUnreachable, RedisUnsuitable) as error:
        print(f"combat-server: {error}", file=sys.stderr)
        return 1
    with contextlib.suppress(Exception):
        logging.shutdown()
    return 0
