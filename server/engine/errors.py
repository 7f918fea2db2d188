"""Why a command was refused: one exception type, one stable code per cause.

Codes are part of the wire protocol (ARCHITECTURE, "Errors by cause, stable on the
wire"): clients switch on them, so a code is never renamed, only added.
"""

from __future__ import annotations


class CommandRefused(Exception):
    """A command that is not legal now. The state it was checked against is untouched."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[CommandRefused], tuple[str, str]]:
        """Pickled with its code and message (the server works some requests out in
        another process)."""
        return type(self), (self.code, self.message)


QUOTED = 60
"""The most characters of someone's input a message quotes: a long bad input (a name of
40,000 characters) is shown by its start, never echoed whole."""


def cut(text: str, limit: int = QUOTED) -> str:
    """`text`, or its first `limit` characters and an ellipsis."""
    return text if len(text) <= limit else text[:limit] + "..."


def quoted(text: object, limit: int = QUOTED) -> str:
    """`text` quoted as a message shows it (`'Prone'`), cut to `limit` characters with
    an ellipsis after the quote (`'NNN...N'...`); anything but text as its `repr`."""
    shown = text if isinstance(text, str) else repr(text)
    if len(shown) > limit:
        return repr(shown[:limit]) + "..."
    return repr(shown)


# The stable codes. Each names the cause, not the place that found it.
UNKNOWN_COMMAND = "unknown_command"
UNKNOWN_COMBATANT = "unknown_combatant"
INVALID_COMMAND = "invalid_command"
WRONG_PHASE = "wrong_phase"
NOT_YOUR_TURN = "not_your_turn"
ACTION_USED = "action_used"
INCAPACITATED = "incapacitated"
TARGET_DOWN = "target_down"
UNKNOWN_WEAPON = "unknown_weapon"
WEAPON_UNUSABLE = "weapon_unusable"
OUT_OF_REACH = "out_of_reach"
OUT_OF_RANGE = "out_of_range"
OTHER_ASCENSION = "other_ascension"
CANNOT_THROW = "cannot_throw"
UNKNOWN_SPELL = "unknown_spell"
SPELL_NOT_ACCESSIBLE = "spell_not_accessible"
NOT_ENOUGH_MANA = "not_enough_mana"
BLOCKED = "blocked"
TOO_FAR = "too_far"
# Awareness and stealth (verse/awareness.py)
IN_VIEW = "in_view"  # a Stealth Check against someone who already sees the sneaker
# Rides (verse/rides.py)
NOT_A_RIDE = "not_a_ride"
ALREADY_MOUNTED = "already_mounted"
NOT_MOUNTED = "not_mounted"
OTHER_SIDE = "other_side"
RIDE_STANDING = "ride_standing"  # riders are thrown only when their ride is down
# Spells (verse/spells.py)
INVALID_SPELL_OPTION = "invalid_spell_option"  # Spell Dice or options the spell cannot buy
INVALID_MANA_SHARE = "invalid_mana_share"  # group casting shares that do not add up
HELPER_NOT_CONSENTING = "helper_not_consenting"  # a mana helper whose player did not agree
ALREADY_CHARGING = "already_charging"  # a new spell while another is being charged
NOT_CHARGING = "not_charging"  # charging or a concentration check with no spell charged
# Movement, stances and Ascension (verse/movement.py, stances.py, ascension.py)
NOT_ADJACENT = "not_adjacent"  # a path step that is not to a neighbouring cell
NO_MOVEMENT_SPEED = "no_movement_speed"  # no speed of the kind the move needs (fly, swim, ...)
NO_OPPORTUNITY = "no_opportunity"  # an attack of opportunity nobody is entitled to
# Live Combat, Pause and authority
FORBIDDEN = "forbidden"  # this role may not send this command
PAUSED = "paused"  # V24: only resume and GM overrides while paused
NOT_PAUSED = "not_paused"
WINDOW_OPEN = "window_open"  # a window is waiting for answers
NO_WINDOW = "no_window"  # the window named is not the open one
NOT_ASKED = "not_asked"  # this combatant is not asked in the open window
ALREADY_ANSWERED = "already_answered"
STACK_FULL = "stack_full"
# Conditions as data (effects.py: Verse V27, World of Tael TR40)
CONDITION_FORBIDS = "condition_forbids"  # a condition the table rules takes this away
# The room (server/room/) and the event log (server/eventlog/)
ROOM_BUSY = "room_busy"  # the room's command queue is full: try again shortly
ROOM_CLOSED = "room_closed"  # the room is not running (not started yet, or stopped)
VERSION_CONFLICT = "version_conflict"  # the log moved on since the batch was built
UNAVAILABLE = "unavailable"  # the room's store or owner cannot be reached now: retry shortly
