"""The second run's wall clock is a year and some later; a duration is what it was."""

from __future__ import annotations

import time

import pytest

from tddforge.target.clock import SHIFT, install_clock


def test_the_time_modules_wall_clock_tells_a_later_time() -> None:
    real = (time.time(), time.strftime("%Y"), time.localtime(0), time.gmtime(86400))
    install = pytest.MonkeyPatch()  # put back in the end, whatever failed
    try:
        for name in ("time", "time_ns", "localtime", "gmtime", "ctime", "asctime", "strftime"):
            install.setattr(time, name, getattr(time, name))
        install_clock(SHIFT)
        now = time.time()
        assert SHIFT - 5 < now - real[0] < SHIFT + 5
        assert SHIFT - 5 < time.time_ns() / 1e9 - real[0] < SHIFT + 5
        assert time.strftime("%Y") != real[1]  # 400 days on: another year
        assert time.localtime().tm_year != time.localtime(real[0]).tm_year
        assert time.gmtime(None).tm_year == time.gmtime(now).tm_year
        year = time.ctime(real[0])[-4:]
        assert time.ctime()[-4:] != year and time.asctime()[-4:] != year
        # given a time, they tell that time
        assert (time.localtime(0), time.gmtime(86400)) == real[2:]
        assert time.strftime("%Y", time.gmtime(0)) == "1970"
        start = time.time()
        assert 0 <= time.time() - start < 5  # a duration is unchanged
    finally:
        install.undo()
    assert abs(time.time() - real[0]) < 60
