"""A wall clock shifted by a year and some, for the second of the caller's two runs.

The caller judges a value deterministic when two runs of its call agree. Two runs
seconds apart agree on what the wall clock gives at a coarse grain (the date, the
hour, a 30-second window), so a value of the moment would be asserted as a
literal, and fail later. In the second run ``install_clock`` shifts what the
``time`` module's wall-clock functions tell (``time()``, ``time_ns()``, and
``localtime()``, ``gmtime()``, ``ctime()``, ``asctime()`` and ``strftime(fmt)``
when they are not given a time), so that such a value differs between the runs,
while a duration (``time.time() - start``) stays what it was. ``datetime``'s
``now()`` and ``today()`` are C functions that cannot be shifted: the caller
knows the lines that call them (``module_state.clock_lines``).

Runs under the TARGET's interpreter, stdlib only; keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import functools
import time
from typing import Any

#: the second run's shift: a year, five weeks, three hours, seven minutes and a half
SHIFT = (400 * 86400) + (3 * 3600) + (7 * 60) + 13.5
_WITHOUT_TIME = ("localtime", "gmtime", "ctime")  # given no seconds, they read the clock


def install_clock(shift: float) -> None:
    """Make the ``time`` module's wall clock tell ``shift`` seconds later (before the
    module under test is imported, so that ``from time import time`` binds it too)."""
    real_time, real_localtime = time.time, time.localtime
    real_ns = time.time_ns

    def shifted_time() -> float:
        return real_time() + shift

    def shifted_ns() -> int:
        return real_ns() + int(shift * 1_000_000_000)

    time.time, time.time_ns = shifted_time, shifted_ns
    for name in _WITHOUT_TIME:
        setattr(time, name, _given_now(getattr(time, name), shifted_time))
    real_asctime, real_strftime = time.asctime, time.strftime

    def asctime(*args: Any) -> str:
        return real_asctime(*args) if args else real_asctime(real_localtime(shifted_time()))

    def strftime(format: str, *args: Any) -> str:
        return (
            real_strftime(format, *args)
            if args
            else real_strftime(format, real_localtime(shifted_time()))
        )

    time.asctime, time.strftime = asctime, strftime


def _given_now(original: Any, now: Any) -> Any:
    @functools.wraps(original)
    def shifted(*args: Any) -> Any:
        if not args or args[0] is None:
            return original(now())
        return original(*args)

    return shifted
