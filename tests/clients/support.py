"""Shared by the client tests and the end-to-end round: a seeded demo encounter, and
the terminal program fed typed lines (`Terminal`)."""

from __future__ import annotations

import asyncio
import copy
import io
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

from clients.client import Client
from clients.commands import Parsed, parse
from clients.console import SETTLE, Console, Mode
from clients.countdown import WindowClock
from clients.encounters import read_encounter
from clients.screen import Screen
from clients.table import HeldTable
from protocol.messages import Ack, Asked, Created, Welcome, Window
from tests.support.server import wait_for
from tests.support.waiting import within

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "server" / "samples" / "encounters" / "demo.toml"
ANSWER = 10.0
"""Seconds a command sent through the client library waits for its ack or refusal."""
IDLE = 60.0
"""Seconds a keyboard may go without a line before reading it fails: far longer than any
test leaves it quiet, shorter than a test's own time limit."""


def demo_encounter(seed: int = 7, **settings: Any) -> dict[str, Any]:
    """The demo's cast with fixed dice; `settings` override the room's settings."""
    encounter = read_encounter(DEMO)
    encounter["seed"] = seed
    encounter["settings"] = {**encounter.get("settings", {}), **settings}
    return encounter


async def create(url: str, host_token: str, encounter: dict[str, Any]) -> Created:
    async with await Client.connect(url, host_token) as host:
        created = await host.create(encounter, timeout=10)
    assert isinstance(created, Created), created
    return created


def seqs(client: Client) -> list[int]:
    """The seqs of the raw events `client` kept (made with `keep_events=True`)."""
    assert client.keep_events, "seqs reads the events of a client made with keep_events=True"
    return [seq for seq, _ in client.events]


def events_of(client: Client, kind: str) -> list[dict[str, Any]]:
    """The raw events of type `kind` `client` kept (made with `keep_events=True`)."""
    assert client.keep_events, "events_of reads a client made with keep_events=True"
    return [event for _, event in client.events if event["$type"] == kind]


def attack(actor: str, target: str, weapon: str) -> dict[str, Any]:
    return {"$type": "Attack", "actor": actor, "target": target, "weapon": weapon}


def declare(actor: str, *actions: dict[str, Any], turn: int = 0) -> dict[str, Any]:
    return {"type": "Declare", "actor": actor, "actions": list(actions), "turn": turn}


class Typed:
    """Lines as a person would type them, one at a time; `end()` is Ctrl-D.

    Waiting for the next line is bounded: with none typed for `idle` seconds, reading
    fails with a `TimeoutError`, kept in `lapsed` (a console ends its input on it)."""

    def __init__(self, idle: float = IDLE) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.idle = idle
        self.lapsed: TimeoutError | None = None

    def type(self, *lines: str) -> None:
        for line in lines:
            self._queue.put_nowait(line)

    def end(self) -> None:
        self._queue.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[str]:
        while True:
            try:
                line = await within(self._queue.get(), self.idle, "the next typed line")
            except TimeoutError as lapsed:
                self.lapsed = lapsed
                raise
            if line is None:
                return
            yield line


class Clock:
    """A clock a test moves by hand (`now`), for the console's "how long has this
    prompt been on the screen"."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Terminal:
    """A console on a client, its output captured, its loop running as a task."""

    def __init__(
        self,
        client: Client,
        mode: Mode,
        tick: float = 10.0,
        *,
        plays: Iterable[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        settle: float = SETTLE,
    ) -> None:
        self.client = client
        self.out = io.StringIO()
        self.keys = Typed()
        self.console = Console(
            client, Screen(self.out), mode, tick=tick, plays=plays, settle=settle, clock=clock
        )
        self.task = asyncio.create_task(self.console.run(self.keys))

    @property
    def text(self) -> str:
        return self.out.getvalue()

    async def shows(self, text: str) -> None:
        try:
            await wait_for(lambda: text in self.text)
        except TimeoutError:
            raise AssertionError(f"{text!r} never showed in:\n{self.text}") from None

    async def quit(self) -> int:
        """Type `quit`: the console's exit code; its keyboard must not have lapsed."""
        self.keys.type("quit")
        code = await within(self.task, 5, "the console to quit")
        if self.keys.lapsed is not None:
            raise self.keys.lapsed
        return code


class _Unconnected:
    """What a `Console` reads of its `Client`, with no connection behind it."""

    def __init__(self, role: str, controls: Iterable[str], ruleset: str) -> None:
        self.table = HeldTable()
        self.window: WindowClock | None = None
        self.welcome = Welcome(
            room="r-1",
            role=role,  # type: ignore[arg-type]
            seat="" if role != "player" else "seat",
            controls=list(controls),
            ruleset=ruleset,
            seq=0,
        )
        self.sent: list[dict[str, Any]] = []

    async def send(self, command: dict[str, Any]) -> Any:
        """Keep the command; the server's answer is an ack."""
        self.sent.append(command)
        return Ack(cid="c", first_seq=1, last_seq=1)

    @property
    def role(self) -> str:
        return self.welcome.role

    @property
    def controls(self) -> list[str]:
        return list(self.welcome.controls)


class Desk:
    """A console fed by hand, without a server: the table as the server would send it
    after batches of events (`events`: the few events these tests need, each made the
    table's change and a log line), choices and window messages, lines read in the
    console's context (`line`), and a clock moved by hand (`clock.now`). For what
    depends on time and order: which window a line typed at a given moment answers."""

    def __init__(
        self,
        view: dict[str, Any],
        role: str = "gm",
        controls: Iterable[str] = (),
        plays: Iterable[str] | None = None,
    ) -> None:
        self.clock = Clock()
        self.client = _Unconnected(role, controls, str(view.get("ruleset", "verse")))
        self.client.table.take({"type": "table", "seq": 0, "view": view})
        self.out = io.StringIO()
        mode: Mode = "gm" if role == "gm" else "play"
        self.console = Console(
            self.client,  # type: ignore[arg-type]
            Screen(self.out),
            mode,
            plays=plays,
            clock=self.clock,
        )
        self.seq = 0
        self._asks: dict[str, list[str]] = {}

    @property
    def text(self) -> str:
        return self.out.getvalue()

    def events(self, *events: dict[str, Any]) -> None:
        """One update: the table after `events`, and a log line for each."""
        view = copy.deepcopy(self.client.table.view)
        lines, rewound = [], False
        for event in events:
            self.seq += 1
            kind = event["$type"]
            lines.append({"seq": self.seq, "kind": kind, "text": kind, "rolls": []})
            window = view.get("window")
            if kind == "WindowOpened":
                opens = event["window"]
                asked = [ask["combatant"] for ask in opens["asked"]]
                view["window"] = {
                    "id": opens["id"],
                    "kind": opens["kind"],
                    "about": opens.get("about", ""),
                    "asked": asked,
                    "answered": [],
                    "seconds": opens["seconds"],
                }
            elif kind in ("WindowClosed", "CombatEnded"):
                view["window"] = None
                self.client.window = None
            elif kind in ("Passed", "Answered") and window and window["id"] == event["window"]:
                window["answered"] = [*window["answered"], event["combatant"]]
                self._answered(event["window"], event["combatant"])
            elif kind == "DeclarationMade" and window:
                self._answered(window["id"], event["combatant"])
            elif kind == "Rewound":
                view, rewound = copy.deepcopy(event["table"]), True
                self.client.window = None
        self.client.table.view, self.client.table.seq = view, self.seq
        self.client.table.log.extend(lines)
        self.console._log(lines)
        self.console._table(rewound=rewound)
        if any(event["$type"] in ("WindowOpened", "WindowClosed") for event in events):
            self.choices(*self._offered(events))

    def _offered(self, events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The choices the server sends once a window opens or closes: each asked
        combatant's options as plain answers and a pass; in a planning window, a
        declaration to compose and a pass."""
        for event in events:
            if event["$type"] == "WindowOpened":
                self._asks = {a["combatant"]: a["options"] for a in event["window"]["asked"]}
        window = self.client.table.view.get("window")
        if not window:
            return []
        seats = []
        for who in window["asked"]:
            if who in window["answered"]:
                continue
            wid, compose = window["id"], None
            passing = {"type": "PassWindow", "actor": who, "window": wid}
            options = [{"key": "pass", "label": "Pass", "command": passing}]
            if window["kind"] == "planning":
                declare = {"type": "Declare", "actor": who, "turn": 0, "actions": []}
                compose = {"label": "Declare", "command": declare, "into": "/actions", "most": 8}
            else:
                answers = [
                    {"type": "Answer", "actor": who, "window": wid, "option": o, "action": None}
                    for o in self._asks.get(who, [])
                ]
                options = [
                    {"key": a["option"], "label": a["option"].title(), "command": a}
                    for a in answers
                ] + options
            seats.append({"combatant": who, "window": wid, "compose": compose, "options": options})
        return seats

    def _answered(self, window: int, who: str) -> None:
        """This screen's answer, accepted (what `Console.handle_line` notes once sent)."""
        self.console._note_answer(window, who)

    def choices(self, *seats: dict[str, Any]) -> None:
        """A `choices` message: what this screen's combatants may do now."""
        self.client.table.take({"type": "choices", "seq": self.seq, "seats": list(seats)})
        self.console._choices()

    def window(self, wid: int, kind: str, asked: dict[str, list[str]], **fields: Any) -> None:
        message = Window(
            seq=self.seq,
            window=wid,
            kind=kind,
            asked=[Asked(combatant=who, options=options) for who, options in asked.items()],
            total_ms=8000,
            remaining_ms=8000,
            **fields,
        )
        self.client.window = WindowClock.start(message, self.clock)
        self.console._window(message)

    def line(self, text: str) -> Parsed:
        return parse(text, self.console.context())


def opened(wid: int, kind: str, asked: dict[str, list[str]], about: str = "") -> dict[str, Any]:
    """A `WindowOpened` event as the wire carries it."""
    asks = [{"$type": "Ask", "combatant": who, "options": o} for who, o in asked.items()]
    window = {"$type": "Window", "id": wid, "kind": kind, "asked": asks, "seconds": 8.0}
    return {"$type": "WindowOpened", "window": {**window, "answered": [], "about": about}}


def closed(wid: int, reason: str = "expired") -> dict[str, Any]:
    return {"$type": "WindowClosed", "window": wid, "reason": reason}
