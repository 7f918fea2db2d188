"""The terminal program's main loop: the fight printed as it arrives, typed lines sent.

The program knows no rule (protocol version 2): it prints what the server sends, the
table, the log and the choices (`protocol/table.py`), and sends what is typed. Three
tasks share one `Client`:

* following: every log line is printed as `[seq] text` (the seq is what `rewind`
  takes), its roll cards below it when `rolls` is on (the text already tells them);
  the choices the server offers this screen's combatants are printed as a numbered
  prompt once each (`table_screen.choice_lines`); a pause and a resume say what
  happened to the window's countdown;
* reading: each line is parsed (`commands.parse`, pure) and sent: a number picks one
  of the choices offered (`picking.py`), words name one (`matching.py`); a refusal
  prints its code and message, a line that is not a command prints why and sends
  nothing;
* ticking: the open window's countdown on the status line, once a second.

"This screen's combatants" are a player's seat's, and the GM's own: those no seat
plays, whose choices the server sends it. The GM may narrow them down (`combat gm
--plays g1,g2`, which `combat create` prints, or `plays g1 g2`). A GM's prompt says how
to answer: `>>> Goblin (g1): [window 7]  (as g1 ...)`, the choices below it.

An answer goes to the window whose prompt the person saw, not to whatever window is
open when Enter is pressed. A window asking one of this screen's combatants that closed
less than `settle` seconds before a line for it was typed (it expired while the answer
was typed, and the next attack or round opened another), or less than `settle` before
the next prompt appeared when that prompt is itself younger than `settle` (no one reads
a prompt and types an answer faster), is the one the line was meant for: the answer is
refused here with the reason, and the prompt of now is shown (`Console._late`,
`lines.answer_window`). Any other line goes to the window open now: a window that
closed longer ago, one the combatant answered, or one closed by a rewind never takes
it. Which windows open and close, and who answered, the console reads from the table
(its `window`) and from the `window` messages, never from events.

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
from clients.lines import DEFAULT_RULESET, GM_CONSOLE, ShowConsole
from clients.program import join_lines
from clients.rulesets import known, words_for
from clients.screen import Screen
from clients.table_screen import choice_lines, draw, header, log_lines, told_apart, window_line
from clients.words import unknown_ruleset
from protocol.messages import (
    Choices,
    Codes,
    Error,
    Log,
    Table,
    Update,
    Welcome,
    WentBack,
    Window,
)

Mode = Literal["play", "gm", "watch"]
Data = dict[str, Any]

SETTLE = 1.5
"""Seconds after a window closed (or after the next prompt appeared) in which a line is
taken to have been typed for it: no one reads a new prompt and answers it faster."""
GRACE = 1.0
"""Seconds a line that fits no choice held waits for the next `choices` to read it."""
LATE_CHOICES = ("nothing_to_choose", "not_offered", "no_such_choice", "too_many_arguments")
"""The refusals of a line that choices still on their way may take (`handle_line`): the
server sends a batch's choices after its `update` and its `ack`, so a line typed right
after a command may name an option, or a hole of one, that they bring."""
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
        rolls: bool = False,
        grace: float = GRACE,
    ) -> None:
        self.client = client
        self.grace = grace
        self._offered = asyncio.Event()  # set by each `choices` message
        self.screen = screen
        self.mode = mode
        self.tick = tick
        self.settle = settle
        self.clock = clock
        self.rolls = rolls
        """Print each log line's roll cards below it (R77: as this screen may see them)."""
        self.plays: set[str] | None = set(plays) if plays is not None else None
        """The GM's own combatants, prompted for; None: all the server offers it."""
        self.actor = ""
        self._prompted: dict[str, tuple[Any, ...]] = {}  # the last prompt shown each
        self._running: tuple[int, bool] | None = None
        self._shown: dict[str, list[tuple[int, float]]] = {}
        """Per combatant, the windows shown asking it: (id, when first shown), oldest first."""
        self._windows: dict[int, OpenWindow] = {}  # each window shown, as last known
        self._closed: dict[int, tuple[str, float | None]] = {}  # how each window closed, when
        self._table_window: int | None = None  # the window open in the table last seen
        self._round = 0
        self._tables = 0
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
        """Act on one typed line; False when it asks to quit. A line that names what is
        not offered yet is read again once the next choices come, within `grace`
        seconds: typed as a turn began, it may have come before the turn's choices."""
        context = self.context()
        try:
            try:
                parsed = parse(text, context)
            except CommandError as error:
                if error.code not in LATE_CHOICES or not await self._next_choices():
                    raise
                context = self.context()
                parsed = parse(text, context)
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
        elif isinstance(parsed, ShowConsole):
            self.screen.line(self._console())
        elif isinstance(parsed, ActAs):
            self.actor = parsed.combatant
            self.screen.line(f"acting as {self.client.table.name_of(parsed.combatant)}")
        elif isinstance(parsed, Plays):
            self._set_plays(parsed.combatants)
        elif isinstance(parsed, AddFromSheet):
            await self._add(parsed)
        elif isinstance(parsed, Invitations):
            await self._invitations(parsed)
        elif isinstance(parsed, Command):
            advice = words_for(self.ruleset).advice(parsed.command, context)
            window = parsed.command.get("window", self._open_id())  # before it may close
            if await self._send(parsed.command):
                self._note_answer(window, parsed.command.get("actor"))
                if advice:
                    self.screen.line(f"  note: {advice}")
        else:
            assert isinstance(parsed, Nothing)
        return True

    def _note_answer(self, wid: Any, actor: Any) -> None:
        """An answer accepted: its window (the open one, for a declaration, which names
        none) is answered by its actor, so a line typed for that actor just after the
        window closes is not taken for it (`_late`). The table only shows the window
        gone when the answer closed it."""
        known = self._windows.get(wid) if isinstance(wid, int) else None
        if known is None or not isinstance(actor, str) or actor not in known.asked:
            return
        if actor not in known.answered:
            self._windows[known.id] = replace(known, answered=(*known.answered, actor))

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
        self._prompted.clear()  # show the prompts of now for them
        self._prompt_all()

    def _plays_text(self) -> str:
        if self.plays is None:
            return "every combatant the server offers you (say yours: plays g1 g2)"
        names = [self._label(c) for c in sorted(self.plays)]
        return ", ".join(names) or "nobody"

    def _combatants(self) -> dict[str, Any]:
        combatants = self.client.table.view.get("combatants")
        return combatants if isinstance(combatants, dict) else {}

    async def _add(self, add: AddFromSheet) -> None:
        """The GM's `add`: the sheet file made into the room's combatant record, sent
        as `AddCombatant`; the GM plays it (no seat does)."""
        make = words_for(self.ruleset).new_combatant
        if make is None:
            self.screen.line(f"? a {self.ruleset} room adds no combatants (not_supported)")
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
        choices = {seat["combatant"]: seat for seat in self.client.table.choices}
        return Context(
            role,
            tuple(self.client.controls),
            self.actor,
            open_window,
            self.ruleset,
            self.client.table.view,
            self._seen(open_window),
            choices,
            tuple(who for who in choices if self._mine(who)),
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
        """The open window's id, as the table says (its `window`)."""
        window = self.client.table.view.get("window")
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
            elif isinstance(message, Log):
                self._log(message.model_dump()["lines"])
            elif isinstance(message, Table):
                self._table(whole=True)
            elif isinstance(message, Update):
                lines = message.model_dump()["log"]
                self._log(lines)
                self._table(rewound=any(line["kind"] == "Rewound" for line in lines))
            elif isinstance(message, Choices):
                self._choices()
            elif isinstance(message, Window):
                self._window(message)
            elif isinstance(message, WentBack):
                self._forget_windows("the fight went back")
                self._rewound()
                self.screen.line(f"! {message.message}")
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
            self.screen.line(f"! {unknown_ruleset(welcome.ruleset)}")

    def _log(self, lines: Iterable[Data]) -> None:
        """Each log line as `[seq] text`, a text of several lines indented under its
        first, its roll cards below when `rolls` is on."""
        names = self.client.table.name_of
        for line in lines:
            text = line["text"].splitlines() or [""]
            if self.rolls:
                text = log_lines(line, names) or [""]
            prefix = f"[{line['seq']}] "
            indent = " " * len(prefix)
            self.screen.line("\n".join([prefix + text[0], *(indent + rest for rest in text[1:])]))

    def _table(self, whole: bool = False, rewound: bool = False) -> None:
        """The table changed: a whole one (joining, resuming) is shown as `look` shows
        it; a window that opened or closed is noted; a rewind closes every window shown
        and shows where the restored fight is."""
        view = self.client.table.view
        if rewound:
            self._rewound()
        if whole:
            self._tables += 1
            if self._tables > 1:
                self._forget_windows("the fight was sent again")
            self.screen.line(self.describe_fight())
        elif rewound:
            self.screen.line("  " + self._where_now())
        window = view.get("window")
        opened = window.get("id") if isinstance(window, dict) else None
        if self._table_window is not None and opened != self._table_window:
            self._window_closed(self._table_window)
        if isinstance(window, dict):
            self._window_shown(window)
        self._table_window = opened
        if view.get("phase") == "ended":
            self._forget_windows("the fight ended")
        if view.get("round", 0) > self._round and not whole and self.client.role == "gm":
            self._one_side_left()
        self._round = int(view.get("round", 0))

    def _where_now(self) -> str:
        """After a rewind: where the restored fight is, and who lets it go on when it
        comes back paused (an ended fight comes back paused by the GM, R70)."""
        table = self.client.table
        names = told_apart(table.view, table.name_of)
        text = f"Fight after event {table.seq}: {header(table.view, names)}"
        if table.view.get("paused_by") == "gm":
            resume = "type 'resume' to" if self.client.role == "gm" else "the GM's 'resume' lets it"
            text += f"; {resume} go on"
        window = table.view.get("window")
        return text + (f"\n  {window_line(window, names)}" if window else "")

    def _window_closed(self, wid: int) -> None:
        """Window `wid` is no longer the table's: "answered" when all it asked had
        answered it (no line is still meant for it), else "while you typed" (expired,
        closed by the GM or by an attack it answered: the table does not say which)."""
        known = self._windows.get(wid)
        everyone = known is not None and all(who in known.answered for who in known.asked)
        self._closed.setdefault(wid, ("answered" if everyone else "while you typed", self.clock()))

    def _window_shown(self, window: Data) -> None:
        """A window of the table: the GM sees it ask any combatant, a player its own.
        What each may answer comes with the `window` messages."""
        wid = int(window["id"])
        before = self._windows.get(wid)
        clock = self.client.window
        options = clock.asked if clock is not None and clock.id == wid else {}
        asked = {
            str(who): tuple(options.get(who, before.asked.get(who, ()) if before else ()))
            for who in window.get("asked", [])
        }
        answered = {*window.get("answered", []), *(before.answered if before else ())}
        self._windows[wid] = OpenWindow(
            wid, str(window.get("kind", "")), str(window.get("about", "")), asked, tuple(answered)
        )
        if before is None:
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
        """Every window shown so far has closed (the end, a whole table sent again): an
        answer typed as it happened is refused, saying why."""
        now = self.clock()
        for shown in self._shown.values():
            for wid, _ in shown:
                self._closed.setdefault(wid, (why, now))

    def _rewound(self) -> None:
        """A rewind closes every window shown, and none of them takes a line typed from
        now on, however soon: the fight they asked about is gone (the restored window
        has a new id, and is shown anew)."""
        self._shown.clear()
        self._prompted.clear()

    def _one_side_left(self) -> None:
        """A new round with at most one side still in the fight: remind the GM that the
        fight ends only when they say so (Verse has no end of combat, R70; Tael's is the
        GM's too, T10), or the rounds go on with nobody to fight."""
        cards = self._combatants().values()
        sides = sorted({str(card.get("side")) for card in cards if card.get("active", True)})
        if len(sides) > 1 or not cards:
            return
        left = f"only {sides[0]} can still fight" if sides else "nobody can still fight"
        self.screen.line(f"  note: {left}: 'end combat' ends the fight")

    async def _next_choices(self) -> bool:
        """Whether a `choices` message came within `grace` seconds."""
        self._offered.clear()
        try:
            await asyncio.wait_for(self._offered.wait(), self.grace)
        except TimeoutError:
            return False
        return True

    def _choices(self) -> None:
        """The choices of this screen's combatants, each prompted once while it stands:
        a combatant offered nothing now is prompted again when it is next offered."""
        self._offered.set()
        offered = {seat["combatant"]: seat for seat in self.client.table.choices}
        for who in [w for w in self._prompted if w not in offered]:
            del self._prompted[who]
        for who, seat in offered.items():
            if who == GM_CONSOLE or not self._mine(who):  # the console: on `console` only
                continue
            key = self._prompt_key(seat)
            if self._prompted.get(who) == key:
                continue
            self._prompted[who] = key
            self._prompt(seat)

    def _prompt_key(self, seat: Data) -> tuple[Any, ...]:
        """What makes a prompt new: its window, the round and turn, the choices' keys and
        what they compose (a second turn's declaration is another, V16)."""
        view = self.client.table.view
        keys = tuple(option["key"] for option in seat.get("options", []))
        compose = seat.get("compose") or {}
        composed = (compose.get("label"), repr(compose.get("command")))
        return (seat.get("window"), view.get("round"), view.get("turn"), keys, composed)

    def _console(self) -> str:
        """The GM's console as numbered choices (`console`), picked with `as gm <n>`."""
        seat = self.client.table.choices_for(GM_CONSOLE)
        if seat is None:
            return "the console offers nothing now"
        body = choice_lines(seat, self.client.table.name_of)[1:]
        return "\n".join([">>> the GM's console (as gm <number>):", *body])

    def _prompt(self, seat: Data) -> None:
        """`>>> Goblin (g1): [window 2]  (as g1 ...)` and its numbered choices below."""
        who, window = seat["combatant"], seat.get("window")
        if window is not None:
            self._note_shown(who, window)
            where = f" [window {window}]"
        elif self.client.table.view.get("turn") == who:
            where = " your turn: choose, or type a command ('help'), then end"
        else:
            where = ""
        body = choice_lines(seat, self.client.table.name_of)[1:]
        self.screen.line("\n".join([f">>> {self._label(who)}:{where}{self._as(who)}", *body]))

    def _prompt_all(self) -> None:
        """The prompts of now for this screen's combatants."""
        self._choices()

    def _prompt_now(self, who: str) -> None:
        """After an answer to a window that closed: what `who` is offered now, if
        anything, shown as seen (an answer typed after it is for it)."""
        open_id = self._open_id()
        shown = self._shown.get(who, [])
        self._shown[who] = [(wid, at) for wid, at in shown if wid == open_id]  # refused once
        seat = self.client.table.choices_for(who)
        if seat is None:
            self.screen.line(f"  (nothing asks {self.client.table.name_of(who)} now)")
            return
        if seat.get("window") is not None:
            self._shown[who] = [(seat["window"], self.clock() - self.settle)]
        self._prompted[who] = self._prompt_key(seat)
        self._prompt(seat)

    def _label(self, who: str) -> str:
        """`Ayla (ayla)`, `Goblin (g1)`: the name and the id to type, once."""
        name = self.client.table.name_of(who)
        return name if name.endswith(f"({who})") else f"{name} ({who})"

    def _as(self, who: str) -> str:
        """What the GM types before an answer for its combatant (a player need not)."""
        return f"  (as {who} ...)" if self.client.role == "gm" and self.actor != who else ""

    def _window(self, message: Window) -> None:
        """A window's countdown: its options noted for the typed words, a pause and a
        resume said."""
        key = (message.window, message.running)
        if self._running is not None and self._running[0] == message.window:
            if self._running[1] and not message.running and message.remaining_ms > 0:
                left = message.remaining_ms / 1000
                self.screen.line(f"  (window {message.window} frozen with {left:.1f}s left)")
            elif not self._running[1] and message.running:
                left = message.remaining_ms / 1000
                self.screen.line(f"  (window {message.window} runs again: {left:.1f}s left)")
        self._running = key
        before = self._windows.get(message.window)
        self._windows[message.window] = OpenWindow(
            message.window,
            message.kind,
            message.about,
            {a.combatant: tuple(a.options) for a in message.asked},
            tuple({*message.answered, *(before.answered if before else ())}),
        )

    def _mine(self, combatant: str) -> bool:
        """Whether this screen is prompted for `combatant`: a player for its seat's, the
        GM for its own (`plays`; all the server offers it until it says which)."""
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

    def describe_fight(self) -> str:
        """The table as the server sent it (`table_screen.draw`), after which event;
        this screen's combatants marked."""
        table = self.client.table
        mine = [cid for cid in self._combatants() if self._mine(cid)]
        head = f"Fight after event {table.seq}:" if table.seq is not None else "No fight yet:"
        return "\n".join([head, *("  " + line for line in draw(table, mine))])
