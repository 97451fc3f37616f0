"""The report of a run over many modules: a table per module, every survivor, totals.

Every score is killed / (killed + survived + timeout). The headline score
leaves likely-equivalent survivors out (``equivalence``); the score counting
them and the strict score (no-coverage as survived) are given beside it. With
``--since-ref`` only the changed lines' mutants ran, so every score is the
changed lines' score.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tddforge.mutation.report import MutationReport, same_here_note, score_of

VERDICTS = ("killed", "survived", "timeout", "no-coverage", "error")
SUMMARY_SURVIVORS = 200  # a GitHub step summary is capped at 1 MiB


@dataclass
class ProjectReport:
    """Everything one run over one or many modules found."""

    modules: list[MutationReport]
    tests: int
    elapsed: float
    mutant_seconds: float = 0.0  # the worker's mutant phase: after the baseline
    baseline_seconds: float = 0.0  # the worker's baseline phase: collection and traced run
    warnings: list[str] = field(default_factory=list)
    since_ref: str | None = None
    scope: str = "all"  # "functions": import-time code was not mutated
    strategies: dict[str, int] = field(default_factory=dict)  # mutants run per strategy
    python_version: str = ""  # the interpreter's, when gates were read with it

    def single(self) -> MutationReport:
        """The one module's report, with the run's warnings (a one-module run)."""
        report = self.modules[0]
        report.warnings.extend(self.warnings)
        return report

    @property
    def counts(self) -> Counter[str]:
        """Mutants per verdict, over every module."""
        total: Counter[str] = Counter()
        for module in self.modules:
            total.update(module.counts)
        return total

    @property
    def mutants(self) -> int:
        """How many mutants in all."""
        return sum(len(m.results) for m in self.modules)

    @property
    def same_here(self) -> int:
        """Mutants not made: changes that keep an interpreter gate's value (``gates``)."""
        return sum(m.same_here for m in self.modules)

    @property
    def likely_equivalent(self) -> int:
        """How many survivors are likely equivalent."""
        return sum(len(m.likely_equivalent()) for m in self.modules)

    def score(self, counting_equivalent: bool = False) -> float | None:
        """The headline score (likely-equivalent survivors left out, unless counted)."""
        return score_of(self.counts, 0 if counting_equivalent else self.likely_equivalent)

    @property
    def strict_score(self) -> float | None:
        """As the score counting likely-equivalent survivors, with no-coverage as survived."""
        return score_of(self.counts, strict=True)

    def rows(self) -> list[dict[str, Any]]:
        """One row per module with mutants: its counts and scores."""
        return [_row(m) for m in self.modules if m.results]

    def to_data(self, every: bool = False) -> dict[str, Any]:
        """The report as plain data (the JSON output); with ``every``, every mutant listed."""
        c = self.counts
        data: dict[str, Any] = {
            "modules": self.rows(),
            "totals": {
                "modules": len(self.modules),
                "mutants": self.mutants,
                "counts": {v: c[v] for v in VERDICTS},
                "score": _round(self.score()),
                "score_counting_equivalent": _round(self.score(counting_equivalent=True)),
                "strict_score": _round(self.strict_score),
                "likely_equivalent": self.likely_equivalent,
                "same_on_interpreter": self.same_here,
            },
            "python_version": self.python_version,
            "tests": self.tests,
            "since_ref": self.since_ref,
            "scope": self.scope,
            "elapsed": round(self.elapsed, 3),
            "mutants_per_second": round(self.mutants / self.elapsed, 2) if self.elapsed else None,
            "baseline_seconds": round(self.baseline_seconds, 3),
            "mutant_seconds": round(self.mutant_seconds, 3),
            "strategies": self.strategies,  # graft, rebind, fresh: how the mutants that ran ran
            "reused": sum(r.reused for m in self.modules for r in m.results),
            "survivors": [
                {"module": m.module, **m.survivor(r)} for m in self.modules for r in m.survivors
            ],
            "errors": [
                {"module": m.module, "id": r.mutant.id, "detail": r.detail}
                for m in self.modules
                for r in m.results
                if r.verdict == "error"
            ],
            "warnings": self.warnings,
        }
        if every:
            data["all_mutants"] = [row for m in self.modules for row in m.every_mutant()]
        return data

    def headline(self) -> str:
        """The score line: headline, counting equivalent, strict."""
        return (
            f"score {_pct(self.score())} ({_pct(self.score(counting_equivalent=True))} counting"
            f" {self.likely_equivalent} likely-equivalent survivors; strict {_pct(self.strict_score)})"
        )

    def to_markdown(self, limit: int | None = None) -> str:
        """The table, every survivor's diff (the first ``limit`` of them), and the totals."""
        c = self.counts
        lines = ["# Mutation report", ""]
        if self.since_ref:
            lines += [f"Only the lines changed since `{self.since_ref}` were mutated.", ""]
        if self.scope == "functions":
            lines += ["Only code that runs inside functions was mutated (`--scope functions`).", ""]
        if self.same_here:
            lines += [same_here_note(self.same_here, self.python_version), ""]
        lines += [
            f"**{self.headline()}**: {self.mutants} mutants in {len(self.rows())} modules,"
            f" {self.tests} tests, {self.elapsed:.1f} s",
            "",
            "| module | mutants | killed | survived | timeout | no coverage | score |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row in self.rows():
            k = row["counts"]
            lines.append(
                f"| `{row['module']}` | {row['mutants']} | {k['killed']} | {k['survived']} |"
                f" {k['timeout']} | {k['no-coverage']} | {_pct(row['score'])} |"
            )
        lines.append(
            f"| **total** | {self.mutants} | {c['killed']} | {c['survived']} | {c['timeout']} |"
            f" {c['no-coverage']} | {_pct(self.score())} |"
        )
        return "\n".join([*lines, "", *self._survivors_markdown(limit)])

    def _survivors_markdown(self, limit: int | None) -> list[str]:
        survivors = [(m, r) for m in self.modules for r in m.survivors]
        if not survivors:
            return []
        shown = survivors if limit is None else survivors[:limit]
        lines = ["## Survivors", ""]
        for module, result in shown:
            s = module.survivor(result)
            note = (
                f" — likely equivalent: {s['likely_equivalent']}" if s["likely_equivalent"] else ""
            )
            lines += [
                f"### `{module.module}` line {s['line']}: {s['operator']} ({result.verdict}){note}",
                "",
                "```diff",
                s["diff"],
                "```",
                "",
            ]
        if len(shown) < len(survivors):
            lines += [f"… and {len(survivors) - len(shown)} more (see the run's mutation.md)", ""]
        return lines


def _row(module: MutationReport) -> dict[str, Any]:
    c = module.counts
    return {
        "module": module.module,
        "mutants": len(module.results),
        "counts": {v: c[v] for v in VERDICTS},
        "score": _round(module.score_without_equivalent()),
        "score_counting_equivalent": _round(module.score),
        "likely_equivalent": len(module.likely_equivalent()),
        "chart": module.chart_data(),  # the HTML report's per-operator and per-line counts
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}%"
