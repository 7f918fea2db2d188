"""Who may issue which command: the check the server makes before `decide`.

The role comes from the connection's token, never from a message field; the engine
only states the rule. `Command.issuers` names the roles a command accepts.
"""

from __future__ import annotations

from enum import StrEnum

from server.engine.core import Command
from server.engine.errors import FORBIDDEN, CommandRefused
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


def authorize(principal: Principal, command: Command) -> None:
    """Refuse with `forbidden` when `principal` may not send `command`."""
    if not may_issue(principal, command):
        who = principal.name or principal.role
        raise CommandRefused(
            FORBIDDEN, f"{who} ({principal.role}) may not send {type(command).__name__}"
        )
