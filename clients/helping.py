"""What the screen prints for `help`: the words that work now, for this screen.

The words of what the one who acts is offered now (each option as it is typed,
`matching.said_as`: `attack [longsword|shortbow] <target> | move <cell> | pass`), how
to declare when a declaration is offered, the room's words, and the rule system's
(`words.Words.help`); for the GM also its console's options and its commands.
"""

from __future__ import annotations

from collections.abc import Mapping

from clients.lines import DEFAULT_RULESET, GM_CONSOLE, Context, Data, Role
from clients.matching import said_as
from clients.rulesets import words_for

ALIASES = {"end": "end turn"}
"""Every room's word for an option of a seat: `end` ends the turn (`end_turn`)."""
ROOM_WORDS = {
    "close": "close window",
    "refuse": "refuse pause",
    "end combat agreed": "end agreed",
    "end combat": "end",
}
"""How the room's commands on the GM's console (docs/protocol.md, "Choices") are typed:
`commands.parse` reads these words itself, as every room's commands."""


_DECLARE = """\
Declare what the prompt offers (a planning window), several actions joined by 'then':
  declare attack g1 longsword then move 1,0 | declare turn 2 <action> | declare pass
  (turn N: your Nth turn this round, from 1 in initiative order; pass: that turn does
  nothing; an action typed alone is declared too)"""
_ANY_TIME = """\
Any time: pause | resume | as <combatant> [command] | raw <json command>
  look (the fight at a glance) | help | quit | a choice's number (2, or 1 3 for its blanks)"""
_GM = """\
The GM: start | pause | resume | refuse (a player's pause) | close [window] | rewind <seq>
  end combat [agreed]   (agreed: everyone agreed to stop) | console (as gm <number>)
  plays [<combatant> ...]   (whom you are prompted for: yours; 'plays' alone lists them)
  invites | revoke <code> [reissue]   (the room's invite codes; reissue: a fresh one)
  as <combatant> <command>: anything a player types, for your combatants"""


def help_text(role: Role, ruleset: str = DEFAULT_RULESET, context: Context | None = None) -> str:
    """What the screen prints for `help`: the words of what the one who acts is offered
    now (each option as it is typed), the room's words, and the rule system's."""
    if role not in ("gm", "player"):
        return "You are watching: the fight prints as it happens. look: the fight now; quit: leave."
    rules = words_for(ruleset)
    aliases = {**ALIASES, **rules.aliases}
    lines = ["What you may type now (each as its prompt offers it):"]
    seats = dict(context.choices) if context is not None else {}
    composes = False
    for who, seat in seats.items():
        if who == GM_CONSOLE or context is None or not _speaks_for(context, who):
            continue
        composes = composes or bool(seat.get("compose"))
        lines.append(f"  {who}: " + _usages(seat.get("options", []), aliases))
    if len(lines) == 1:
        lines.append("  nothing now: the prompt lists your choices when there are some")
    lines += [_DECLARE] if composes else []
    lines += [rules.help, _ANY_TIME] if rules.help else [_ANY_TIME]
    if role == "gm":
        lines += [_GM, rules.gm_help] if rules.gm_help else [_GM]
        console = seats.get(GM_CONSOLE)
        if console is not None:
            words = {**ROOM_WORDS, **rules.gm_words}
            lines.append("  the console now: " + _usages(console["options"], words))
    return "\n".join(lines)


def _usages(options: list[Data], aliases: Mapping[str, str]) -> str:
    """`attack [longsword|shortbow] <target> | move <cell> | pass`."""
    usages: dict[str, list[str]] = {}
    for option in options:
        verb, rest = said_as(option, aliases)
        usages.setdefault(verb, []).append(rest)
    return " | ".join(f"{verb} {_merged(rests)}".strip() for verb, rests in usages.items())


def _speaks_for(context: Context, who: str) -> bool:
    """Whether help lists `who`'s choices: the one named, else this screen's own."""
    if context.actor:
        return who == context.actor
    if context.role == "player":
        return who in context.controls
    return context.prompted is None or who in context.prompted


def _merged(rests: list[str]) -> str:
    """`[longsword] <target>` and `[shortbow] <target>` as `[longsword|shortbow] <target>`."""
    tails = [r.split("] ", 1)[0][1:] for r in rests if r.startswith("[")]
    if len(tails) == len(rests) > 1 and len({r.split("] ", 1)[-1] for r in rests}) == 1:
        return f"[{'|'.join(tails)}] {rests[0].split('] ', 1)[-1]}"
    return rests[0]
