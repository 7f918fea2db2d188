"""The `choices` message a connection is sent: every seat, or only what changed.

A big fight's GM plays every unseated combatant; when each of its commands brought all
their seats again (a planning window's 64 seats are over a megabyte), the frames, not
the rules, were what it waited on. So a connection is sent its seats whole once (the
first `choices` after it joins or is sent a whole table) and then only the seats that
changed, the combatants whose seats went (`gone`) and, when the held order would no
longer be the server's (a seat came), the new order (docs/protocol.md, "Choices").

A seat has changed when it is another object: `Tables.choices` hands out the same
object while a combatant's choices stay equal, so no seat is compared field by field.
Pure: the feed keeps what each connection holds and does the sending.
"""

from __future__ import annotations

from typing import Any

Data = dict[str, Any]
Held = dict[str, list[Data]]
"""Each combatant a connection plays, in the order it plays them, with its seats as
`Tables.choices` gave them (none, or its one seat)."""


def choices_message(seq: int, now: Held, before: Held | None) -> Data | None:
    """The `choices` message that takes a client holding `before` (None: nothing yet, so
    a whole one) to `now`, after event `seq`; None when it would change nothing."""
    if before is None:
        seats = [seat for made in now.values() for seat in made]
        return {"type": "choices", "seq": seq, "whole": True, "seats": seats}
    changed: list[Data] = []
    gone: list[str] = []
    for combatant, made in now.items():
        held = before.get(combatant)
        if held is made or (not held and not made):
            continue
        if made:
            changed.extend(made)
        else:
            gone.extend(seat["combatant"] for seat in held or ())
    for combatant, held in before.items():
        if combatant not in now:
            gone.extend(seat["combatant"] for seat in held)
    kept = [seat["combatant"] for made in before.values() for seat in made]
    kept = [combatant for combatant in kept if combatant not in gone]
    order = [seat["combatant"] for made in now.values() for seat in made]
    if not changed and not gone and order == kept:
        return None
    message: Data = {"type": "choices", "seq": seq, "whole": False, "seats": changed}
    message["gone"] = gone
    if order != kept:
        message["order"] = order
    return message
