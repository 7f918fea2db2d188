"""`last_answer`: a pure function's answer kept for the last object it was asked about.

The engine's states are immutable: a change makes new combatants and a new turn order,
and a state that changes neither (a window opening, a declaration) shares them. So an
answer worked out from one of those objects holds for as long as the object is the same
one, whatever state it is reached from. The choices ask the engine about every target
and cell of every combatant on one state; without this, each of those questions scans
the whole fight again, and a big fight's cost grows with the square of its size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class last_answer(Generic[K, V]):
    """`work(key)`, worked out again only when `key` is not the object last asked about
    (compared by identity: cheap, and right for objects never changed in place)."""

    __slots__ = ("_last", "_work")

    def __init__(self, work: Callable[[K], V]) -> None:
        self._work = work
        self._last: tuple[K, V] | None = None

    def __call__(self, key: K) -> V:
        last = self._last  # one read and one write of a pair: no thread sees half of one
        if last is not None and last[0] is key:
            return last[1]
        answer = self._work(key)
        self._last = (key, answer)  # the key held, so its id is not reused meanwhile
        return answer
