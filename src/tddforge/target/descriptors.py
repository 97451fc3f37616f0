"""Whether a call opened a file descriptor it did not make itself.

A number passed where a path goes (mccabe's ``get_module_complexity(7)``, through
``open(module_path)``) opens whatever file descriptor 7 is in the process that
runs it: in the runner's child, a pipe of its own or nothing (``[Errno 9] Bad file
descriptor``); in pytest, the capture's file, which closing then breaks every test
after it. What such a call does depends on the process, not on the code, so it is
never asserted. ``install_descriptors`` wraps ``open`` (``os.fdopen`` goes through
it) before the module is imported; ``descriptors_borrowed`` tells whether a call
in its block opened a descriptor that was open before the block, or that is not
open at all. A descriptor the call made (``os.open``, ``os.pipe``) is its own.

Runs under the TARGET's interpreter, stdlib only; keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import builtins
import io
import os
from contextlib import contextmanager
from typing import Any, Iterator

from .environ_reads import noticed, noticing

_borrowed = [False]  # a wrapped open was given a descriptor the call did not make
_before: list[frozenset[int]] = [frozenset()]  # the descriptors open when the block began


def open_descriptors() -> frozenset[int]:
    """The process's open file descriptors (empty where the system does not list them)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            listed = [int(name) for name in os.listdir(listing)]
        except (OSError, ValueError):
            continue
        return frozenset(filter(_is_open, listed))  # not the one that read the listing
    return frozenset()


def _is_open(descriptor: int) -> bool:
    try:
        os.fstat(descriptor)
    except (OSError, OverflowError, ValueError):
        return False
    return True


def _not_made(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """``open`` given a descriptor that was open before the block, or is not open."""
    file = kwargs.get("file", args[0] if args else None)
    if not isinstance(file, int) or isinstance(file, bool):
        return False
    return file in _before[0] or not _is_open(file)


def install_descriptors() -> None:
    """Wrap ``open`` so that a call handing it a descriptor it did not make is noticed."""
    builtins.open = io.open = noticed(builtins.open, _borrowed, _not_made)


@contextmanager
def descriptors_borrowed() -> Iterator[list[bool]]:
    """``[True]`` once the block is over if a call in it opened a descriptor it did not make."""
    _before[0] = open_descriptors()
    with noticing(_borrowed) as found:
        yield found
