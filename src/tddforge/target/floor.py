"""The floor of a mutant's cost here: fork a collected session, run one test, report.

``floor CONFIG OUT``: the request's tests are collected once, as for the
worker's collector; then one child per test is forked, runs that test through
pytest's runtest protocol (``run_items``) and reports on a pipe, first one at a
time, then ``workers`` at a time. No mutant is switched on: what a mutant's
child cannot do without. ``OUT`` gets the seconds per child alone and the
wall seconds per child with every worker busy (times the workers: core
seconds per child).
"""

from __future__ import annotations

import gc
import json
import os
import time
from typing import Any, Callable

import pytest

from .hosting import Starter, run_items, settle
from .processes import Pool, quiet
from .protocol import ChildVerdict, WorkerConfig

CHILDREN = 200


class FloorPlugin:
    """Never runs a test itself: forks the children, measures, writes ``out``, ends."""

    def __init__(self, out: str, workers: int):
        self.out = out
        self.workers = workers

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        """Fork the children one at a time, then ``workers`` at a time; write the figures."""
        items = list(session.items)
        settle(items)
        gc.collect()
        gc.freeze()
        alone = _per_child(items, 1)
        busy = _per_child(items, self.workers)
        with open(self.out, "w", encoding="utf-8") as handle:
            json.dump({"alone": alone, "busy": busy, "workers": self.workers}, handle)
        os._exit(0)


def _per_child(items: list[Any], workers: int) -> float:
    pool: Pool[int] = Pool(workers)
    started = time.perf_counter()

    def ignore(key: int, result: ChildVerdict) -> None:
        return None

    for index in range(CHILDREN):
        pool.submit(index, 60.0, _one(items[index % len(items)]), ignore)
    pool.drain(ignore)
    return (time.perf_counter() - started) / CHILDREN


def _one(item: Any) -> Callable[[], ChildVerdict]:
    return lambda: run_items([item])


def main(argv: list[str]) -> int:
    """``floor CONFIG OUT``."""
    with open(argv[1], encoding="utf-8") as handle:
        config: WorkerConfig = json.load(handle)
    quiet()
    starter = Starter(config)
    starter.main(FloorPlugin(argv[2], int(config.get("workers", 1))))
    return 0
