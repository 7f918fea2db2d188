"""The terminal program's main loop: the fight printed as it arrives, typed lines sent.

Three tasks share one `Client`:

* following: every event is printed as `[seq] narration` (the seq is what `rewind`
  takes), a window that asks one of this seat's combatants prints a prompt with the
  answers it may give, a pause and a resume say what happened to the countdown;
* reading: each line is parsed (`commands.parse`, pure) and sent; a refusal prints its
  code and message, a line that is not a command prints why and sends nothing;
* ticking: the open window's countdown on the status line, once a second.

`run(lines)` takes the lines as an async iterator, so tests feed it without a
terminal; the command line (`cli.py`) feeds it stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Literal

from clients.client import Client, ClientClosed, ConnectionLost, GapFound
from clients.commands import (
    ActAs,
    Command,
    CommandError,
    Context,
    Look,
    Nothing,
    OpenWindow,
    Quit,
    Role,
    ShowHelp,
    parse,
)
from clients.lines import DEFAULT_RULESET
from clients.narration import narrate
from clients.rulesets import known, words_for
from clients.screen import Screen
from clients.words import Words, unknown_ruleset
from protocol.messages import Error, Events, Snapshot, Welcome, Window

Mode = Literal["play", "gm", "watch"]


class Console:
    def __init__(self, client: Client, screen: Screen, mode: Mode, *, tick: float = 1.0) -> None:
        self.client = client
        self.screen = screen
        self.mode = mode
        self.tick = tick
        self.actor = ""
        self._prompted: tuple[Any, ...] | None = None
        self._declaring: dict[str, tuple[Any, ...]] = {}  # the last planning prompt each
        self._running: tuple[int, bool] | None = None
        self._welcomed = False
        self._quit = False
        self.exit_code = 0

    # -- the loop ----------------------------------------------------------------------

    async def run(self, lines: AsyncIterator[str]) -> int:
        """Until `quit`, the end of input (not when watching) or a connection lost for
        good; returns the exit code (0, or 1 when the server ended it)."""
        follow = asyncio.create_task(self._follow(), name="console follow")
        ticker = asyncio.create_task(self._tick(), name="console tick")
        read = asyncio.create_task(self._read(lines), name="console read")
        tasks = {follow, read}
        try:
            while tasks:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                if follow in done or (read in done and (self._quit or self.mode != "watch")):
                    break
                tasks -= done
        finally:
            for task in (follow, ticker, read):
                task.cancel()
            for task in (follow, ticker, read):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self.screen.status(None)
        return self.exit_code

    async def _read(self, lines: AsyncIterator[str]) -> None:
        async for text in lines:
            if not await self.handle_line(text):
                return

    async def handle_line(self, text: str) -> bool:
        """Act on one typed line; False when it asks to quit."""
        try:
            parsed = parse(text, self.context())
        except CommandError as error:
            self.screen.line(f"? {error.message} ({error.code})")
            return True
        if isinstance(parsed, Quit):
            self._quit = True
            return False
        if isinstance(parsed, ShowHelp):
            self.screen.line(parsed.text)
        elif isinstance(parsed, Look):
            self.screen.line(self.describe_fight())
        elif isinstance(parsed, ActAs):
            self.actor = parsed.combatant
            self.screen.line(f"acting as {self.client.view.name_of(parsed.combatant)}")
        elif isinstance(parsed, Command):
            advice = words_for(self.ruleset).advice(parsed.command, self.context())
            if await self._send(parsed.command) and advice:
                self.screen.line(f"  note: {advice}")
        else:
            assert isinstance(parsed, Nothing)
        return True

    async def _send(self, command: dict[str, Any]) -> bool:
        """Send `command`; whether it was accepted (a refusal prints why)."""
        try:
            answer = await self.client.send(command)
        except ClientClosed:
            self.screen.line("! not sent: the connection is closed")
            return False
        except ValueError as error:  # the envelope refused it (raw with odd values)
            self.screen.line(f"! not sent: {error}")
            return False
        if answer.type == "refused":
            self.screen.line(f"! refused: {answer.code}: {answer.message}")
            return False
        return True

    def context(self) -> Context:
        role: Role = "spectator"
        if self.client.role in ("gm", "player", "host"):
            role = self.client.role  # type: ignore[assignment]
        window = self.client.window
        open_window = None
        if window is not None:
            open_window = OpenWindow(
                window.id,
                window.kind,
                window.about,
                {who: tuple(options) for who, options in window.asked.items()},
                tuple(window.answered),
            )
        return Context(
            role,
            tuple(self.client.controls),
            self.actor,
            open_window,
            self.ruleset,
            self.client.view.state,
        )

    @property
    def ruleset(self) -> str:
        """The room's ruleset (`welcome.ruleset`); the default one before the welcome."""
        welcome = self.client.welcome
        return welcome.ruleset if welcome is not None else DEFAULT_RULESET

    # -- what arrives ------------------------------------------------------------------

    async def _follow(self) -> None:
        async for message in self.client:
            if isinstance(message, Welcome):
                self._welcome(message)
            elif isinstance(message, Snapshot):
                self.screen.line(self.describe_fight())
                self._turn_waiting()
            elif isinstance(message, Events):
                for item in message.events:
                    self._event(item.seq, item.event)
            elif isinstance(message, Window):
                self._window(message)
            elif isinstance(message, Error):
                self.screen.line(f"! server: {message.code}: {message.message}")
            elif isinstance(message, GapFound):
                self.screen.line(f"! missed events after {message.expected - 1}: resuming")
            elif isinstance(message, ConnectionLost):
                why = f"{message.code} {message.reason}".strip()
                if message.reconnecting:
                    self.screen.line(f"! connection lost ({why}): reconnecting")
                else:
                    self.screen.line(f"! connection closed ({why})")
                    self.exit_code = 1
                    return

    def _welcome(self, welcome: Welcome) -> None:
        if self._welcomed:
            self.screen.line(f"reconnected: resuming after event {self.client.seq}")
            return
        self._welcomed = True
        who: str = welcome.role
        if welcome.role == "player":
            plays = ", ".join(welcome.controls) or "nobody"
            who = f"player (seat {welcome.seat}, plays {plays})"
        self.screen.line(f"Room {welcome.room} ({welcome.ruleset}) as {who}; type 'help'")
        if not known(welcome.ruleset):
            self.screen.line(f"! {unknown_ruleset(welcome.ruleset)}; its events print as fields")

    def _event(self, seq: int, event: dict[str, Any]) -> None:
        view = self.client.view
        text = narrate(event, view.name_of, self.ruleset, turns=view.turns_of, knows=self._knows)
        first, *rest = text.split("\n")
        prefix = f"[{seq}] "
        indent = " " * len(prefix)
        self.screen.line("\n".join([prefix + first, *(indent + line for line in rest)]))
        who = str(event.get("combatant", ""))
        if event.get("$type") in ("DeclarationMade", "DeclarationWithdrawn") and self._mine(who):
            self._still_to_declare(who)
        elif event.get("$type") == "TurnStarted" and self._mine(who):
            self._your_turn(who)
        elif event.get("$type") == "RoundStarted" and self.client.role == "gm":
            self._one_side_left()
        elif event.get("$type") == "Rewound":
            self._turn_waiting()

    def _current(self) -> str | None:
        """Whose turn it is, as the view shows it (None outside a turn)."""
        state = self.client.view.state
        order, turn = state.get("turn_order"), state.get("turn")
        if state.get("phase") != "combat" or not isinstance(order, list):
            return None
        if not isinstance(turn, int) or not 0 <= turn < len(order):
            return None
        slot = order[turn]
        return str(slot.get("combatant")) if isinstance(slot, dict) else None

    def _turn_waiting(self) -> None:
        """Joined, rejoined or rewound onto one's own turn in a turn-based fight: no
        `TurnStarted` comes to say so, and no window either (V25: nothing times a
        turn), so say it now."""
        who = self._current()
        if who is not None and self._mine(who) and self.client.view.state.get("window") is None:
            self._your_turn(who)

    def _one_side_left(self) -> None:
        """A new round with at most one side able to fight: remind the GM that the fight
        ends only when they say so (Verse has no end of combat, R70; Tael's is the GM's
        too, T10), or the rounds go on with nobody to fight."""
        able = words_for(self.ruleset).able
        combatants = self.client.view.state.get("combatants", {})
        sides = sorted(
            {str(c.get("side")) for c in combatants.values() if isinstance(c, dict) and able(c)}
        )
        if len(sides) > 1 or not combatants:
            return
        left = f"only {sides[0]} can still fight" if sides else "nobody can still fight"
        self.screen.line(f"  note: {left}: 'end combat' ends the fight")

    def _still_to_declare(self, who: str) -> None:
        """V16, V20: one of several turns declared, the planning window still waits for
        the others: say which (no `window` message comes until all are declared)."""
        window = self.client.view.state.get("window")
        if not isinstance(window, dict) or window.get("kind") != "planning":
            return
        if who in window.get("answered", []) or who not in self.client.view.asked(window):
            return
        self._prompt_planning(int(window["id"]), who)

    def _prompt_planning(self, window: int, who: str) -> None:
        view = self.client.view
        left = view.undeclared_turns(who)
        key = (window, who, tuple(left))
        if key == self._declaring.get(who):
            return
        self._declaring[who] = key
        turns = len(view.turns_of(who))
        asks = [f"declare turn {n} <action> ..." if n > 1 else "declare <action> ..." for n in left]
        if turns <= 1 or not left:
            text = "declare <action> ... or pass"
        elif len(left) == turns:
            text = f"{' and '.join(asks)} ({turns} turns this round), or pass"
        else:
            done = [n for n in range(1, turns + 1) if n not in left]
            declared = ", ".join(f"turn {n}" for n in done)
            text = f"{' and '.join(asks)} still needed ({declared} declared), or pass"
        self.screen.line(f">>> {view.name_of(who)} ({who}): {text}  [window {window}]")

    def _your_turn(self, who: str) -> None:
        """A turn-based room (V25, TR1) waits for the one whose turn it is: say so."""
        if self.client.view.state.get("mode") != "turn_based":
            return
        name = self.client.view.name_of(who)
        self.screen.line(f">>> {name} ({who}): your turn: act (type 'help'), then end")

    def _window(self, message: Window) -> None:
        waiting = [a.combatant for a in message.asked if a.combatant not in message.answered]
        key = (message.window, message.running)
        if self._running is not None and self._running[0] == message.window:
            if self._running[1] and not message.running and message.remaining_ms > 0:
                left = message.remaining_ms / 1000
                self.screen.line(f"  (window {message.window} frozen with {left:.1f}s left)")
            elif not self._running[1] and message.running:
                left = message.remaining_ms / 1000
                self.screen.line(f"  (window {message.window} runs again: {left:.1f}s left)")
        self._running = key
        mine = [c for c in waiting if self._mine(c)]
        prompt_key = (message.window, tuple(mine))
        if not mine or prompt_key == self._prompted:
            return
        self._prompted = prompt_key
        options = {a.combatant: a.options for a in message.asked}
        view = self.client.view
        for who in mine:
            if message.kind == "planning":
                self._prompt_planning(message.window, who)
                continue
            text = f">>> {view.name_of(who)} ({who}): {' | '.join([*options[who], 'pass'])}"
            self.screen.line(f"{text}  [window {message.window}]")

    def _knows(self, combatant: str) -> bool:
        """Whether this screen sees `combatant`'s secrets (its declarations): the GM
        always, a player for its own side (docs/protocol.md, views)."""
        if self.client.role == "gm":
            return True
        if self.client.role != "player":
            return False
        view = self.client.view
        side = view.side_of(combatant)
        return bool(side) and side in {view.side_of(c) for c in self.client.controls}

    def _mine(self, combatant: str) -> bool:
        if self.client.role == "player":
            return combatant in self.client.controls
        return False

    async def _tick(self) -> None:
        while True:
            window = self.client.window
            if window is None:
                self.screen.status(None)
            else:
                waiting = ", ".join(window.waiting_for)
                state = f"{window.remaining():.0f}s left" if window.running else "paused"
                if window.message.running and not window.running:
                    state = "time is up"
                self.screen.status(
                    f"  ~ window {window.id} ({window.kind}): {state}; waiting for {waiting}"
                )
            await asyncio.sleep(self.tick)

    # -- the fight at a glance ---------------------------------------------------------

    def describe_fight(self) -> str:
        """The view in a few lines: the round, the pause, each combatant, as of the last
        event (the view folds every event in, `view.py`); what the view may have wrong
        is marked approximate."""
        state = self.client.view.state
        view = self.client.view
        phase = state.get("phase", "?")
        head = f"Fight after event {view.seq}: {phase}"
        if state.get("round"):
            head += f", round {state['round']}"
        current = self._current()
        if current is not None:
            head += f", {view.name_of(current)}'s turn"
        by = state.get("paused_by")
        if by:
            head += f", paused by {'the GM' if by == 'gm' else view.name_of(str(by))}"
        unknown = view.doubts.events
        if unknown:
            head += f" (approximate: this program cannot follow {', '.join(sorted(unknown))})"
        lines = [head]
        combatants = state.get("combatants")
        words = words_for(self.ruleset)
        if isinstance(combatants, dict):
            for cid, combatant in combatants.items():
                unsure = bool(view.doubts.about(cid) & HEALTH_FIELDS)
                line = _combatant_line(view.name_of(cid), cid, combatant, words, unsure)
                lines.append("  " + line)
        return "\n".join(lines)


HEALTH_FIELDS = frozenset({"health", "hit_points", "health_state"})
"""The fields `Words.health` shows: doubting one makes the health shown approximate."""


def _combatant_line(name: str, cid: str, combatant: Any, words: Words, unsure: bool) -> str:
    """`Ayla [ayla], party at (0, 0): health 20, Prone`: its health and marks in the
    words of the room's ruleset (`Words.health`, `Words.marks`); `unsure`: the health
    shown is a guess (another side's, after a hit that did not say)."""
    if not isinstance(combatant, dict):
        return f"{name}"
    where = combatant.get("position")
    at = f" at ({where.get('x')}, {where.get('y')})" if isinstance(where, dict) else ""
    health = words.health(combatant) + (" (approximate)" if unsure else "")
    marks = words.marks(combatant)
    extra = f", {', '.join(marks)}" if marks else ""
    label = name if name != cid and f"({cid})" in name else f"{name} [{cid}]"
    return f"{label}, {combatant.get('side', '?')}{at}: {health}{extra}"
