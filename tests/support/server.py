"""A real combat server for tests: in this process (`served`), or as a child process
(`ServerProcess`) that a test may SIGKILL and start again on the same data dir."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.app import HOST_TOKEN_FILE, App, Options
from server.gateway.tokens import JoinTokens
from server.web import WEB_ROOT
from tests.support.waiting import within

ROOT = Path(__file__).resolve().parents[2]
SERVING = re.compile(r"serving on (ws://\S+)")
WEB_SERVING = re.compile(r"in a browser: (http://\S+/)$")
JOIN_LINES = 16
"""What a first start prints after its address: the room, a title, the GM's, three
seats' and the spectators' commands, a title, their five links, create, rooms, and the
create link (the last six are absent with --no-web)."""
JOIN_LINE = re.compile(
    r"^\s*([\w ]+):\s+\S+(?: -m clients\.cli)? (?:gm|play|watch) --server \S+ --token (\S+)"
)
"""A join line a first start prints: who it is for, and the token (or code) it gives.
The program is named by its path (`.venv/bin/combat`), as it runs from the repository."""
WEB_LINE = re.compile(r"^\s*([\w ]+):\s+(http://\S+/#join=(\S+))$")
"""A link a first start prints: who it is for, the link, and the code it carries."""
STOPPING = 30.0
"""Seconds a server in this loop may take to stop: its connections and rooms closed."""


@dataclass
class Served:
    app: App
    url: str
    host_token: str
    demo: JoinTokens | None

    @property
    def web_url(self) -> str:
        """The web app's address (`http://127.0.0.1:PORT/`), "" unless asked for."""
        return self.app.web_url


@asynccontextmanager
async def served(
    data_dir: Path,
    *,
    demo: bool = True,
    redis: str | None = None,
    web: bool = False,
    web_root: Path = WEB_ROOT,
    **gateway: Any,
) -> AsyncIterator[Served]:
    """A server on a free loopback port in this event loop, with the demo encounter;
    on the Redis at `redis` (as `--redis`) when given, else embedded; with `web`, the
    web app (`web_root`'s files) on another free port."""
    app = App(
        Options(
            port=0,
            web_port=0 if web else None,
            web_root=web_root,
            data_dir=data_dir,
            demo=demo,
            redis=redis,
        )
    )
    for name, value in gateway.items():
        setattr(app.gateway, name, value)
    await app.start()
    try:
        tokens = await app.offer_demo()
        token = (data_dir / HOST_TOKEN_FILE).read_text().strip()
        yield Served(app, app.url, token, tokens)
    finally:
        await within(app.stop(), STOPPING, "stopping the test's server")


class ServerProcess:
    """`python -m server` in a child process on `data_dir`; `url` (and `web_url`, the
    web app's address) once it serves.

    The web app is on `web_port` (a free one by default) unless `options` has
    `--no-web`; a restart (`start` again) keeps both ports, so a page open on the old
    process reconnects to the new one. `options` are more command-line options
    (`--redis URL`, `--lease-ttl 2`, ...); `module` is what `python -m` runs (the
    server, or a test's wrapper around it that takes the same options). The
    environment's `REDIS_URL` (which may name the test suites' Redis) is never passed
    on: a server scales out only when a test says so. Its log lines (JSON on stderr) go
    to `data_dir/server.log`, for `log_lines`. What it prints is read by a thread of its
    own, so reading it (`start`, `read_output`) waits a bounded time, never for ever.
    `prefix` is a command line the server runs under (`ip netns exec NAME`: on a
    private test host, tests/support/netns.py); it must exec the server, so that `pid`
    and the signals are the server's own.
    """

    def __init__(
        self,
        data_dir: Path,
        port: int = 0,
        options: Sequence[str] = (),
        web_port: int = 0,
        module: str = "server",
        prefix: Sequence[str] = (),
    ) -> None:
        self.data_dir = data_dir
        self.prefix = list(prefix)
        self.module = module
        self.port = port
        self.web_port = web_port
        self.options = list(options)
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.web_url = ""
        self.output: list[str] = []
        self._printed: queue.Queue[str | None] = queue.Queue()  # None: stdout closed

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def start(self, timeout: float = 20.0) -> str:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env["PYTHONPATH"] = str(ROOT)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        web = [] if "--no-web" in self.options else ["--web-port", str(self.web_port)]
        with self.log_path.open("a") as log:
            self.process = subprocess.Popen(
                [
                    *self.prefix,
                    sys.executable,
                    "-m",
                    self.module,
                    "--port",
                    str(self.port),
                    "--data-dir",
                    str(self.data_dir),
                    *web,
                    *self.options,
                ],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                cwd=ROOT,
                env=env,
            )
        assert self.process.stdout is not None
        self._printed = queue.Queue()
        threading.Thread(
            target=_pump, args=(self.process.stdout, self._printed), daemon=True
        ).start()
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._next_line(deadline)
            except TimeoutError:
                self.kill()
                raise RuntimeError(
                    f"the server did not serve within {timeout} s: {''.join(self.output)}"
                ) from None
            if not line:
                raise RuntimeError(f"the server did not start: {''.join(self.output)}")
            self.output.append(line)
            found = SERVING.search(line)
            if found:
                self.url = found.group(1)
                self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])
                page = WEB_SERVING.search(line.rstrip("\n"))
                if page:
                    self.web_url = page.group(1)
                    self.web_port = int(self.web_url.rsplit(":", 1)[1].rstrip("/"))
                return self.url

    def read_output(self, lines: int, timeout: float = 10.0) -> list[str]:
        """The next `lines` lines the server prints (the demo's join commands); "" for
        each once its output is closed. `TimeoutError` if they take over `timeout` s."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        for _ in range(lines):
            self.output.append(self._next_line(deadline))
        return self.output[-lines:]

    def _next_line(self, deadline: float) -> str:
        """The next line printed, "" once stdout is closed; `TimeoutError` at `deadline`."""
        try:
            line = self._printed.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(f"the server printed nothing more: {''.join(self.output)}") from None
        if line is None:
            self._printed.put(None)  # closed for good: the next read is told so too
            return ""
        return line

    @property
    def host_token(self) -> str:
        return (self.data_dir / HOST_TOKEN_FILE).read_text().strip()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def log_lines(self) -> list[dict[str, Any]]:
        """What the server logged so far, one dict per JSON line."""
        if not self.log_path.exists():
            return []
        lines = []
        for line in self.log_path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                lines.append(json.loads(line))
        return lines

    def signal(self, signum: int) -> None:
        """Send `signum` (SIGSTOP, SIGCONT, ...) to the running server."""
        assert self.process is not None
        self.process.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL: no goodbye, no flush; what is in the log is what survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> int | None:
        """SIGTERM and wait: the graceful way."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode


async def wait_for(predicate: Any, timeout: float = 5.0, step: float = 0.01) -> None:
    """Poll `predicate()` until true (bounded: network tests only)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(step)


def _pump(stream: Any, into: queue.Queue[str | None]) -> None:
    """Hand each line of `stream` to `into`, then None when it is closed."""
    try:
        for line in stream:
            into.put(line)
    except (OSError, ValueError):  # closed under it: the same as its end
        pass
    finally:
        into.put(None)
