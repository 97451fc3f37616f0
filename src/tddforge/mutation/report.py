"""The mutation report: scores, survivors with their diffs, and renderings (JSON, Markdown, chart data).

score  = killed / (killed + survived + timeout)
strict = killed / (killed + survived + timeout + no-coverage)
Errors (a mutant the worker could not judge) are counted but excluded from both.
The score without likely-equivalent survivors (``equivalence``) leaves them out
of the score's denominator; it is given beside the score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from tddforge.mutation.equivalence import likely_equivalent
from tddforge.mutation.mutant import Mutant, diff_line


@dataclass(frozen=True)
class MutantResult:
    """One mutant's verdict."""

    mutant: Mutant
    verdict: str
    killer: str | None = None
    ran: tuple[str, ...] = ()
    duration: float = 0.0
    reused: bool = False
    detail: str | None = None
    cpu: float = 0.0  # its child's CPU seconds (0 when reused)


@dataclass
class MutationReport:
    """Everything one scoring run found."""

    module: str
    source: str
    results: list[MutantResult]
    tests: int
    elapsed: float
    warnings: list[str] = field(default_factory=list)
    baseline_seconds: float = 0.0  # the passing tests' run time at baseline
    collect_seconds: float = 0.0
    test_seconds: dict[str, float] = field(default_factory=dict)  # passing test -> run time
    test_lines: dict[str, tuple[int, ...]] = field(default_factory=dict)  # test -> lines run
    collect_lines: frozenset[int] = frozenset()  # the module's lines run at collection
    # the worker's mutant phase: after the baseline, to the last verdict
    mutant_seconds: float = 0.0
    same_here: int = 0  # mutants not made: they keep an interpreter gate's value (``gates``)
    python_version: str = ""
    _equivalent: dict[str, str] | None = field(default=None, repr=False, compare=False)

    @property
    def counts(self) -> Counter[str]:
        """Mutants per verdict."""
        return Counter(r.verdict for r in self.results)

    @property
    def score(self) -> float | None:
        """killed / (killed + survived + timeout), in percent; None when nothing was judged."""
        return score_of(self.counts)

    @property
    def strict_score(self) -> float | None:
        """As ``score``, with no-coverage mutants counted as survivors."""
        return score_of(self.counts, strict=True)

    @property
    def survivors(self) -> list[MutantResult]:
        """Survived and uncovered mutants, in source order."""
        return [r for r in self.results if r.verdict in ("survived", "no-coverage")]

    @property
    def alive(self) -> list[MutantResult]:
        """Every mutant not killed and judged: survived, uncovered or timed out, in source order."""
        return [r for r in self.results if r.verdict in ("survived", "no-coverage", "timeout")]

    def strict_score_without(self, ids: Collection[str]) -> float | None:
        """``strict_score`` leaving out the mutants named in ``ids`` that were not killed
        (claimed equivalent, say); a killed one still counts."""
        left = [r for r in self.results if r.verdict == "killed" or r.mutant.id not in ids]
        judged = [r for r in left if r.verdict in ("killed", "survived", "timeout", "no-coverage")]
        killed = sum(r.verdict == "killed" for r in judged)
        return 100.0 * killed / len(judged) if judged else None

    def likely_equivalent(self) -> dict[str, str]:
        """Survivor id → why it is likely equivalent (``equivalence``); still a survivor."""
        if self._equivalent is None:
            survived = [r.mutant for r in self.results if r.verdict == "survived"]
            self._equivalent = likely_equivalent(survived, self.source)
        return self._equivalent

    def score_without_equivalent(self) -> float | None:
        """``score`` with the likely-equivalent survivors left out."""
        return score_of(self.counts, left_out=len(self.likely_equivalent()))

    def every_mutant(self) -> list[dict[str, Any]]:
        """Every mutant with its verdict, exact span, texts and killer (``--all``)."""
        return [
            {
                "module": self.module,
                "id": r.mutant.id,
                "operator": r.mutant.operator,
                "verdict": r.verdict,
                "line": r.mutant.line,
                "col": r.mutant.col,
                "end_line": r.mutant.end_line,
                "end_col": r.mutant.end_col,
                "original": r.mutant.original,
                "replacement": r.mutant.replacement,
                "killer": r.killer,
                "strategy": r.mutant.strategy,  # "graft": in a function body; else import time
                "seconds": round(r.duration, 4),  # its child's wall time (0 when reused)
                "cpu_seconds": round(r.cpu, 4),  # its child's CPU time: robust to the load
            }
            for r in self.results
        ]

    def to_data(self, every: bool = False) -> dict[str, Any]:
        """The report as plain data (the JSON output); with ``every``, every mutant listed."""
        equivalent = self.likely_equivalent()
        data: dict[str, Any] = {
            "module": self.module,
            "mutants": len(self.results),
            "tests": self.tests,
            "counts": {
                v: self.counts[v] for v in ("killed", "survived", "timeout", "no-coverage", "error")
            },
            "score": _round(self.score),
            "strict_score": _round(self.strict_score),
            "score_without_equivalent": _round(self.score_without_equivalent()),
            "likely_equivalent": len(equivalent),
            "elapsed": round(self.elapsed, 3),
            "mutants_per_second": round(len(self.results) / self.elapsed, 2)
            if self.elapsed
            else None,
            "mutant_seconds": round(self.mutant_seconds, 3),
            "reused": sum(r.reused for r in self.results),
            "survivors": [self._survivor(r, equivalent) for r in self.survivors],
            "errors": [
                {"id": r.mutant.id, "detail": r.detail}
                for r in self.results
                if r.verdict == "error"
            ],
            "warnings": self.warnings,
            "same_on_interpreter": self.same_here,
            "python_version": self.python_version,
            "chart": self.chart_data(),
        }
        if every:
            data["all_mutants"] = self.every_mutant()
        return data

    def survivor(self, result: MutantResult) -> dict[str, Any]:
        """A survivor as the reports show it: where, what, its diff, whether likely equivalent."""
        return self._survivor(result, self.likely_equivalent())

    def _survivor(self, result: MutantResult, equivalent: dict[str, str]) -> dict[str, Any]:
        before, after = diff_line(self.source, result.mutant)
        m = result.mutant
        return {
            "id": m.id,
            "verdict": result.verdict,
            "line": m.line,
            "operator": m.operator,
            "original": m.original,
            "replacement": m.replacement,
            "diff": f"- {before.strip()}\n+ {after.strip()}",
            "likely_equivalent": equivalent.get(m.id),
        }

    def chart_data(self) -> dict[str, Any]:
        """Per-operator and per-line verdict counts, for the HTML report's charts."""
        by_operator: dict[str, Counter[str]] = {}
        by_line: dict[int, Counter[str]] = {}
        for r in self.results:
            by_operator.setdefault(r.mutant.operator, Counter())[r.verdict] += 1
            by_line.setdefault(r.mutant.line, Counter())[r.verdict] += 1
        return {
            "by_operator": {k: dict(v) for k, v in sorted(by_operator.items())},
            "by_line": {str(k): dict(v) for k, v in sorted(by_line.items())},
        }

    def to_markdown(self) -> str:
        """A human summary with every survivor's diff."""
        c = self.counts
        lines = [
            f"# Mutation report: `{self.module}`",
            "",
            f"- mutants: {len(self.results)} (killed {c['killed']}, survived {c['survived']}, "
            f"timeout {c['timeout']}, no coverage {c['no-coverage']}, error {c['error']})",
            f"- score: {_pct(self.score)} (strict, counting no-coverage: {_pct(self.strict_score)})",
            f"- tests: {self.tests}; elapsed {self.elapsed:.1f} s",
            "",
        ]
        if self.same_here:
            lines += [same_here_note(self.same_here, self.python_version), ""]
        if self.survivors:
            lines += ["## Survivors", ""]
            equivalent = self.likely_equivalent()
            for r in self.survivors:
                s = self._survivor(r, equivalent)
                note = (
                    f"\n\nLikely equivalent: {s['likely_equivalent']}."
                    if s["likely_equivalent"]
                    else ""
                )
                lines += [
                    f"### line {s['line']}: {s['operator']} ({r.verdict}){note}",
                    "",
                    "```diff",
                    s["diff"],
                    "```",
                    "",
                ]
        return "\n".join(lines)


def score_of(counts: Counter[str], left_out: int = 0, strict: bool = False) -> float | None:
    """killed / (killed + survived + timeout), in percent, with ``left_out`` survivors not
    counted, and no-coverage counted as survived when ``strict``; None when nothing was
    judged."""
    judged = counts["killed"] + counts["survived"] - left_out + counts["timeout"]
    judged += counts["no-coverage"] if strict else 0
    return 100.0 * counts["killed"] / judged if judged else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}%"


def same_here_note(count: int, version: str) -> str:
    """Why ``count`` mutants were not made (``generate``, interpreter gates)."""
    return (
        f"{count} mutants not made: changes to interpreter checks (sys.version_info,"
        f" sys.platform, ...) that keep their value on Python {version}, and code in the"
        " branches those checks never take there."
    )
