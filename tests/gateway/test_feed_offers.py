"""The feed offers choices again only when a batch may have changed them.

`Feed._dispatch` compares the state's `Tables.offer_basis` with the last offer's and
skips every connection's look-up when it is equal: a declaration made again (what
players do while they make up their minds) changes no one's choices. These tests
drive a feed with batches decided by the engine and connections that keep what they
are sent, and check the frames a user's client would see.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgpack

from bench.load_encounter import declare, encounter, weapons
from clients.table import held_choices
from server.encounters import build
from server.engine.core import execute
from server.engine.records import from_data
from server.engine.state import Encounter
from server.engine.turns import StartCombat
from server.engine.views import GM_AUDIENCE, Audience, player_audience
from server.eventlog import Entry
from server.gateway.feed import Feed
from server.table.overrides import GM


class Seat:
    """A connection that keeps every frame it is sent, decoded."""

    def __init__(self, audience: Audience, plays: Any) -> None:
        self._audience, self._plays = audience, plays
        self.binary, self.events = True, False
        self.received: list[dict[str, Any]] = []

    def audience(self, state: Encounter) -> Audience:
        return self._audience

    def plays(self, state: Encounter) -> tuple[str, ...]:
        return tuple(self._plays(state)) if callable(self._plays) else self._plays

    def push(self, frame: Any, *, catch_up: bool = False) -> None:
        self.received.append(msgpack.unpackb(frame))

    def choices(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m["type"] == "choices"]

    def holds(self) -> set[str]:
        """The combatants whose seats its client holds, every `choices` taken in."""
        held: list[dict[str, Any]] = []
        for message in self.choices():
            held = held_choices(held, message)
        return {seat["combatant"] for seat in held}


def command(message: dict[str, Any]) -> Any:
    data = dict(message)
    return from_data({"$type": data.pop("type"), **data})


class Table:
    """A started fight of the load benchmark's table, fed batch by batch."""

    def __init__(self) -> None:
        state, started = execute(build(encounter(0), "offers").encounter, StartCombat())
        self.state = state
        self.feed = Feed("offers", None, None, state, lambda: None, now=time.monotonic)  # type: ignore[arg-type]
        self.feed.state, self.feed.seq = state, len(started)

    async def play(self, message: dict[str, Any]) -> None:
        """Decide `message`, hand its batch to the feed, and wait (5 s at most) until
        the choices it asked for, if any, are sent."""
        self.state, events = execute(self.state, command(message))
        seq = self.feed.seq
        batch = [Entry(seq + n, e, n == len(events) - 1) for n, e in enumerate(events, 1)]
        self.feed._dispatch(batch)
        await self.offered()

    async def offered(self) -> None:
        offering = self.feed._offering
        if offering is not None:
            await asyncio.wait_for(asyncio.shield(offering), 5)


async def test_a_declaration_made_again_offers_nothing_new_and_a_new_one_does() -> None:
    table = Table()
    arms = weapons()
    ayla = Seat(player_audience(("ayla",), table.state), ("ayla",))
    bram = Seat(player_audience(("bram",), table.state), ("bram",))
    for seat in (ayla, bram):
        table.feed.join(seat, None)
    await table.offered()
    await table.play(declare("ayla", arms["ayla"]))
    after_first = len(ayla.choices())
    assert after_first == 2  # on joining, then once declared (it may withdraw now)
    for _ in range(3):
        await table.play(declare("ayla", arms["ayla"]))
    assert len(ayla.choices()) == after_first
    assert len(bram.choices()) == 1  # another's declaration never changed its own
    await table.play({"type": "Withdraw", "actor": "ayla"})
    assert len(ayla.choices()) == after_first + 1
    assert ayla.choices()[-1]["seats"] == ayla.choices()[0]["seats"]  # as before it declared


async def test_the_gm_is_offered_the_combatants_a_seat_gave_back_at_the_next_batch() -> None:
    table = Table()
    arms = weapons()
    seated = {"ayla", "bram", "corvin", "dara"}
    gm = Seat(GM_AUDIENCE, lambda state: (GM, *(c for c in state.combatants if c not in seated)))
    table.feed.join(gm, None)
    await table.offered()
    await table.play(declare("ayla", arms["ayla"]))
    assert "dara" not in gm.holds()
    seated.discard("dara")  # a renew gave Dara's seat back to the GM
    table.feed.reseated()
    await table.play(declare("ayla", arms["ayla"]))  # a batch that changes no one's choices
    assert "dara" in gm.holds()
