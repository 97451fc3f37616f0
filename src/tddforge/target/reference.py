"""The reference run (``--verify``'s ground truth): one mutant the slow, obviously-correct way.

This fresh interpreter, the import hook, every test in file order under plain
``pytest -x``; nothing of the engine's shortcuts, only its CPU budget.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any, Tuple

import pytest

from .fresh import MutatedFinder
from .hosting import pytest_args
from .preimported import NOT_SWITCHABLE, forget_preimported, running_targets
from .processes import cpu_timer, limit_cpu, quiet
from .protocol import ChildVerdict, WorkerConfig
from .request import Module
from .single_process import SingleProcess
from .source import apply_mutant

# CPU seconds, start-up seconds, and the phase the budget counts from
Limits = Tuple[float, float, str]


class VerdictPlugin:
    """Notes the first failing test (or collection error) of a fresh run."""

    def __init__(self) -> None:
        self.killer: str | None = None
        self.ran = 0

    def pytest_collectreport(self, report: Any) -> None:
        """A failed collection is the killer, if nothing failed before."""
        if report.failed and self.killer is None:
            self.killer = f"collection: {report.nodeid}"

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Count the tests run; the first failing one is the killer."""
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.ran += 1
        if report.failed and self.killer is None:
            self.killer = report.nodeid


class CpuBudget:
    """Starts the reference run's CPU budget when collection starts (``"session"``) or when
    the tests do (``"tests"``), as the engine's children count theirs."""

    def __init__(self, seconds: float, phase: str):
        self.seconds = seconds
        self.phase = phase

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: Any) -> None:
        """Start a ``"session"`` budget."""
        if self.phase == "session":
            cpu_timer(self.seconds)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> None:
        """Start a ``"tests"`` budget."""
        if self.phase == "tests":
            cpu_timer(self.seconds)


def reference_child(
    config: WorkerConfig,
    target: str,
    mutated: str,
    nodeids: list[str],
    budget: CpuBudget | None = None,
) -> ChildVerdict:
    """The ground truth's run: plain ``pytest -x`` over ``nodeids`` in file order, with
    ``target`` served as ``mutated``; nothing of ours but the CPU ``budget``."""
    if running_targets([target]):  # pytest imported it as it started, before our hook
        return {"verdict": "error", "detail": NOT_SWITCHABLE, "ran": 0}
    forget_preimported([target])  # else the tests reuse what pytest imported for itself
    sys.meta_path.insert(0, MutatedFinder(target, mutated))
    plugin = VerdictPlugin()
    plugins: list[Any] = [plugin, SingleProcess()] + ([] if budget is None else [budget])
    try:
        code = pytest.main(pytest_args(config, ["-x", *nodeids]), plugins=plugins)
    except Exception:  # a test broke pytest itself (closed its descriptors): it failed first
        if plugin.killer is None:
            raise
    if plugin.killer is not None:
        return {"verdict": "killed", "killer": plugin.killer, "ran": plugin.ran}
    if int(code) not in (0, 5):
        return {"verdict": "killed", "killer": f"pytest exit {int(code)}", "ran": plugin.ran}
    return {"verdict": "survived", "ran": plugin.ran}


def ground_truth(
    config: WorkerConfig, mutant_id: str, out: str, limits: Limits | None
) -> ChildVerdict:
    """One mutant in this fresh interpreter, all tests in file order: the reference verdict.

    With ``limits`` (CPU seconds, start-up seconds, phase), the run gets that
    much CPU time from the start of the phase (``"session"``: collection;
    ``"tests"``: the first test), and the start-up seconds before it; running
    out is a timeout, the rule by which the engine calls a mutant slow.
    """
    budget = None if limits is None else _budget(out, limits)
    (m,) = [m for m in config["mutants"] if m["id"] == mutant_id]
    target = m.get("target") or config["target"]
    module = Module.read(target)  # as the host read it: no byte order mark
    mutated = apply_mutant(module.source, module.offsets, m)
    quiet()
    return reference_child(config, target, mutated, list(config["tests"]), budget)


def _budget(out: str, limits: Limits) -> CpuBudget:
    """Write a timeout verdict to ``out`` and end when the CPU time runs out."""
    cpu_limit, startup, phase = limits

    def out_of_time(signum: int, frame: Any) -> None:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"verdict": "timeout"}, handle)
        os._exit(0)

    signal.signal(signal.SIGXCPU, out_of_time)
    signal.signal(signal.SIGPROF, out_of_time)
    limit_cpu(startup, backstop=startup + cpu_limit)
    return CpuBudget(cpu_limit, phase)


def main(argv: list[str]) -> int:
    """``reference CONFIG ID OUT [CPU STARTUP PHASE]``: write the reference verdict to ``OUT``.

    Its own entry, so the interpreter it starts (one per mutant) imports only what
    the reference run needs, not the worker's phases.
    """
    args = argv[1:]
    with open(args[0], encoding="utf-8") as handle:
        config = json.load(handle)
    limits = (float(args[3]), float(args[4]), args[5]) if len(args) > 5 else None
    result = ground_truth(config, args[1], args[2], limits)
    with open(args[2], "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0
