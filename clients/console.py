"""The terminal program's main loop: the fight printed as it arrives, typed lines sent.

Three tasks share one `Client`:

* following: every event is printed as `[seq] narration` (the seq is what `rewind`
  takes); once a whole batch of events is printed, the state after it says whether
  one of this screen's combatants is asked something (a turn that starts and is lost
  in the same batch asks nothing); a window that asks one prints a prompt with the
  answers it may give, a pause and a resume say what happened to the countdown;
* reading: each line is parsed (`commands.parse`, pure) and sent; a refusal prints its
  code and message, a line that is not a command prints why and sends nothing;
* ticking: the open window's countdown on the status line, once a second.

"This screen's combatants" are a player's seat's, and the GM's own: those no seat
plays. Neither `welcome` nor the view says which those are (docs/protocol.md, "The
handshake"), so the GM says it (`combat gm --plays g1,g2`, which `combat create`
prints, or `plays g1 g2`); until then the GM is prompted for every combatant. A GM's
prompt says how to answer: `>>> Goblin (g1): dodge | block | pass  [window 7]  (as g1
...)`.

An answer goes to the window whose prompt the person saw, not to whatever window is
open when Enter is pressed. A window asking one of this screen's combatants that closed
less than `settle` seconds before a line for it was typed (it expired while the answer
was typed, and the next attack or round opened another), or less than `settle` before
the next prompt appeared when that prompt is itself younger than `settle` (no one reads
a prompt and types an answer faster), is the one the line was meant for: the answer is
refused here with the reason, and the prompt of now is shown (`Console._late`,
`lines.answer_window`). Any other line goes to the window open now: a window that
closed longer ago, one the combatant answered, or one closed by a rewind never takes
it.

`run(lines)` takes the lines as an async iterator, so tests feed it without a
terminal; the command line (`cli.py`) feeds it stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from clients.client import Client, ClientClosed, ConnectionLost, GapFound
from clients.commands import (
    ActAs,
    AddFromSheet,
    Command,
    CommandError,
    Context,
    Invitations,
    Look,
    Nothing,
    OpenWindow,
    Plays,
    Quit,
    Role,
    ShowHelp,
    parse,
)
from clients.encounters import EncounterFileError, read_sheet
from clients.lines import DEFAULT_RULESET
from clients.narration import narrate
from clients.program import join_lines
from clients.rulesets import known, words_for
from clients.screen import Screen
from clients.words import Words, unknown_ruleset
from protocol.messages import Codes, Error, Events, Snapshot, Welcome, Window

Mode = Literal["play", "gm", "watch"]

SETTLE = 1.5
"""Seconds after a window closed (or after the next prompt appeared) in which a line is
taken to have been typed for it: no one reads a new prompt and answers it faster."""
SHOWN_KEPT = 4
"""How many of the last windows shown each combatant keeps (`Console._shown`)."""


class Console:
    def __init__(
        self,
        client: Client,
        screen: Screen,
        mode: Mode,
        *,
        tick: float = 1.0,
        plays: Iterable[str] | None = None,
        settle: float = SETTLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.screen = screen
        self.mode = mode
        self.tick = tick
        self.settle = settle
        self.clock = clock
        self.plays: set[str] | None = set(plays) if plays is not None else None
        """The GM's own combatants, prompted for; None: every combatant."""
        self.actor = ""
        self._prompted: dict[str, tuple[Any, ...]] = {}  # the last window prompt each
        self._declaring: dict[str, tuple[Any, ...]] = {}  # the last planning prompt each
        self._running: tuple[int, bool] | None = None
        self._shown: dict[str, list[tuple[int, float]]] = {}
        """Per combatant, the windows shown asking it: (id, when first shown), oldest first."""
        self._windows: dict[int, OpenWindow] = {}  # each window shown, as last known
        self._adapt_answers: dict[int, str] = {}  # adapt windows: passed, adapted, gave up
        self._adapt_closed: str | None = None  # how the adapt window just closed, if any
        self._closed: dict[int, tuple[str, float | None]] = {}  # how each window closed, when
        self._turn_prompted: tuple[Any, ...] | None = None
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
            if error.code == "window_closed" and error.combatant:
                self._prompt_now(error.combatant)
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
        elif isinstance(parsed, Plays):
            self._set_plays(parsed.combatants)
        elif isinstance(parsed, AddFromSheet):
            await self._add(parsed)
        elif isinstance(parsed, Invitations):
            await self._invitations(parsed)
        elif isinstance(parsed, Command):
            advice = words_for(self.ruleset).advice(parsed.command, self.context())
            if await self._send(parsed.command) and advice:
                self.screen.line(f"  note: {advice}")
        else:
            assert isinstance(parsed, Nothing)
        return True

    def _set_plays(self, combatants: tuple[str, ...]) -> None:
        """`plays g1 g2`: the GM's own combatants, prompted for; `plays all`, `plays
        none`; `plays` alone says which."""
        words = [c.lower() for c in combatants]
        if words == ["all"]:
            self.plays = None
        elif words == ["none"]:
            self.plays = set()
        elif combatants:
            self.plays = set(combatants)
            unknown = [c for c in combatants if c not in self._combatants()]
            if unknown:
                self.screen.line(f"  note: no combatant {', '.join(unknown)} in this fight now")
        self.screen.line(f"prompts for: {self._plays_text()}")
        self._prompted.clear()  # show the open window's prompt for them now
        self._declaring.clear()
        self._turn_prompted = None
        self._prompt_all()

    def _plays_text(self) -> str:
        if self.plays is None:
            return "every combatant (say yours: plays g1 g2)"
        names = [self.client.view.name_of(c) for c in sorted(self.plays)]
        return ", ".join(names) or "nobody"

    def _combatants(self) -> dict[str, Any]:
        combatants = self.client.view.state.get("combatants")
        return combatants if isinstance(combatants, dict) else {}

    async def _add(self, add: AddFromSheet) -> None:
        """The GM's `add`: the sheet file made into the room's combatant record, sent
        as `AddCombatant`; the GM plays it (no seat does)."""
        make = words_for(self.ruleset).new_combatant
        if make is None:
            self.screen.line(f"? a {self.ruleset} room cannot add combatants (not_supported)")
            return
        try:
            sheet = read_sheet(Path(add.path).expanduser())
        except EncounterFileError as error:
            self.screen.line(f"? {'; '.join(error.problems)} (bad_sheet)")
            return
        command = {"type": "AddCombatant", "combatant": make(sheet, add)}
        if await self._send(command) and self.plays is not None:
            self.plays.add(add.combatant)
            self.screen.line(f"  note: you play {add.combatant}: prompts for it too")

    async def _invitations(self, asked: Invitations) -> None:
        """The GM's `invites` and `revoke`: the room's codes, as the lines that join."""
        try:
            if asked.revoke:
                answer = await self.client.revoke(asked.revoke, reissue=asked.reissue)
            else:
                answer = await self.client.invites()
        except ClientClosed:
            self.screen.line("! not sent: the connection is closed")
            return
        if answer.type == "refused":
            self.screen.line(f"! refused: {answer.code}: {answer.message}")
            return
        self.screen.line(self.describe_codes(answer, revoked=asked.revoke))

    def describe_codes(self, answer: Codes, revoked: str = "") -> str:
        """The room's invite codes as the commands that join with them."""
        codes = answer.codes
        plays = sorted(self.plays) if self.plays is not None else ()
        lines = join_lines(
            ",".join(self.client.urls), codes.gm, codes.players, codes.spectator, gm_plays=plays
        )
        head = f"revoked {revoked.upper()}; " if revoked else ""
        head += f"invite codes of room {answer.room} (valid until you revoke them):"
        return "\n".join([head, *lines] if lines else [head, "  none"])

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
            self._seen(open_window),
        )

    def _seen(self, current: OpenWindow | None) -> dict[str, OpenWindow]:
        """For each combatant, the window a line typed now answers for it: a window shown
        asking it that closed just now (`_late`), marked closed so the answer is refused;
        else the open window, when it was shown asking it. A combatant left out answers
        the open window (`Context.window`)."""
        now = self.clock()
        open_id = self._open_id()
        seen: dict[str, OpenWindow] = {}
        for who, shown in self._shown.items():
            late = self._late(who, shown, open_id, now)
            if late is not None:
                window = self._windows.get(late)
                if window is not None:
                    seen[who] = replace(window, closed=self._closed[late][0])
                    continue
            if open_id is None or open_id not in {wid for wid, _ in shown}:
                continue
            if self._answered(open_id, who):
                continue  # a window it answered already is not one a new answer can be for
            window = current if current is not None and current.id == open_id else None
            window = window or self._windows.get(open_id)
            if window is not None:
                seen[who] = replace(window, closed="")
        return seen

    def _late(
        self, who: str, shown: list[tuple[int, float]], open_id: int | None, now: float
    ) -> int | None:
        """The window shown asking `who` that a line typed `now` was meant for, though it
        has closed: one `who` left unanswered, that closed less than `settle` seconds
        ago, or less than `settle` before the prompt shown since (itself on the screen
        for less than `settle`: not read yet). Of several, the last one that had been on
        the screen `settle` seconds; None when none did: the line is for the window of
        now. A window closed by a rewind is no longer among those shown (`_rewound`)."""
        newer = next((at for wid, at in shown if wid == open_id), None)
        late: list[tuple[int, float]] = []
        for wid, at in shown:
            how, ended = self._closed.get(wid, ("", None))
            # Closed "answered": everyone it asked answered it (a declaration too, which
            # no `Answered` event records), so no line is still meant for it.
            if wid == open_id or ended is None or how == "answered" or self._answered(wid, who):
                continue
            unread = newer is not None and now - newer < self.settle
            soon_after = newer is not None and 0 <= newer - ended < self.settle
            if now - ended < self.settle or (unread and soon_after):
                late.append((wid, at))
        if not late:
            return None
        read = [wid for wid, at in late if now - at >= self.settle]
        return read[-1] if read else late[-1][0]

    def _answered(self, window: int, who: str) -> bool:
        known = self._windows.get(window)
        return known is not None and who in known.answered

    def _open_id(self) -> int | None:
        """The open window's id, as the events held say (the view's `window`)."""
        window = self.client.view.state.get("window")
        return window.get("id") if isinstance(window, dict) else None

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
                self._forget_windows("the fight was sent again")
                self._turn_prompt(again=True)
            elif isinstance(message, Events):
                self._batch([(item.seq, item.event) for item in message.events])
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
            where = f" to {self.client.url}" if len(self.client.urls) > 1 else ""
            self.screen.line(f"reconnected{where}: resuming after event {self.client.seq}")
            return
        self._welcomed = True
        who: str = welcome.role
        if welcome.role == "player":
            plays = ", ".join(welcome.controls) or "nobody"
            who = f"player (seat {welcome.seat}, plays {plays})"
        self.screen.line(f"Room {welcome.room} ({welcome.ruleset}) as {who}; type 'help'")
        if welcome.role == "gm":
            self.screen.line(f"  prompts for: {self._plays_text()}")
        if not known(welcome.ruleset):
            self.screen.line(f"! {unknown_ruleset(welcome.ruleset)}; its events print as fields")

    def _batch(self, events: list[tuple[int, dict[str, Any]]]) -> None:
        """Print a batch of events, then prompt from the state after all of them: a turn
        that starts and is lost in the same batch (a fainted Tael combatant's) asks
        nothing, and a declaration asks for the turns still undeclared after it."""
        declared: list[str] = []
        rewound = False
        for seq, event in events:
            self._event(seq, event)
            kind, who = event.get("$type"), str(event.get("combatant", ""))
            if kind in ("DeclarationMade", "DeclarationWithdrawn") and self._mine(who):
                declared.append(who)
            rewound = rewound or kind == "Rewound"
        if rewound:  # where the restored fight is, as a snapshot's look says
            self.screen.line(f"  {self._where()}")
        for who in dict.fromkeys(declared):
            self._still_to_declare(who)
        self._turn_prompt(again=rewound)

    def _event(self, seq: int, event: dict[str, Any]) -> None:
        view = self.client.view
        mode = str(view.state.get("mode") or "")
        told = self._retold(event)
        text = narrate(
            told, view.name_of, self.ruleset, turns=view.turns_of, knows=self._knows, mode=mode
        )
        if event.get("$type") == "Rewound":
            text += self._rewound_pause(seq)
        first, *rest = text.split("\n")
        prefix = f"[{seq}] "
        indent = " " * len(prefix)
        self.screen.line("\n".join([prefix + first, *(indent + line for line in rest)]))
        kind = event.get("$type")
        self._adapt_closed = None
        if kind == "WindowOpened" and isinstance(event.get("window"), dict):
            self._window_shown(event["window"])
        elif kind == "WindowClosed" and isinstance(event.get("window"), int):
            reason = str(event.get("reason") or "closed")
            self._closed[event["window"]] = (reason, self.clock())
            self._adapt_closed = self._adapt_ended(event["window"], reason)
        elif kind in ("Answered", "Passed") and event.get("window") in self._windows:
            known = self._windows[event["window"]]
            who = str(event.get("combatant", ""))
            if who not in known.answered:
                self._windows[known.id] = replace(known, answered=(*known.answered, who))
            if known.kind == "adapt" and kind == "Passed":
                self._adapt_answers[known.id] = "passed"
            elif known.kind == "adapt":
                gave_up = event.get("action") is None
                self._adapt_answers[known.id] = "gave up" if gave_up else "adapted"
        elif kind == "Rewound":
            self._rewound()
        elif kind == "CombatEnded":
            self._forget_windows("the fight ended")
        elif kind == "RoundStarted" and self.client.role == "gm":
            self._one_side_left()

    def _adapt_ended(self, window: int, reason: str) -> str | None:
        """How an adapt window closed, when its action is lost for it (V23): the server
        says "no new action chosen in time" however it closed; "" when it expired."""
        known = self._windows.get(window)
        if known is None or known.kind != "adapt":
            return None
        answer = self._adapt_answers.get(window)
        if reason == "answered" and answer == "passed":
            return "no new action: the adapt window was passed"
        if reason == "answered" and answer == "gave up":
            return "no new action: given up in the adapt window"
        if reason == "closed by the GM":
            return "no new action: the GM closed the adapt window"
        return ""

    def _retold(self, event: dict[str, Any]) -> dict[str, Any]:
        """`event`, or a copy saying it better where the events before it tell more than
        it does: an action lost right after its adapt window was passed, not expired."""
        if (
            event.get("$type") == "ActionLost"
            and event.get("reason") == "no new action chosen in time"
            and self._adapt_closed
        ):
            return {**event, "reason": self._adapt_closed}
        return event

    def _window_shown(self, window: dict[str, Any]) -> None:
        """A `Window N opens` line: the window is shown to whoever it asks (the GM sees
        it ask any combatant, a player its own)."""
        asked = {
            str(a.get("combatant")): tuple(str(o) for o in a.get("options", []))
            for a in window.get("asked", [])
            if isinstance(a, dict)
        }
        wid = int(window.get("id", 0))
        self._windows[wid] = OpenWindow(
            wid,
            str(window.get("kind", "")),
            str(window.get("about", "")),
            asked,
            tuple(str(a) for a in window.get("answered", [])),
        )
        for who in asked:
            if self.client.role == "gm" or who in self.client.controls:
                self._note_shown(who, wid)

    def _note_shown(self, who: str, window: int) -> None:
        shown = self._shown.setdefault(who, [])
        if shown and shown[-1][0] == window:
            return
        shown.append((window, self.clock()))
        del shown[:-SHOWN_KEPT]

    def _forget_windows(self, why: str) -> None:
        """Every window shown so far has closed (the end, a new snapshot): an answer
        typed as it happened is refused, saying why."""
        now = self.clock()
        for shown in self._shown.values():
            for wid, _ in shown:
                self._closed.setdefault(wid, (why, now))

    def _rewound(self) -> None:
        """A rewind closes every window shown, and none of them takes a line typed from
        now on, however soon: the fight they asked about is gone (the restored window
        has a new id, and is shown anew)."""
        self._shown.clear()

    def _current(self) -> str | None:
        """Whose turn it is, as the view shows it (None outside a turn)."""
        state = self.client.view.state
        order, turn = state.get("turn_order"), state.get("turn")
        if state.get("phase") != "combat" or not isinstance(order, list):
            return None
        if state.get("turn_over"):  # its combatant left mid-turn; the next has not begun
            return None
        if not isinstance(turn, int) or not 0 <= turn < len(order):
            return None
        slot = order[turn]
        return str(slot.get("combatant")) if isinstance(slot, dict) else None

    def _turn_prompt(self, again: bool = False) -> None:
        """A turn-based fight (V25, TR1) waits for the one whose turn it is: when that
        is one of this screen's combatants, say so once per turn, from the view after
        the events held. Not while a window is open (the prompt comes once it closes),
        nor for a turn lost (a fainted Tael combatant's, T8) or one that can no longer
        act. `again`: joined, rejoined or rewound onto the turn (no `TurnStarted` comes
        to say so), so say it even if it was said."""
        state = self.client.view.state
        who = self._current()
        if who is None or not self._mine(who) or state.get("mode") != "turn_based":
            return
        if state.get("window") is not None or not self._can_take_turn(who):
            return
        key = (state.get("round"), state.get("turn"), who)
        if key == self._turn_prompted and not again:
            return
        self._turn_prompted = key
        self._your_turn(who)

    def _can_take_turn(self, who: str) -> bool:
        combatant = self._combatants().get(who)
        if not isinstance(combatant, dict):
            return True
        turn = combatant.get("turn")
        lost = isinstance(turn, dict) and turn.get("lost") is True
        return not (lost or combatant.get("dead") is True or combatant.get("fainted") is True)

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
        self._note_shown(who, window)
        self.screen.line(f">>> {self._label(who)}: {text}  [window {window}]{self._as(who)}")

    def _your_turn(self, who: str) -> None:
        self.screen.line(
            f">>> {self._label(who)}: your turn: act (type 'help'), then end{self._as(who)}"
        )

    def _label(self, who: str) -> str:
        """`Ayla (ayla)`, `Goblin (g1)`: the name and the id to type, once."""
        name = self.client.view.name_of(who)
        return name if name.endswith(f"({who})") else f"{name} ({who})"

    def _as(self, who: str) -> str:
        """What the GM types before an answer for its combatant (a player need not)."""
        return f"  (as {who} ...)" if self.client.role == "gm" and self.actor != who else ""

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
        self._windows[message.window] = OpenWindow(
            message.window,
            message.kind,
            message.about,
            {a.combatant: tuple(a.options) for a in message.asked},
            tuple(message.answered),
        )
        options = {a.combatant: tuple(a.options) for a in message.asked}
        for who in [c for c in waiting if self._mine(c)]:
            # Once per window and combatant: another one answering changes nothing here.
            prompt_key = (message.window, options.get(who, ()))
            if self._prompted.get(who) == prompt_key:
                continue
            self._prompted[who] = prompt_key
            self._prompt(message.window, who)

    def _prompt(self, window: int, who: str) -> None:
        """The prompt of window `window` for `who`: what it may answer."""
        known = self._windows.get(window)
        if known is None:
            return
        if known.kind == "planning":
            self._prompt_planning(window, who)
            return
        self._note_shown(who, window)
        options = " | ".join([*known.asked.get(who, ()), "pass"])
        self.screen.line(f">>> {self._label(who)}: {options}  [window {window}]{self._as(who)}")

    def _prompt_all(self) -> None:
        """The open window's prompts for this screen's combatants, and its turn's."""
        window = self.client.window
        if window is not None:
            self._window(window.message)
        self._turn_prompt()

    def _prompt_now(self, who: str) -> None:
        """After an answer to a window that closed: what `who` is asked now, if
        anything, shown as seen (an answer typed after it is for it)."""
        open_id = self._open_id()
        shown = self._shown.get(who, [])
        self._shown[who] = [(wid, at) for wid, at in shown if wid == open_id]  # refused once
        window = self._windows.get(open_id) if open_id is not None else None
        answered = set(window.answered) if window is not None else set()
        if self.client.window is not None and self.client.window.id == open_id:
            answered = set(self.client.window.answered)
        if window is not None and who in window.asked and who not in answered:
            self._shown[who] = [(window.id, self.clock() - self.settle)]
            self._declaring.pop(who, None)
            self._prompted[who] = (window.id, tuple(window.asked.get(who, ())))
            self._prompt(window.id, who)
            return
        if self._current() == who and self.client.view.state.get("mode") == "turn_based":
            self._turn_prompt(again=True)
            return
        self.screen.line(f"  (nothing asks {self.client.view.name_of(who)} now)")

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
        """Whether this screen is prompted for `combatant`: a player for its seat's, the
        GM for its own (`plays`; every combatant until it says which)."""
        if self.client.role == "player":
            return combatant in self.client.controls
        if self.client.role == "gm":
            return self.plays is None or combatant in self.plays
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

    def _where(self) -> str:
        """Where the fight is, in one line: the phase and round, whose turn it is, the
        window open and whom it waits for, the pause; what the view may have wrong."""
        state = self.client.view.state
        view = self.client.view
        head = f"Fight after event {view.seq}: {state.get('phase', '?')}"
        if state.get("round"):
            head += f", round {state['round']}"
        current = self._current()
        if current is not None:
            head += f", {view.name_of(current)}'s turn"
        window = state.get("window")
        if isinstance(window, dict):
            answered = set(window.get("answered", []))
            waiting = [view.name_of(c) for c in view.asked(window) if c not in answered]
            head += f", window {window.get('id')} ({window.get('kind')})"
            head += f" waiting for {', '.join(waiting)}" if waiting else ""
        by = state.get("paused_by")
        if by:
            head += f", paused by {self._pauser(str(by))}"
        unknown = view.doubts.events
        if unknown:
            head += f" (approximate: this program cannot follow {', '.join(sorted(unknown))})"
        return head

    def _pauser(self, by: str) -> str:
        return "the GM" if by == "gm" else self.client.view.name_of(by)

    def _rewound_pause(self, seq: int) -> str:
        """What a `Rewound` line adds: the fight it restored is paused (a fight taken back
        from its end comes back paused by the GM, R70; a pause goes on through a rewind),
        by whom, and who types `resume`."""
        by = self.client.view.rewound_paused.get(seq, "")
        if not by:
            return ""
        text = f": the fight is paused by {self._pauser(by)}"
        if self.client.role == "gm" or by in self.client.controls:
            return text + "; type 'resume' to go on"
        if by == "gm":
            return text + "; the GM's 'resume' lets it go on"
        return text + f"; {self._pauser(by)}'s or the GM's 'resume' lets it go on"

    def describe_fight(self) -> str:
        """The view in a few lines: the round, the pause, each combatant, as of the last
        event (the view folds every event in, `view.py`); what the view may have wrong
        is marked approximate."""
        state = self.client.view.state
        view = self.client.view
        lines = [self._where()]
        current = self._current()
        combatants = state.get("combatants")
        words = words_for(self.ruleset)
        if isinstance(combatants, dict):
            for cid, combatant in combatants.items():
                unsure = bool(view.doubts.about(cid) & HEALTH_FIELDS)
                line = _combatant_line(view.name_of(cid), cid, combatant, words, unsure)
                lines.append("  " + line)
                left = words.turn_left(combatant) if cid == current else ""
                if left and isinstance(combatant, dict) and "turn" not in view.doubts.about(cid):
                    lines.append(f"    {left}")
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
