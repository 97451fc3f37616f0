"""A forked child allocates where its siblings did, unless its addresses are shifted."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import pytest

from tddforge.target import addresses
from tddforge.target.addresses import SIZE_CLASSES, shift_addresses

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the runner forks its children")


class Language:
    def __init__(self, name: str) -> None:
        self.name = name


def _languages() -> list[object]:
    return [Language(name) for name in ("english", "french", "spanish")]


def _addresses_in_siblings(
    first: list[int], second: list[int], build: Callable[[], list[object]] = _languages
) -> tuple[str, str]:
    """The addresses of the objects each of two children forked from one state builds,
    after ``first``'s and ``second``'s shifts."""
    pipes = [os.pipe(), os.pipe()]
    pids = []
    for (_, write), counts in zip(pipes, (first, second), strict=True):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            shift_addresses(counts)
            built = build()
            os.write(write, " ".join(str(id(b)) for b in built).encode())
            os._exit(0)
        pids.append(pid)
    answers = []
    for (read, write), pid in zip(pipes, pids, strict=True):
        os.close(write)
        answers.append(os.read(read, 256).decode())
        os.close(read)
        os.waitpid(pid, 0)
    return answers[0], answers[1]


@pytest.mark.parametrize("size", [16, 32, 48, 64, 96, 512])
def test_each_size_class_gets_its_slots(size: int) -> None:
    shift_addresses([2 if s == size else 0 for s in SIZE_CLASSES])
    held = addresses._HELD[-1]
    assert len(held) == 2
    assert all(size - 16 < sys.getsizeof(kept) <= size for kept in held)


@pytest.mark.parametrize("before", [0, 3, 40], ids=lambda n: f"{n}-shifts-before")
def test_siblings_build_at_one_address_until_one_is_shifted(before: int) -> None:
    none, one = [0] * len(SIZE_CLASSES), [1] * len(SIZE_CLASSES)
    for _ in range(before):  # whatever the parent allocated first
        shift_addresses(one)
    plain, again = _addresses_in_siblings(none, none)
    assert plain == again
    plain, shifted = _addresses_in_siblings(none, one)
    assert plain != shifted


def test_a_random_shift_takes_a_few_slots_of_every_class() -> None:
    addresses.shift_at_random()
    sizes = [sys.getsizeof(kept) for kept in addresses._HELD[-1]]
    assert len(sizes) <= len(SIZE_CLASSES) * (addresses.MAX_SHIFT - 1)
    assert {(s + 15) // 16 * 16 for s in sizes} <= set(SIZE_CLASSES)


def test_the_smallest_classes_shift_too_when_their_free_lists_are_full() -> None:
    # a busy process has freed floats: a float taken from their free list moves nothing
    freed = [float(n) + 0.5 for n in range(200)]
    del freed
    only_32 = [3 if size == 32 else 0 for size in SIZE_CLASSES]
    plain, shifted = _addresses_in_siblings(
        [0] * len(SIZE_CLASSES), only_32, lambda: [(1 << 41) + n for n in range(4)]
    )
    assert plain != shifted
