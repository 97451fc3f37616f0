"""The coverage-guided search: rounds of exploration within a time budget.

Round 0 runs the planned calls (:func:`tddforge.builtin.explore.plan_calls`).
Each later round runs the untried *neighbours* of the calls kept so far (one
argument mutated at a time, staying within its hint) and keeps those that
reach new arcs. The search stops when a round keeps nothing (coverage has
stopped rising), when there is nothing untried left, or when the budget is
spent; it says which.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tddforge.builtin.constants import Constant
from tddforge.builtin.discover import CallableInfo, ModuleInfo, Param
from tddforge.builtin.explore import Arc, Call, CallResult, keep_new_coverage, plan_calls, run_calls
from tddforge.builtin.values import fits, mutations, parse_hint
from tddforge.sandbox import Sandbox

MAX_ROUNDS = 6
_POSITIONAL = ("positional_only", "positional_or_keyword")


@dataclass(frozen=True)
class SearchResult:
    """The calls kept (each reached new arcs), the arcs reached, and why the search stopped."""

    kept: tuple[CallResult, ...]
    covered: frozenset[Arc]
    rounds: int
    calls_run: int
    stopped: str  # "coverage stopped rising", "nothing left to try", "budget spent", "round limit"
    seen: tuple[CallResult, ...] = ()  # every result, kept or not (the mutant phase's pool)


def neighbours(call: Call, func: CallableInfo) -> list[Call]:
    """``call`` with one argument replaced by each of its mutations that fits the hint."""
    positional = [p for p in func.parameters if p.kind in _POSITIONAL]
    by_name = {p.name: p for p in func.parameters}
    found: list[Call] = []
    for i, source in enumerate(call.args):
        param = positional[i] if i < len(positional) else None
        for value in _mutated(source, param):
            found.append(replace(call, args=(*call.args[:i], value, *call.args[i + 1 :])))
    for i, (name, source) in enumerate(call.kwargs):
        for value in _mutated(source, by_name.get(name)):
            kwargs = (*call.kwargs[:i], (name, value), *call.kwargs[i + 1 :])
            found.append(replace(call, kwargs=kwargs))
    return list(dict.fromkeys(found))


def _mutated(source: str, param: Param | None) -> list[str]:
    hint = parse_hint(param.annotation) if param is not None else None
    value = ast.literal_eval(source)
    return [repr(m) for m in mutations(value) if fits(hint, m) and repr(m) != source]


def search(
    project: Path,
    module: Path,
    info: ModuleInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    *,
    python: Path,
    sandbox: Sandbox,
    budget: float = 20.0,
    first: Sequence[Call] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> SearchResult:
    """Search within ``budget`` seconds; ``first`` replaces the planned round 0 (for tests)."""
    deadline = clock() + budget
    funcs = {f.qualname: f for f in info.callables()}
    kept: list[CallResult] = []
    seen: list[CallResult] = []
    covered: frozenset[Arc] = frozenset()
    tried: set[Call] = set()
    batch = list(first) if first is not None else plan_calls(info, mined)
    for rounds in range(MAX_ROUNDS):
        left = deadline - clock()
        if left <= 0:
            return SearchResult(
                tuple(kept), covered, rounds, len(tried), "budget spent", tuple(seen)
            )
        if not batch:
            return SearchResult(
                tuple(kept), covered, rounds, len(tried), "nothing left to try", tuple(seen)
            )
        tried.update(batch)
        # run_calls runs the batch twice: each run gets half of what is left
        results = run_calls(
            project, module, batch, python=python, sandbox=sandbox, timeout=max(left / 2, 1.0)
        )
        seen += results
        new, covered = keep_new_coverage(results, covered)
        kept += new
        if not new:
            stopped = "coverage stopped rising"
            return SearchResult(tuple(kept), covered, rounds + 1, len(tried), stopped, tuple(seen))
        batch = [c for c in _all_neighbours(new, funcs) if c not in tried]
    return SearchResult(tuple(kept), covered, MAX_ROUNDS, len(tried), "round limit", tuple(seen))


def _all_neighbours(results: Iterable[CallResult], funcs: Mapping[str, CallableInfo]) -> list[Call]:
    found: list[Call] = []
    for result in results:
        func = funcs.get(result.call.target)
        if func is not None:
            found += neighbours(result.call, func)
    return list(dict.fromkeys(found))
