"""Where a forked child's objects land: shifted at random before a rerun of the tests.

A set of objects hashed by address (no ``__hash__`` of their own) iterates in the
order of the low bits of their addresses, and children forked from one process
allocate at the same offsets. The suite's shuffled reruns are such children, so a
test asserting such an order passed or failed in all of them at once: a test
expecting mnemonic's "Language ambiguous between french, english" passed the
cover loop's three runs and failed in the bench's, which printed "english,
french". Taking a random number of slots of each size class of the small-object
allocator first gives each rerun its own layout.

Runs on the target's interpreter: standard library only, Python 3.8 syntax.
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any, Sequence

#: What was allocated: kept until the child ends, so the slots stay taken.
_HELD: list[Any] = []

#: The small-object allocator's size classes, in bytes (16 apart, up to 512).
SIZE_CLASSES = range(16, 513, 16)
_BYTES_OVERHEAD = sys.getsizeof(b"")

#: At most this many slots of each class are taken, at random.
MAX_SHIFT = 8


def shift_addresses(counts: Sequence[int]) -> None:
    """Take ``counts[i]`` slots of the ``i``-th size class (``SIZE_CLASSES``).

    The slots are held in a list sized beforehand: a list that grows frees its old
    array, and a slot of that size taken next would only take that block back.
    """
    sizes = [size for size, count in zip(SIZE_CLASSES, counts) for _ in range(count)]
    held: list[Any] = [None] * len(sizes)
    for index, size in enumerate(sizes):
        if size == 16:
            held[index] = object()
        elif size == 32:  # 32 bytes, not a cached value; a float may come from its free list
            held[index] = (1 << 40) + index
        else:
            held[index] = bytes(size - _BYTES_OVERHEAD)
    _HELD.append(held)


def shift_at_random() -> None:
    """``shift_addresses`` by up to ``MAX_SHIFT`` slots a class, from the OS's randomness
    (the ``random`` module's state is the code's, not ours to draw from)."""
    pick = random.Random(os.urandom(16))
    shift_addresses([pick.randrange(MAX_SHIFT) for _ in SIZE_CLASSES])
