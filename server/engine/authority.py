"""Who may issue which command: the check the server makes before `decide`.

The role comes from the connection's token, never from a message field; the engine
only states the rule. `Command.issuers` names the roles a command accepts.

Besides its actor, a command may spend other combatants' resources on its sender's
word (`Command.commits`: a group cast's `helpers`, V12). The sender must answer for
each of them too (`answers_for`): a player for its own seat's combatants, the GM for
every combatant (it may already send any command for any of them). This is the only
place that knows who sent a command, so `decide` takes such a field as vouched for;
a combatant of another seat helps only through its own consent, which is in the state
(`spell_mana.PledgeMana`), so replay never needs the sender.
"""

from __future__ import annotations

from enum import StrEnum

from server.engine.core import Command
from server.engine.errors import FORBIDDEN, HELPER_NOT_CONSENTING, CommandRefused
from server.engine.records import record


class Role(StrEnum):
    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"
    ROOM = "room"


@record
class Principal:
    """Who is asking: a role, and for a player the combatants its seat controls."""

    role: str
    controls: tuple[str, ...] = ()
    name: str = ""


RESERVED_NAMES = frozenset({"gm", "room", "spectator", "host"})
"""Names the server gives to roles: a combatant or seat called `gm` could speak as the
GM (`Pause(by="gm")`, lifting the GM's pause), and the GM's console offers its choices
as the seat `gm`. Neither an encounter nor a combatant added later may take one."""

GM = Principal(Role.GM, name="gm")
ROOM = Principal(Role.ROOM, name="room")


def may_issue(principal: Principal, command: Command) -> bool:
    speaker = type(command).speaker
    if speaker and not speaks_as(principal, getattr(command, speaker, "")):
        return False  # Pause(by=...) names its sender: it must be the one sending it
    issuers = type(command).issuers
    if principal.role == Role.GM:
        return "gm" in issuers
    if principal.role == Role.ROOM:
        return "room" in issuers
    if principal.role != Role.PLAYER:
        return False
    if "player" in issuers:
        return True
    return "controller" in issuers and command.acting_for in principal.controls


def speaks_as(principal: Principal, by: str) -> bool:
    """Is `by` who `principal` is: "gm" for the GM, one of a player's own combatants?"""
    if principal.role == Role.GM:
        return by == "gm"
    return principal.role == Role.PLAYER and by in principal.controls


def answers_for(principal: Principal, combatant: str) -> bool:
    """May `principal` commit `combatant`'s own resources: the GM any combatant's, a
    player its seat's?"""
    if principal.role == Role.GM:
        return True
    return principal.role == Role.PLAYER and combatant in principal.controls


def unconsented(principal: Principal, command: Command) -> tuple[str, ...]:
    """The combatants `command` commits (`Command.commits`) that `principal` does not
    answer for, in the order named."""
    return tuple(c for c in command.commits if not answers_for(principal, c))


def authorize(principal: Principal, command: Command) -> None:
    """Refuse with `forbidden` when `principal` may not send `command`, and with
    `helper_not_consenting` when it commits a combatant its sender does not play."""
    who = principal.name or principal.role
    if not may_issue(principal, command):
        raise CommandRefused(
            FORBIDDEN, f"{who} ({principal.role}) may not send {type(command).__name__}"
        )
    strangers = unconsented(principal, command)
    if strangers:
        raise CommandRefused(
            HELPER_NOT_CONSENTING,
            f"{who} does not play {', '.join(strangers)}: another player's combatant pays a"
            " share only when its own player pledged it (PledgeMana) and the caster names"
            " it in `pledged`",
        )
