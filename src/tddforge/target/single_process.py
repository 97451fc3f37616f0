"""The tests kept in one process: not sent to pytest-xdist's workers, nor run on by a copy.

``-n`` in a project's addopts is common. The runner's plugin measures in this
process (coverage contexts, shuffled orders, forked isolation), and a mutant
is switched on in the worker's processes only: the tests must run here, as in
the mutation worker's reference run (``--verify``).

A test whose code forks a child that raises instead of exec'ing or exiting
leaves a copy of this process that unwinds into pytest and would run the
rest of the session beside it (``processes.stray``): that copy ends as soon
as pytest reports its test. The report is the first hook after the test, and
pytest-forked's children, which run tests for their parent, never log theirs.
"""

from __future__ import annotations

from typing import Any

import pytest

from .processes import end_if_stray


def keep_in_process(config: Any) -> None:
    """Switch pytest-xdist's distribution off; call before xdist's ``pytest_configure``
    (``trylast``) starts its workers."""
    option = config.option
    if getattr(option, "dist", "no") != "no" or getattr(option, "tx", None):
        option.dist = "no"
        option.tx = []


class SingleProcess:
    """A plugin object that keeps pytest-xdist's workers from starting, and ends strays."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: Any) -> None:  # before xdist's (trylast) starts them
        keep_in_process(config)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: Any) -> None:
        """End a copy of this process that a test forked and that came back into pytest."""
        end_if_stray()
