"""Dice sources: the only place randomness enters the engine.

The engine may not touch the global random generator or the clock (ARCHITECTURE,
"The engine is pure"). A dice source is a small immutable value that lives inside
the encounter state, so replaying a log reproduces every later roll exactly:
`faces()` reads faces without changing anything, and `apply` advances the source by
the number of faces each event records (see `engine.core.apply`).

Two sources exist:

* `SeededDice` is counter-based (SplitMix64 over seed and position), so its whole
  state is two integers: cheap to store, hash and compare.
* `ScriptedDice` plays back a fixed list of faces. Tests use it to fix the dice
  without patching the code under test.
"""

from __future__ import annotations

from typing import Protocol

from server.engine.records import record

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


class DiceScriptError(Exception):
    """A scripted dice source ran out of faces or holds a face the die cannot show."""


class DiceSource(Protocol):
    """What the engine needs from a dice source: pure reads and a pure advance."""

    def faces(self, sides: int, count: int, skip: int = 0) -> tuple[int, ...]:
        """The next `count` faces of `sides`-sided dice after `skip` already used."""
        ...

    def face(self, sides: int, skip: int = 0) -> int:
        """The next single face after `skip` already used."""
        ...

    def advanced(self, count: int) -> DiceSource:
        """The same source with `count` faces consumed."""
        ...


@record
class SeededDice:
    """A seedable, counter-based dice source (SplitMix64).

    Face `n` is a pure function of `(seed, position + n)`, so advancing is adding.
    The modulo bias against 64-bit outputs is below 1e-17 for any die size.
    """

    seed: int
    position: int = 0

    def faces(self, sides: int, count: int, skip: int = 0) -> tuple[int, ...]:
        start = self.position + skip
        seed = self.seed
        out = []
        for n in range(start + 1, start + count + 1):
            z = (seed + n * _GOLDEN) & _MASK64
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
            out.append((z ^ (z >> 31)) % sides + 1)
        return tuple(out)

    def face(self, sides: int, skip: int = 0) -> int:
        """One face: the d20 of a check, without building a tuple."""
        z = (self.seed + (self.position + skip + 1) * _GOLDEN) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return (z ^ (z >> 31)) % sides + 1

    def advanced(self, count: int) -> SeededDice:
        return SeededDice(self.seed, self.position + count)


@record
class ScriptedDice:
    """Plays back `script` face by face; refuses faces a die of that size cannot show."""

    script: tuple[int, ...]
    position: int = 0

    def faces(self, sides: int, count: int, skip: int = 0) -> tuple[int, ...]:
        start = self.position + skip
        out = self.script[start : start + count]
        if len(out) < count:
            raise DiceScriptError(
                f"dice script exhausted: needed {count} more d{sides} after {start} faces"
            )
        for face in out:
            if not 1 <= face <= sides:
                raise DiceScriptError(f"scripted face {face} is not a face of a d{sides}")
        return out

    def face(self, sides: int, skip: int = 0) -> int:
        return self.faces(sides, 1, skip)[0]

    def advanced(self, count: int) -> ScriptedDice:
        return ScriptedDice(self.script, self.position + count)
