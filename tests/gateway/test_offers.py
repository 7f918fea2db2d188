"""What a connection's `choices` message holds: every seat once, then what changed
(server/gateway/offers.py; docs/protocol.md, "Choices"), folded by the client's own
`held_choices` into the seats a fresh connection would be sent whole."""

from __future__ import annotations

from typing import Any

from clients.table import held_choices
from server.gateway.offers import Held, choices_message

Data = dict[str, Any]


def seat(combatant: str, *keys: str) -> Data:
    return {"combatant": combatant, "window": 3, "options": [{"key": k} for k in keys]}


def whole(now: Held) -> list[Data]:
    return [s for made in now.values() for s in made]


def test_the_first_is_whole_and_an_unchanged_set_sends_nothing() -> None:
    gm, g1 = [seat("gm", "pause")], [seat("g1", "pass")]
    now: Held = {"gm": gm, "g1": g1, "g2": []}
    first = choices_message(5, now, None)
    assert first == {"type": "choices", "seq": 5, "whole": True, "seats": gm + g1}
    # the same objects (and no seat for g2, again in a new empty list): nothing to send
    assert choices_message(6, {"gm": gm, "g1": g1, "g2": []}, now) is None


def test_only_changed_seats_go_with_those_gone_and_the_order_when_one_came() -> None:
    before: Held = {"gm": [seat("gm", "pause")], "g1": [seat("g1", "pass")], "g2": []}
    g2 = [seat("g2", "pass")]
    steps: list[Held] = [
        {**before, "g1": [seat("g1", "dodge")]},  # g1 changed, in place
        {"gm": before["gm"], "g1": [], "g2": []},  # g1's seat went
        {"gm": before["gm"], "g1": [seat("g1", "block")], "g2": g2},  # came
        {"gm": before["gm"], "g2": g2},  # g1 no longer played
    ]
    held = whole(before)
    sent = []
    for now in steps:
        message = choices_message(9, now, before)
        assert message is not None and message["whole"] is False
        held = held_choices(held, message)
        assert held == whole(now)
        sent.append(message)
        before = now
    assert [[s["combatant"] for s in m["seats"]] for m in sent] == [["g1"], [], ["g1", "g2"], []]
    assert [m["gone"] for m in sent] == [[], ["g1"], [], ["g1"]]
    assert [m.get("order") for m in sent] == [None, None, ["gm", "g1", "g2"], None]


def test_a_new_order_of_the_same_seats_is_sent() -> None:
    gm, g1 = [seat("gm", "pause")], [seat("g1", "pass")]
    message = choices_message(3, {"g1": g1, "gm": gm}, {"gm": gm, "g1": g1})
    assert message == {
        "type": "choices",
        "seq": 3,
        "whole": False,
        "seats": [],
        "gone": [],
        "order": ["g1", "gm"],
    }
    assert held_choices(gm + g1, message) == g1 + gm
