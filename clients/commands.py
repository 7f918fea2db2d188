"""What a person types, as the engine command to send: a pure function, no network.

`parse(text, context)` reads one line and returns what to do: a `Command` (a command
map for `Client.send`, docs/protocol.md "Engine commands"), `ActAs` (pick who acts),
`ShowHelp`, `Quit` or `Nothing`; a line that starts with a number picks one of the
choices the server offered (`picking.py`: `2`, `1 3`); a line it cannot read raises
`CommandError` with a stable code and a message saying what would do. It never sends
anything itself, so a bad line changes nothing.

Every room reads the same words, whatever its rules:

* the screen's own: help, quit, look, console, plays, invites, revoke;
* `raw {...}` (any command map, as it is) and `as <combatant> [line]`;
* the room's commands, which every ruleset's engine takes: `start`, `pause`,
  `resume`, `refuse`, `close [window]`, `end combat [agreed]`, `rewind <seq>`;
* the rest is read against the choices the server offers now (`matching.py`): what
  the one who acts may do (`attack g1 spear`, `dodge`, `pass`, `end`), a declaration
  of options that are parts (`declare [turn N] <action> [then <action> ...]`, or
  `declare pass`: that turn does nothing), and the GM's overrides on its console
  (`health g1 5`, through the room's `gm_words`).

The room's rule system adds only words (`words.Words`, found in `rulesets.py`, never
by comparing its name here): aliases for an option's key, the few GM commands the
server offers no option for, and `add`, whose sheet file the screen reads.
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Mapping
from dataclasses import replace

from jsonpointer import JsonPointer  # type: ignore[import-untyped,unused-ignore]

from clients.helping import ALIASES, help_text
from clients.lines import (
    GM_CONSOLE,
    ActAs,
    AddFromSheet,
    Command,
    CommandError,
    Context,
    Data,
    Invitations,
    Look,
    Nothing,
    OpenWindow,
    Parsed,
    Plays,
    Quit,
    Role,
    ShowConsole,
    ShowHelp,
    acting,
    cell,
    refuse_closed,
    whole_number,
)
from clients.matching import Found, Miss, read, said_as, tokens, words_of
from clients.picking import filled, is_pick, pick
from clients.rulesets import words_for
from clients.words import Words

__all__ = [
    "ActAs",
    "AddFromSheet",
    "Command",
    "CommandError",
    "Context",
    "Invitations",
    "Look",
    "Nothing",
    "OpenWindow",
    "Parsed",
    "Plays",
    "Quit",
    "Role",
    "ShowHelp",
    "help_text",
    "parse",
]

ROOM = ("start", "pause", "resume", "refuse", "close", "rewind", "end combat")
"""The room's commands, the GM's (a player's pause and resume are its combatant's)."""
INVITE_VERBS = ("plays", "invites", "revoke")
SEPARATORS = ("then", ";")


def parse(text: str, context: Context) -> Parsed:
    """The meaning of one typed line (see the module's docstring)."""
    try:
        words = shlex.split(text, comments=False)
    except ValueError as error:
        raise CommandError("bad_quotes", f"cannot read the line: {error}") from None
    if not words:
        return Nothing()
    verb = words[0].lower()
    plays = context.role in ("gm", "player")
    if verb in ("help", "?") and (len(words) == 1 or not plays):
        return ShowHelp(help_text(context.role, context.ruleset, context))
    if verb in ("quit", "exit"):
        return Quit()
    if verb == "look":
        return Look()
    if verb == "console" and context.role == "gm":
        return ShowConsole()
    if context.role == "spectator":
        raise CommandError(
            "read_only", "spectators watch: only 'look', 'help' and 'quit' work here"
        )
    if context.role == "host":
        raise CommandError("read_only", "a host token only creates encounters")
    if verb == "raw":
        return Command(_raw(text.strip()[3:].strip()))
    if verb == "as":
        return _as(text, words, context)
    if is_pick(verb):
        return Command(pick(text.strip(), context))
    if verb in INVITE_VERBS:
        return _screen(verb, words[1:], context)
    if verb == "help":  # `help <ally>`: an option called help (Tael's Help action, T9)
        try:
            return _line(text, context)
        except CommandError:
            return ShowHelp(help_text(context.role, context.ruleset, context))
    return _line(text, context)


def _as(text: str, words: list[str], context: Context) -> Parsed:
    if len(words) < 2:
        raise CommandError("missing_argument", "as <combatant> [command]")
    who = words[1]
    if context.role == "player" and who not in context.controls:
        mine = ", ".join(context.controls) or "none"
        raise CommandError("not_yours", f"{who} is not yours to play (yours: {mine})")
    if len(words) == 2:
        return ActAs(who)
    rest = text.strip().split(None, 2)[2]  # as typed: `raw {...}` keeps its JSON
    return parse(rest, replace(context, actor=who))


def _screen(verb: str, args: list[str], context: Context) -> Parsed:
    if context.role != "gm":
        raise CommandError("gm_only", gm_only(verb))
    if verb == "plays":
        return Plays(tuple(args))
    return _invitations(verb, args)


def _line(text: str, context: Context) -> Parsed:
    """A line of words: the room's commands, the rule system's, or an option offered."""
    said = tokens(text)
    words = shlex.split(text)
    rules = words_for(context.ruleset)
    verb = said[0]
    other = _leading(said, rules.instead)
    if other is not None and len(other) >= len(_leading(said, rules.gm_words) or ""):
        raise CommandError(f"not_in_{rules.name}", rules.instead[other])
    gm_word = _leading(said, rules.gm_words) is not None or verb in rules.commands
    if " ".join(said[:2]) in ROOM or verb in ROOM or verb == "add" or gm_word:
        if context.role != "gm" and verb not in ("pause", "resume"):
            spoken = _leading(said, rules.gm_words)
            what = rules.gm_words[spoken] if spoken else ""
            raise CommandError(
                "gm_only", gm_only(" ".join(said[:2]) if verb == "end" else verb, what)
            )
        room = _room(said, words, context)
        if room is not None:
            return room
        if verb in rules.commands:
            return Command(rules.commands[verb](words[1:], context))
        if verb == "add":
            return _add(words[1:], rules)
    if said == ["end"]:
        # Every ruleset's turn ends so (`EndTurn`), offered or not: the GM, offered no
        # choices for a player's combatant, may still end its turn.
        return Command({"type": "EndTurn", "actor": acting(context)})
    if context.role == "gm" and not context.actor:
        return Command(_console(said, context, rules))
    try:
        return Command(_play(said, context, rules))
    except CommandError as error:  # say the word as typed (`holder-dodge`, not `holder`)
        typed = words[0].lower()
        if error.code != "not_offered" or typed == verb:
            raise
        raise CommandError(error.code, error.message.replace(repr(verb), repr(typed), 1)) from None


def _room(said: list[str], words: list[str], context: Context) -> Parsed | None:
    """`start`, `pause`, `resume`, `refuse`, `close [window]`, `end combat [agreed]`,
    `rewind <seq>`: commands of the room, not of a rule system."""
    verb, args = said[0], words[1:]
    if verb in ("start", "refuse") and not args:
        return Command({"type": "StartCombat" if verb == "start" else "RefusePause"})
    if verb in ("pause", "resume") and not args:
        by = "gm" if context.role == "gm" else acting(context)
        return Command({"type": verb.capitalize(), "by": by})
    if verb == "close" and len(args) <= 1:
        if not args and context.window is None:
            raise CommandError("no_window", "no window is open")
        window = whole_number(args[0], "window") if args else context.window.id  # type: ignore[union-attr]
        return Command({"type": "CloseWindow", "window": window})
    if verb == "rewind":
        if len(args) != 1:
            raise CommandError("missing_argument", "rewind <seq>: the event to go back to")
        return Command({"type": "Rewind", "to_version": whole_number(args[0], "seq")})
    if said[:2] == ["end", "combat"]:
        if said[2:] not in ([], ["agreed"]):
            raise CommandError("bad_argument", "end combat [agreed]")
        return Command({"type": "EndCombat", "agreed": True} if said[2:] else {"type": "EndCombat"})
    return None


ADD_USAGE = "add <sheet file> <id> <side> <x,y> [facing 0-7]  (add goblin.toml g3 goblins 2,1)"


def _add(args: list[str], rules: Words) -> AddFromSheet:
    """`add goblin.toml g3 goblins 2,1 [facing]`: a combatant made from a sheet file,
    as `combat create` makes one from an encounter's entry; the screen reads the file."""
    if rules.new_combatant is None:
        raise CommandError("not_supported", f"a {rules.name} room adds no combatants")
    if not 4 <= len(args) <= 5:
        raise CommandError("missing_argument" if len(args) < 4 else "too_many_arguments", ADD_USAGE)
    path, who, side, at = args[:4]
    facing = whole_number(args[4], "facing") if len(args) == 5 else 0
    return AddFromSheet(path, who, side, cell(at), facing)


# --- reading a line against the choices -------------------------------------------------


def _console(said: list[str], context: Context, rules: Words) -> Data:
    """The GM's line with no `as`: an option of its console (`health g1 5`, through the
    rule system's `gm_words`, or the option's own words: `set health g1 5`)."""
    spoken = _leading(said, rules.gm_words) is not None
    seat = context.choices.get(GM_CONSOLE)
    if seat is not None:
        try:
            found = _read(said, seat.get("options", []), context, rules.gm_words, "the console")
            return filled(found.option["command"], found.option, list(found.values))
        except CommandError as error:
            if error.code != "not_offered" or spoken:
                raise
    if spoken:
        raise CommandError("not_offered", f"the console offers nothing now: no {said[0]!r}")
    waiting = [who for who in context.choices if who != GM_CONSOLE]
    names = "|".join(waiting) or "combatant"
    raise CommandError("who_acts", f"say who acts: as <{names}> {' '.join(said)}")


def _play(said: list[str], context: Context, rules: Words) -> Data:
    """A line for one of the screen's combatants: the one named, a player's only one,
    or the only one of a player's whose choices the line fits."""
    if context.actor:
        return _for(context.actor, said, context, rules)
    if context.role == "player" and len(context.controls) == 1:
        return _for(context.controls[0], said, context, rules)
    if not context.controls:
        raise CommandError("no_combatant", "this seat controls no combatant")
    read: dict[str, Data] = {}
    for who in context.controls:
        try:
            read[who] = _for(who, said, context, rules)
        except CommandError:
            continue
    if len(read) == 1:
        return next(iter(read.values()))
    raise CommandError("who_acts", f"say who acts: as <{'|'.join(context.controls)}> ...")


def _for(who: str, said: list[str], context: Context, rules: Words) -> Data:
    declaring = said[0] == "declare"
    seen = context.seen.get(who)
    if seen is not None and (not declaring or seen.kind == "planning"):
        refuse_closed(seen, who, "planning " if declaring else "")
    seat = context.choices.get(who)
    if seat is None:
        raise CommandError("nothing_to_choose", f"nothing is offered to {who} now")
    aliases = {**ALIASES, **rules.aliases}
    options = seat.get("options", [])
    parts = _split(said[1:] if declaring else said)
    if declaring:
        return _declare(who, seat, parts, context, aliases)
    try:
        if len(parts) == 1:
            try:
                commands = [o for o in options if o.get("command") is not None]
                found = _read(said, commands, context, aliases, who)
                return filled(found.option["command"], found.option, list(found.values))
            except CommandError as error:
                if error.code != "not_offered" or not seat.get("compose"):
                    raise
        return _declare(who, seat, parts, context, aliases)
    except CommandError as error:
        if error.code != "not_offered":
            raise
        offered = _offered(options, aliases)
        raise CommandError("not_offered", f"no {said[0]!r} now: {who} may {offered}") from None


def _declare(
    who: str, seat: Data, parts: list[list[str]], context: Context, aliases: dict[str, str]
) -> Data:
    """The seat's `compose` command (a Live declaration, V20) with a part for each
    group of words; `turn N` first picks the Nth turn, `pass` alone declares nothing."""
    compose = seat.get("compose")
    if not compose:
        offered = _offered(seat.get("options", []), aliases)
        raise CommandError("not_offered", f"nothing to declare now: {who} may {offered}")
    command: Data = copy.deepcopy(compose["command"])
    first = parts[0] if parts else []
    if first[:1] == ["turn"]:
        if len(first) < 2 or "turn" not in command:
            raise CommandError("missing_argument", "declare turn <N> <action>")
        turn = whole_number(first[1], "turn") - 1
        if turn < 0:
            raise CommandError("bad_number", "turns count from 1")
        command["turn"] = turn
        parts[0] = first[2:]
    if parts == [["pass"]]:
        return command  # that turn does nothing
    if not any(parts) or not all(parts):
        raise CommandError("missing_argument", "declare <action> [then <action> ...]")
    if len(parts) > int(compose.get("most", 1)):
        raise CommandError("too_many_arguments", f"{compose['label']}: at most {compose['most']}")
    into = JsonPointer(compose["into"]).resolve(command)
    options = [o for o in seat.get("options", []) if o.get("part") is not None]
    for part in parts:
        found = _read(part, options, context, aliases, who)
        into.append(filled(found.option["part"], found.option, list(found.values)))
    return command


def _read(
    said: list[str], options: list[Data], context: Context, aliases: Mapping[str, str], who: str
) -> Found:
    """The option `said` fits best, as typed or through an alias; else the reason."""
    names = {
        cid: str(card.get("name", cid))
        for cid, card in (context.fight.get("combatants") or {}).items()
        if isinstance(card, dict)
    }
    best: Found | None = None
    miss: Miss | None = None
    for reading in _readings(said, aliases):
        result = read(reading, options, names)
        if isinstance(result, Found) and (best is None or result.cost < best.cost):
            best = result
        elif isinstance(result, Miss) and (miss is None or result.reach > miss.reach):
            miss = result
    if best is not None:
        return best
    if miss is not None:
        raise CommandError(miss.code, miss.message)
    offered = _offered(options, aliases)
    raise CommandError("not_offered", f"no {said[0]!r} now: {who} may {offered}")


def _readings(said: list[str], aliases: Mapping[str, str]) -> list[list[str]]:
    readings = [said]
    for phrase, meant in aliases.items():
        typed = words_of(phrase)
        if said[: len(typed)] == typed:
            readings.append([*words_of(meant), *said[len(typed) :]])
    return readings


def _leading(said: list[str], aliases: Mapping[str, str]) -> str | None:
    """The longest alias phrase `said` starts with, if any."""
    found = [phrase for phrase in aliases if said[: len(words_of(phrase))] == words_of(phrase)]
    return max(found, key=len, default=None)


def _split(said: list[str]) -> list[list[str]]:
    """`attack g1 then move 1,0` and `attack g1; move 1,0` are two actions."""
    parts: list[list[str]] = [[]]
    for word in said:
        if word in SEPARATORS:
            parts.append([])
        else:
            parts[-1].append(word)
    return parts


def _offered(options: list[Data], aliases: Mapping[str, str]) -> str:
    """What the options are typed as: `attack, move, hold or pass`."""
    verbs = list(dict.fromkeys(said_as(o, aliases)[0].split()[0] for o in options))
    if not verbs:
        return "do nothing now"
    return ", ".join(verbs[:-1]) + (" or " if len(verbs) > 1 else "") + verbs[-1]


GM_VERBS = {
    "start": "start the fight",
    "refuse": "refuse a pause (the timers ran on)",
    "close": "close a window",
    "rewind": "rewind the fight",
    "end combat": "end the fight",
    "add": "add a combatant",
    "plays": "choose whom to be prompted for",
    "invites": "see the room's invite codes",
    "revoke": "revoke an invite code",
}
"""What each of the room's GM commands does, for the refusal a player gets."""


def gm_only(verb: str, what: str = "") -> str:
    """`only the GM may start the fight ('start' is a GM command)`; `what` the console's
    option a word says (`set health`)."""
    what = GM_VERBS.get(verb, what or f"use {verb!r}")
    return f"only the GM may {what} ('{verb}' is a GM command)"


# --- small readers --------------------------------------------------------------------


def _raw(text: str) -> Data:
    if not text:
        raise CommandError("missing_argument", 'raw {"type": "...", ...}: a command map')
    try:
        data = json.loads(text)
    except ValueError as error:
        raise CommandError("bad_json", f"not JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise CommandError("bad_json", 'a command is a JSON object with a "type"')
    return data


def _invitations(verb: str, args: list[str]) -> Invitations:
    """`invites`; `revoke CODE [reissue]`."""
    if verb == "invites":
        if args:
            raise CommandError("too_many_arguments", "invites takes nothing: it lists the codes")
        return Invitations()
    usage = "revoke <code> [reissue]   (reissue: a fresh code for the same seat)"
    if not args:
        raise CommandError("missing_argument", usage)
    if len(args) > 2:
        raise CommandError("too_many_arguments", usage)
    if len(args) == 2 and args[1].lower() != "reissue":
        raise CommandError("bad_argument", usage)
    return Invitations(revoke=args[0], reissue=len(args) == 2)
