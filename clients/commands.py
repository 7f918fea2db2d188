"""What a person types, as the engine command to send: a pure function, no network.

`parse(text, context)` reads one line and returns what to do: a `Command` (a command
map for `Client.send`, docs/protocol.md "Engine commands"), `ActAs` (pick who acts),
`ShowHelp`, `Quit` or `Nothing`; a line that starts with a number picks one of the
choices the server offered (`picking.py`: `2`, `1 3`); a line it cannot read raises
`CommandError` with a stable code and a message saying how to write it. It never sends
anything itself, so a bad line changes nothing.

`context` is what the screen knows: the role, the combatants this seat controls, who
acts by default, the open window (answers need its id and default to its subject) and
the room's ruleset. The server still decides everything: the parser only spares people
from writing JSON, and `raw {...}` sends any command map as it is.

The words every room knows are read here (help, quit, look, raw, as); the rest is the
ruleset's own grammar, since the rule systems' commands differ. The room's ruleset is
looked up in the ruleset table (`rulesets.py`: Verse's words in `verse_commands.py`,
World of Tael's in `tael_commands.py`), never compared by name here. A ruleset this
program does not know still takes `raw {...}`; its other lines are refused with
`unknown_ruleset`.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import replace

from clients.lines import (
    DEFAULT_RULESET,
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
)
from clients.picking import is_pick, pick
from clients.rulesets import words_for

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


def parse(text: str, context: Context) -> Parsed:
    """The meaning of one typed line (see the module's docstring)."""
    try:
        words = shlex.split(text, comments=False)
    except ValueError as error:
        raise CommandError("bad_quotes", f"cannot read the line: {error}") from None
    if not words:
        return Nothing()
    verb = words[0].lower()
    rules = words_for(context.ruleset)
    own = context.role in ("gm", "player") and rules.claims(verb, words[1:])
    if verb in ("help", "?") and not own:
        return ShowHelp(help_text(context.role, context.ruleset))
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
    if is_pick(verb):
        return Command(pick(text.strip(), context))
    if verb == "plays" and context.role == "gm":
        return Plays(tuple(words[1:]))
    if verb in INVITE_VERBS and context.role == "gm":
        return _invitations(verb, words[1:])
    if context.role != "gm" and (verb in rules.gm_only or verb in ("plays", *INVITE_VERBS)):
        raise CommandError("gm_only", gm_only(verb))
    read = rules.read(verb, words[1:], context)
    return read if isinstance(read, AddFromSheet) else Command(read)


GM_VERBS = {
    "start": "start the fight",
    "refuse": "refuse a pause (the timers ran on)",
    "close": "close a window",
    "skip": "skip a turn",
    "health": "set a combatant's health",
    "hp": "set a combatant's hit points",
    "mana": "set a combatant's mana",
    "rewind": "rewind the fight",
    "condition": "give a combatant a condition",
    "uncondition": "take a condition away",
    "remove-status": "take a status away",
    "add": "add a combatant",
    "remove": "remove a combatant",
    "recover": "give an item back",
    "plays": "choose whom to be prompted for",
    "invites": "see the room's invite codes",
    "revoke": "revoke an invite code",
}
INVITE_VERBS = ("invites", "revoke")
"""What each GM command does, for the refusal a player gets."""


def gm_only(verb: str) -> str:
    """`only the GM may set a combatant's health ('health' is a GM command)`."""
    what = GM_VERBS.get(verb, f"use {verb!r}")
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


# --- help -----------------------------------------------------------------------------


def help_text(role: Role, ruleset: str = DEFAULT_RULESET) -> str:
    """What the screen prints for `help`: a GM or a player gets the words of the room's
    ruleset; a spectator (or a host) only watches."""
    if role == "gm":
        console = "console: the room's commands and overrides, picked with as gm <number>"
        return words_for(ruleset).help(role) + "\n" + console
    if role == "player":
        return words_for(ruleset).help(role)
    return "You are watching: the fight prints as it happens. look: the fight now; quit: leave."
