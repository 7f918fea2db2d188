"""Dice sources: the only place randomness enters the engine.

The engine may not touch the global random generator or the clock (ARCHITECTURE,
"The engine is pure"). A dice source is a small immutable value that lives inside
the encounter state, so replaying a log reproduces every later roll exactly:
`faces()` reads faces without changing anything, and `apply` advances the source by
the number of faces each event records (see `engine.core.apply`).

Two sources exist:

* `SeededDice` is counter-based (BLAKE2b over seed and block number, sixteen 32-bit
  words per digest, one word per face), so its whole state is two integers: cheap to
  store, hash and compare, and the same seed and position give the same faces forever.
  `DiceCup` reads the words in bulk (`block_words`, `stream_words`).
* `ScriptedDice` plays back a fixed list of faces. Tests use it to fix the dice
  without patching the code under test.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
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


BLOCK_SHIFT = 4  # a block holds 2**4 = 16 faces' words: one BLAKE2b digest
_BLOCK = 1 << BLOCK_SHIFT
_LAST = _BLOCK - 1
_BLOCKS: dict[tuple[int, int], tuple[int, ...]] = {}
_BLOCKS_KEPT = 4096
_PACK = struct.Struct("<QQ").pack
_BLAKE2B = hashlib.blake2b  # its default digest is its largest: 64 bytes
_UNPACKS: dict[int, Callable[[bytes], tuple[int, ...]]] = {}


def _unpacker(blocks: int) -> Callable[[bytes], tuple[int, ...]]:
    """Reads `blocks` digests as little-endian unsigned 32-bit words."""
    unpack = _UNPACKS.get(blocks)
    if unpack is None:
        unpack = _UNPACKS[blocks] = struct.Struct(f"<{_BLOCK * blocks}L").unpack
    return unpack


_UNPACK = _unpacker(1)


def block_words(seed: int, block: int) -> tuple[int, ...]:
    """The 16 words of block `block` of the stream for `seed`: a pure function, memoised."""
    key = (seed, block)
    words = _BLOCKS.get(key)
    if words is None:
        if len(_BLOCKS) >= _BLOCKS_KEPT:
            _BLOCKS.clear()
        words = _BLOCKS[key] = _UNPACK(_BLAKE2B(_PACK(seed & _MASK64, block)).digest())
    return words


def stream_words(seed: int, first: int, last: int) -> tuple[int, ...]:
    """The words of blocks `first..last` of the stream for `seed`, joined.

    The raw words behind `SeededDice.faces` (face `n` is word `n` modulo the sides,
    plus one), for a `DiceCup` that reads faces straight from them. A single block
    goes through the memo (a command's cup mostly starts in the block where the
    previous one stopped); of several, the last is memoised for the next command's cup.
    """
    if first == last:
        return block_words(seed, first)
    key = seed & _MASK64
    words = _unpacker(last - first + 1)(
        b"".join([_BLAKE2B(_PACK(key, block)).digest() for block in range(first, last + 1)])
    )
    if len(_BLOCKS) >= _BLOCKS_KEPT:
        _BLOCKS.clear()
    _BLOCKS[seed, last] = words[-_BLOCK:]
    return words


@record
class SeededDice:
    """A seedable, counter-based dice source.

    Face `n` is word `n % 16` of block `n // 16`: the BLAKE2b digest (64 bytes) of
    `(seed, n // 16)` read as sixteen little-endian 32-bit words, taken modulo the
    die's sides, plus one. The whole state is two integers and advancing is adding.
    The modulo bias is `sides / 2**32` at most: below 2.4e-7 for the largest die
    (`MAX_SIDES` 1000), 5e-9 for a d20.
    """

    seed: int
    position: int = 0

    def faces(self, sides: int, count: int, skip: int = 0) -> tuple[int, ...]:
        if count <= 0:
            return ()
        start = self.position + skip
        end = start + count
        first = start >> BLOCK_SHIFT
        last = (end - 1) >> BLOCK_SHIFT
        if first == last:  # all in one block: slice it
            words = block_words(self.seed, first)[start & _LAST : ((end - 1) & _LAST) + 1]
        else:
            offset = start - (first << BLOCK_SHIFT)
            words = stream_words(self.seed, first, last)[offset : offset + count]
        return tuple([w % sides + 1 for w in words])

    def face(self, sides: int, skip: int = 0) -> int:
        """One face: the d20 of a check, without building a tuple."""
        n = self.position + skip
        return block_words(self.seed, n >> BLOCK_SHIFT)[n & _LAST] % sides + 1

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
