"""The terminal program on an interactive terminal: an input line the fight never tears.

On a terminal the plain `Screen` redraws the countdown in place (`\\r`) and prints each
line of the fight as it comes, right over whatever the person was typing: a half-typed
answer is scrambled on the screen while its window ticks away, just when it matters
most. Here prompt_toolkit owns the bottom of the terminal instead:

* the input line, read with `PromptSession.prompt_async` (so the fight goes on while
  the person types), with history (Up) and completion (Tab);
* under it a toolbar with the open window's countdown (`status`), redrawn every
  `REFRESH` seconds and whenever the console says something new;
* above them the fight: a line the console prints erases the prompt and the toolbar,
  is written, and both are drawn again with what was typed intact (`run_in_terminal`).
  The server's text goes out with its escape characters made visible (`Output.write`),
  so a name cannot move the cursor.

Tab completes from what the console holds (`completions`): the numbers of the choices
offered now (their labels beside them), the numbers of a hole's options after a
choice's number, combatant ids (typed as an id or as the start of a name) and the
command words of the room's rules, as `help` lists them.

`cli.py` uses this only when stdin and stdout are both terminals (`interactive`): a
pipe, a file or a test keeps the plain `Screen` and the lines read from stdin, as a
script expects them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import replace
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from clients.commands import CommandError, help_text
from clients.console import Console
from clients.lines import Data
from clients.picking import is_pick, picker
from clients.screen import Screen

REFRESH = 0.5
"""Seconds between two redraws of the toolbar: the countdown shows whole seconds, so
it is never more than half a second behind."""

PROMPT = "> "
QUIT = "quit"


def interactive(stdin: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    """Whether a person types at a terminal that also shows the fight (both stdin and
    stdout are terminals): only then is the input line worth its escape codes."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    return bool(stdin and stdin.isatty() and stdout and stdout.isatty())


class Terminal:
    """The input line, its toolbar and completion, for one console: `screen` is what the
    console prints to, `lines()` what it reads; `attach` gives it the console whose
    table the completion reads (the console is made with the screen, so after it).

    `input` and `output` default to the terminal's (the current prompt_toolkit
    `AppSession`); tests pass a pipe and an output of their own."""

    def __init__(
        self,
        *,
        input: Input | None = None,
        output: Output | None = None,
        refresh: float = REFRESH,
    ) -> None:
        self.console: Console | None = None
        self.session: PromptSession[str] = PromptSession(
            self._prompt,
            input=input,
            output=output,
            completer=FightCompleter(self),
            complete_while_typing=False,  # Tab asks; a menu popping up at each key distracts
            bottom_toolbar=self._toolbar,
            refresh_interval=refresh,
            reserve_space_for_menu=4,
        )
        self.screen = ToolbarScreen(self.session)

    def attach(self, console: Console) -> None:
        self.console = console

    async def lines(self) -> AsyncIterator[str]:
        """The lines typed, one per Enter, until Ctrl-D (the end of input). Ctrl-C
        leaves, as it does on the plain path: here it is a key, not a signal, so it is
        read as `quit`, which ends the program in every mode (a spectator's too) and
        lets the console close the connection."""
        while True:
            try:
                text = await self.session.prompt_async()
            except EOFError:
                return
            except KeyboardInterrupt:
                yield QUIT
                return
            yield text

    def _prompt(self) -> str:
        """`g1> ` once the GM said `as g1`: whom a bare answer is for."""
        actor = self.console.actor if self.console is not None else ""
        return f"{actor}{PROMPT}" if actor else PROMPT

    def _toolbar(self) -> str:
        return self.screen.status_text or ""


class ToolbarScreen(Screen):
    """A `Screen` for the console whose lines go above the input line and whose status
    line is the toolbar under it (see the module's docstring)."""

    def __init__(self, session: PromptSession[str]) -> None:
        super().__init__(sys.stdout, live=True)
        self.session = session
        self._pending: list[str] = []

    @property
    def status_text(self) -> str | None:
        return self._status

    def line(self, text: str) -> None:
        """Print `text` (one or several lines) above the input line. Lines that arrive
        while earlier ones wait for the prompt to be erased join them, so they come out
        in order and a burst (a `look`) costs one redraw."""
        self._pending.append(text + "\n")
        if len(self._pending) > 1:
            return  # a write is on its way and takes this line too
        if self.session.app.is_running:
            run_in_terminal(self._write)
        else:
            self._write()

    def status(self, text: str | None) -> None:
        """Show `text` in the toolbar (None: empty it)."""
        if text == self._status:
            return
        self._status = text
        if self.session.app.is_running:
            self.session.app.invalidate()

    def _write(self) -> None:
        output = self.session.output
        text, self._pending = "".join(self._pending), []
        output.enable_autowrap()  # the prompt's drawing turns it off; long lines wrap
        output.write(text)  # escape characters shown, not obeyed
        output.flush()


class FightCompleter(Completer):
    """Tab: `completions` of the terminal's console (nothing before it is attached)."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        console = self.terminal.console
        if console is None:
            return []
        return list(completions(console, document.text_before_cursor))


def completions(console: Console, before: str) -> Iterator[Completion]:
    """What may finish the word being typed at the end of `before`, from what `console`
    holds now:

    * the line's first word: the numbers of the choices offered now (the label shown
      beside each) and the command words (`command_words`); on an empty line the
      numbers alone, when there are any: what the prompt above asks;
    * after `as`: the ids of the combatants this screen may speak for;
    * after a choice's number (`2 `, `1 3, 2 `): the numbers of that choice's next
      hole's options; after a comma, the choices' numbers again;
    * any other word: combatant ids, matched by id or by the start of the name.

    A word that is neither offers nothing: completion only spares typing, `parse`
    still reads the line."""
    word = re.split(r"[\s,]", before)[-1]
    head = before[: len(before) - len(word)]
    words = head.split()
    actor = ""
    if words[:1] == ["as"]:
        if len(words) == 1:
            yield from _ids(word, speakable(console))
            return
        actor, head = words[1], head.split(None, 2)[2] if len(words) > 2 else ""
        words = words[2:]
    group = head.split(",")[-1].split()
    if not words:
        numbers = list(_choices(console, actor, word))
        yield from numbers
        if word or not numbers:  # Tab on an empty line: the choices first, if any
            yield from _words(console, word)
    elif is_pick(words[0]):
        if not group:
            yield from _choices(console, actor, word)
        elif group[0].isdigit():
            yield from _hole(console, actor, int(group[0]), len(group) - 1, word)
    else:
        yield from _ids(word, combatants(console))


def combatants(console: Console) -> dict[str, str]:
    """Every combatant of the held table, id to name."""
    held = console.client.table.view.get("combatants")
    cards: dict[str, Data] = held if isinstance(held, dict) else {}
    return {cid: str(card.get("name", cid)) for cid, card in cards.items()}


def speakable(console: Console) -> dict[str, str]:
    """The combatants `as` may name: a player's own (the seat's), any for the GM."""
    everyone = combatants(console)
    if console.client.role == "player":
        return {cid: everyone.get(cid, cid) for cid in console.client.controls}
    return everyone


def seat_of(console: Console, actor: str = "") -> Data | None:
    """The choices a typed number picks from, as `picking.picker` finds them (the one
    named with `as`, else the only one of this screen's combatants offered any)."""
    context = console.context()
    if actor:
        context = replace(context, actor=actor)
    try:
        return context.choices[picker(context)]
    except (CommandError, KeyError):
        return None


def command_words(console: Console) -> list[str]:
    """The command words for this screen now, as `help` lists them (the words of the
    choices offered, the room's, the rule system's): the first word of each
    `|`-separated entry that reads as a usage (`close [window]`, `attack <target>`)."""
    context = console.context()
    found = words_of(help_text(context.role, console.ruleset, context))
    return [*found, *(word for word in ALWAYS if word not in found)]


ALWAYS = ("look", "help", "quit")
"""The words every screen takes, a spectator's too (`commands.parse`)."""


_ASIDE = re.compile(r"\([^()]*\)|(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"")
_LEAD = re.compile(r"^[^:|<\[]*:\s*")  # `Any time:`, `other actions:`
_ENTRIES = re.compile(r"\s+\|\s+|[,;](?:\s+|$)|\s{3,}")  # `start | pause`, the help's columns
_USAGE = re.compile(r"^([a-z][a-z-]*)((?:\s+(?:<[^>]*>|\[[^\]]*\]|[a-z][a-z,|-]*|\.\.\.))*)$")
_PROSE = frozenset({"after", "and", "in", "later", "or", "taken", "then"})
"""Words that start a piece of a help sentence, not a command (`..., or pass`): a
word missed here is only a needless suggestion."""
_BARE = re.compile(r"(?<![<\[\w,|-])[a-z][a-z,|-]*")


def words_of(help: str) -> list[str]:
    """The command words a help text lists (see `command_words`), each once, in order.
    Asides (in parentheses, quoted examples) and what leads to a colon are left out; a
    line is split into entries at ` | `, at commas, semicolons and at runs of spaces (the help's
    columns). An entry is a usage when a word is followed only by placeholders
    (`<target>`, `[weapon]`, `...`) and at most one more plain word (`end combat`,
    `pick up <weapon>`): a sentence of the help is not."""
    found: dict[str, None] = {}
    for line in _ASIDE.sub(" ", help).splitlines():
        for entry in _ENTRIES.split(_LEAD.sub("", line.strip())):
            usage = _USAGE.match(entry.strip())
            if usage is None:
                continue
            verb, rest = usage.groups()
            bare = _BARE.findall(re.sub(r"<[^>]*>|\[[^\]]*\]", " ", rest))
            if len(bare) <= 1 and verb not in _PROSE:
                found.setdefault(verb)
    return list(found)


def _ids(word: str, known: dict[str, str]) -> Iterator[Completion]:
    typed = word.lower()
    for cid, name in known.items():
        if cid.lower().startswith(typed) or name.lower().startswith(typed):
            yield Completion(cid, -len(word), display=cid, display_meta=name)


def _words(console: Console, word: str) -> Iterator[Completion]:
    for verb in command_words(console):
        if verb.startswith(word.lower()):
            yield Completion(verb, -len(word))


def _numbered(labels: Iterable[str], word: str) -> Iterator[Completion]:
    """`1`, `2`, ... with their labels: by number, or by the start of a label."""
    typed = word.lower()
    for n, label in enumerate(labels, 1):
        if str(n).startswith(typed) or label.lower().startswith(typed):
            yield Completion(str(n), -len(word), display=str(n), display_meta=label)


def _choices(console: Console, actor: str, word: str) -> Iterator[Completion]:
    seat = seat_of(console, actor)
    if seat is not None and (not word or word.isdigit()):  # a word starts a command
        yield from _numbered((option["label"] for option in seat.get("options", [])), word)


def _hole(console: Console, actor: str, choice: int, hole: int, word: str) -> Iterator[Completion]:
    seat = seat_of(console, actor)
    options = seat.get("options", []) if seat is not None else []
    if not 1 <= choice <= len(options):
        return
    holes = options[choice - 1].get("holes", [])
    if hole < len(holes):
        yield from _numbered((found["label"] for found in holes[hole]["options"]), word)
