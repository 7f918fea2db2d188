"""Dice sources: the only place randomness enters the engine.

The engine may not touch the global random generator or the clock (ARCHITECTURE,
"The engine is pure"). A dice source is a small immutable value that lives inside
the encounter state, so replaying a log reproduces every later roll exactly:
`faces()` reads faces without changing anything, and `apply` advances the source by
the number of faces each event records (see `engine.core.apply`).

Two sources exist:

* `SeededDice` is counter-based (BLAKE2b over seed and position), so its whole
  state is two integers: cheap to store, hash and compare.
* `ScriptedDice` plays back a fixed list of faces. Tests use it to fix the dice
  without patching the code under test.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Protocol

from server.engine.records import record

_MASK64 = (1 << 64) - 1


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


_BLOCKS: dict[tuple[int, int], tuple[int, ...]] = {}
_BLOCKS_KEPT = 4096
_UNPACK = struct.Struct("<8Q").unpack
_PACK = struct.Struct("<QQ").pack
_BLAKE2B = hashlib.blake2b


def _block(seed: int, block: int) -> tuple[int, ...]:
    """Words `8*block .. 8*block+7` of the stream for `seed`: a pure function, memoised."""
    key = (seed, block)
    words = _BLOCKS.get(key)
    if words is None:
        if len(_BLOCKS) >= _BLOCKS_KEPT:
            _BLOCKS.clear()
        # BLAKE2b's default (and largest) digest is 64 bytes: eight words per call.
        words = _BLOCKS[key] = _UNPACK(_BLAKE2B(_PACK(seed & _MASK64, block)).digest())
    return words


def stream_words(seed: int, first: int, last: int) -> tuple[int, ...]:
    """Words `8*first .. 8*last+7` of the stream for `seed`, blocks `first..last` joined.

    The raw 64-bit words behind `SeededDice.faces` (face `n` is word `n % sides + 1`):
    a `DiceCup` keeps the block it is drawing from and reads faces straight from it.
    """
    if first == last:
        return _block(seed, first)
    words: tuple[int, ...] = ()
    for block in range(first, last + 1):
        words += _block(seed, block)
    return words


@record
class SeededDice:
    """A seedable, counter-based dice source.

    Face `n` is word `n` of a stream of BLAKE2b digests of `(seed, n // 8)`, so the
    whole state is two integers and advancing is adding. The modulo bias against
    64-bit words is below 1e-17 for any die size.
    """

    seed: int
    position: int = 0

    def faces(self, sides: int, count: int, skip: int = 0) -> tuple[int, ...]:
        start = self.position + skip
        end = start + count
        if start >> 3 == (end - 1) >> 3:  # all in one block: slice it
            words = _block(self.seed, start >> 3)[start & 7 : ((end - 1) & 7) + 1]
            return tuple([w % sides + 1 for w in words])
        seed = self.seed
        return tuple([_block(seed, n >> 3)[n & 7] % sides + 1 for n in range(start, end)])

    def face(self, sides: int, skip: int = 0) -> int:
        """One face: the d20 of a check, without building a tuple."""
        n = self.position + skip
        return _block(self.seed, n >> 3)[n & 7] % sides + 1

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
