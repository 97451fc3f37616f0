"""pytest-xdist kept from sending the tests to other processes.

``-n`` in a project's addopts is common. The runner's plugin measures in this
process (coverage contexts, shuffled orders, forked isolation), and a mutant
is switched on in the worker's processes only: the tests must run here, as in
the mutation worker's reference run (``--verify``).
"""

from __future__ import annotations

from typing import Any

import pytest


def keep_in_process(config: Any) -> None:
    """Switch pytest-xdist's distribution off; call before xdist's ``pytest_configure``
    (``trylast``) starts its workers."""
    option = config.option
    if getattr(option, "dist", "no") != "no" or getattr(option, "tx", None):
        option.dist = "no"
        option.tx = []


class SingleProcess:
    """A plugin object that keeps pytest-xdist's workers from starting."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: Any) -> None:  # before xdist's (trylast) starts them
        keep_in_process(config)
