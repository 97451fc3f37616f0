"""``tddforge cover``: generate, measure, critique, enhance; then the final suite from what helped.

Attempt 0 is the Generator's suite; each later attempt is the Enhancer's
revision of the previous one. Every attempt goes through static analysis,
pre-execution reliability, the runner (reruns, coverage, mutation),
post-execution reliability and the Supervisor's critique; the Router then
says ENHANCE or FINISH. The final file is built from the best attempt: only
tests that pass every rerun, pass alone, and add coverage or kill a mutant.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tddforge.analysis.project import default_test_path, detect_framework, import_name
from tddforge.analysis.static import StaticReport
from tddforge.compat import tomllib
from tddforge.config import Settings
from tddforge.cover_contract import CoverTarget, GeneratedSuite, TestSuiteGenerator
from tddforge.decisions import cover_suite as suites
from tddforge.decisions.critique import AttemptFacts, FailingTest, Survivor, critique
from tddforge.decisions.instructions import instruction_block, survivors_to_show
from tddforge.decisions.reliability import StaticFacts, post_execution, pre_execution
from tddforge.decisions.router import (
    ENHANCE,
    decide,
    finish_reason,
    progress_note,
    stop_detail,
    track_progress,
)
from tddforge.errors import BudgetExceeded, InputError, LLMError
from tddforge.llm import LLMClient
from tddforge.mutation.mutant import diff_line
from tddforge.mutation.report import MutationReport
from tddforge.orchestration.cover_equivalence import (
    check_claims,
    final_claims,
    likely_records,
    score_without,
)
from tddforge.orchestration.cover_final import Final, assemble, kills
from tddforge.orchestration.cover_lab import Checked, Measurement, SuiteLab
from tddforge.orchestration.cover_records import (
    Attempt,
    AttemptRecord,
    ClaimRecord,
    CoverReport,
    MutationCounts,
    SuspectedBug,
    TestsSeen,
)
from tddforge.outcome import BUDGET, Outcome
from tddforge.pysource import read_python, syntax_error
from tddforge.store.rundir import RunDir
from tddforge.types import Progress
from tddforge.workspace.paths import confine

MUTANT_COUNTS = ("killed", "survived", "timeout", "no-coverage", "error")
#: What the loop aims at when it aims for the best suite (``cover.aim_for_best``).
BEST = 100.0


@dataclass(frozen=True)
class CoverOptions:
    """What the user asked for."""

    project: Path
    module: Path
    python: Path
    test_path: str | None = None
    workers: int = 2


def load_target(options: CoverOptions) -> CoverTarget:
    """Check the module and describe it; ``InputError`` (nothing written) on bad input."""
    project = options.project.resolve()
    module = options.module if options.module.is_absolute() else Path.cwd() / options.module
    module = module.resolve()
    if not module.is_file():
        raise InputError(f"module not found: {options.module}")
    if module.suffix != ".py":
        raise InputError(f"not a Python module: {options.module}")
    if project not in module.parents:
        raise InputError(f"module {options.module} is outside the project {project}")
    try:
        source = read_python(module)
        ast.parse(source)
    except UnicodeDecodeError as exc:
        raise InputError(f"{options.module}: not {exc.encoding} text") from exc
    except SyntaxError as exc:
        raise InputError(f"{options.module}: {syntax_error(exc)}") from exc
    test_path = options.test_path or default_test_path(project, module)
    target_file = confine(project, test_path)
    if target_file == module or target_file.suffix != ".py":
        raise InputError(f"test output path must be a new .py file, not {test_path}")
    return CoverTarget(
        project=project,
        module_rel=module.relative_to(project).as_posix(),
        import_name=import_name(project, module),
        source=source,
        framework=detect_framework(project, exclude=target_file),
        test_path=target_file.relative_to(project).as_posix(),
        repo=project.name,
        version=_version(project),
    )


def _version(project: Path) -> str:
    try:
        data = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
        return str(data.get("project", {}).get("version", "unknown"))
    except (OSError, ValueError):
        return "unknown"


def run_cover(
    target: CoverTarget,
    writer: TestSuiteGenerator,
    client: LLMClient | None,
    settings: Settings,
    options: CoverOptions,
    progress: Progress,
) -> Outcome:
    """Generate, measure, critique and enhance until the Router finishes; write the final suite.

    The outcome's data is the run's report (also the run dir's ``cover.json``); the goal
    is both targets met by the final suite.
    """
    progress(f"{writer.name} generator: writing tests for {target.module_rel} ({target.framework})")
    # the project's pytest configuration is checked while the generator works
    with ThreadPoolExecutor(max_workers=1) as pool:
        config = pool.submit(Checked.make, target.project, options.python, settings)
        first = writer.generate(target)  # an unreachable endpoint fails here, before any write
        checked = config.result()
    run = RunDir.create(target.project, "cover")
    backup = _backup(target, run)
    lab = SuiteLab(target, options.python, settings, run, options.workers, checked)
    try:
        return _loop(_Session(target, writer, client, settings, lab, run, backup, progress), first)
    finally:
        lab.close()


def _backup(target: CoverTarget, run: RunDir) -> bytes | None:
    existing = target.project / target.test_path
    if not existing.is_file():
        return None
    data = existing.read_bytes()
    run.write_text(f"replaced/{target.test_path}", data.decode("utf-8", "replace"))
    return data


@dataclass(frozen=True)
class _Session:
    """What stays the same for a whole cover run: the target, the writer, the lab, the run dir."""

    target: CoverTarget
    writer: TestSuiteGenerator
    client: LLMClient | None
    settings: Settings
    lab: SuiteLab
    run: RunDir
    backup: bytes | None  # the test file's bytes before the run, when there was one
    progress: Progress


def _loop(session: _Session, suite: GeneratedSuite) -> Outcome:
    target, lab, run, progress = session.target, session.lab, session.run, session.progress
    settings, writer = session.settings, session.writer
    cfg = settings.cover
    if lab.config.note:
        progress(lab.config.note)
    run.event(
        "start",
        module=target.module_rel,
        framework=target.framework,
        pytest_config=lab.config.to_data(),
    )
    attempts: list[Attempt] = []
    stagnation, reason, detail = 0, "finished", ""
    memory = _Memory()
    while True:
        previous = attempts[-1] if attempts else None
        claims = check_claims(suite, previous.found.mutation if previous else None, len(attempts))
        for claim in claims:  # a claim made again keeps its first record
            if claim["accepted"]:
                memory.claims.setdefault(claim["id"], claim)
        attempt = _attempt(len(attempts), suite, lab, previous, stagnation, settings, memory)
        attempt.record["equivalence_claims"] = claims
        stagnation = attempt.critique.stagnation_count
        decision = decide(attempt.critique, len(attempts) + 1, cfg.max_iterations)
        attempt.record["decision"] = decision
        attempts.append(attempt)
        _save_attempt(run, attempt)
        progress(_attempt_line(attempt))
        if decision != ENHANCE:
            reason = finish_reason(attempt.critique, len(attempts), cfg.max_iterations)
            detail = stop_detail(reason, attempt.critique, len(attempts))
            break
        limit, shown = cfg.max_survivors_in_prompt, frozenset(memory.shown)
        block = instruction_block(attempt.critique, target.source, max_survivors=limit, shown=shown)
        memory.shown.update(
            s.id for s in survivors_to_show(attempt.critique.survivors, limit, shown)
        )
        mutation = attempt.found.mutation
        survivors = tuple(r.mutant for r in mutation.survivors) if mutation else ()
        try:
            suite = writer.enhance(
                target, attempt.found.code, block, survivors, killers=tuple(kills(attempt.found))
            )
        except LLMError as exc:  # a spent budget or a failed endpoint ends the loop, not the run
            reason = BUDGET if isinstance(exc, BudgetExceeded) else "llm_error"
            detail = str(exc)
            run.event("llm_error", error=str(exc))
            progress(f"stopping: {exc}")
            break
        if suite.exhausted and suite.code == attempt.found.code:  # nothing new to measure
            reason, detail = "generator_exhausted", suite.raw[:300]
            run.event("generator_exhausted", note=suite.raw[:300])
            progress(f"stopping: the {writer.name} generator has nothing to add ({suite.raw})")
            break
    progress("assembling the final suite: reruns, alone, coverage and mutants per test")
    final = assemble(attempts, lab, progress)
    report = _report(session, attempts, final, reason, detail, memory)
    run.write_data("cover.json", report)
    run.event("finish", stop_reason=reason, stop_detail=detail, final=report["final"])
    test_file = report["final"]["test_file"]
    files = (target.project / test_file,) if test_file else ()
    return Outcome("cover", bool(report["final"]["targets_met"]), reason, report, run.path, files)


@dataclass
class _Memory:
    """What the loop keeps between attempts for the prompts: the mutants shown so far, and
    the accepted equivalence claims by mutant id."""

    shown: set[str] = field(default_factory=set)
    claims: dict[str, ClaimRecord] = field(default_factory=dict)


def _attempt(
    index: int,
    suite: GeneratedSuite,
    lab: SuiteLab,
    previous: Attempt | None,
    stagnation: int,
    settings: Settings,
    memory: _Memory | None = None,
) -> Attempt:
    memory = memory or _Memory()
    cfg = settings.cover
    static = lab.analyze(suite.code)
    smells = sum(1 for s in static.smells)
    pre = pre_execution(
        suite.entropy, StaticFacts(static.syntax_ok, static.lint_issue_count, smells), cfg
    )
    found = lab.measure(suite.code, static)
    failing = [v for v in found.verdicts.values() if v.status != "stable"]
    success = found.ran and bool(found.stable)
    failure = (static.syntax_error and f"syntax error, {static.syntax_error}") or found.run_error
    post = post_execution(
        success=success,
        coverage=found.coverage_percent,
        mutation_score=found.mutation_score,
        failing_tests=len(failing),
        pre_level=pre.level,
        cfg=cfg,
        failure=failure,
    )
    facts = AttemptFacts(
        syntax_ok=static.syntax_ok,
        lint_issue_count=static.lint_issue_count,
        runner_error=found.run_error,
        tests_collected=found.collected,
        coverage=found.coverage_percent if found.ran else None,
        mutation_score=found.mutation_score,
        pre=pre,
        post=post,
        coverage_target=BEST if cfg.aim_for_best else cfg.coverage_target,
        mutation_target=BEST if cfg.aim_for_best else cfg.mutation_target,
        missing_lines=found.coverage.missing_lines if found.coverage else (),
        missing_branches=found.coverage.missing_branches if found.coverage else (),
        survivors=_survivors(found),
        failing=tuple(FailingTest(v.key, v.kind, f"[{v.status}] {v.message}") for v in failing),
        findings=_findings(static),
        likely_equivalent=found.mutation.likely_equivalent() if found.mutation else {},
        claimed_equivalent={k: c["reason"] for k, c in memory.claims.items()},
        previous_coverage=previous.critique.coverage if previous else None,
        previous_mutation=previous.critique.mutation_score if previous else None,
        first_attempt=previous is None,
    )
    judged = track_progress(critique(facts), stagnation)
    attempt = Attempt(index, suite, found, judged)
    attempt.record = _record(attempt, pre.to_data(), post.to_data())
    attempt.record["mutation_score_without_claimed"] = score_without(found.mutation, memory.claims)
    return attempt


def _findings(static: StaticReport) -> tuple[str, ...]:
    """The static checks' findings in the suite, one line each, in line order."""
    if static.syntax_error:
        return (f"syntax error: {static.syntax_error}",)
    issues = sorted([*static.lint, *static.types], key=lambda i: i.line)
    found = [f"line {i.line}: {i.tool} {i.code}: {i.message}" for i in issues]
    found += [f"line {s.line}: {s.kind} in {s.test}: {s.detail}" for s in static.smells]
    return tuple(found)


def _survivors(found: Measurement) -> tuple[Survivor, ...]:
    """Every mutant the attempt's tests did not kill: survived, uncovered or timed out."""
    if found.mutation is None:
        return ()
    out = []
    for result in found.mutation.alive:
        m = result.mutant
        before, after = diff_line(found.mutation.source, m)
        out.append(Survivor(m.line, m.operator, before, after, m.id, result.verdict))
    return tuple(out)


def _record(a: Attempt, pre: dict[str, Any], post: dict[str, Any]) -> AttemptRecord:
    f = a.found
    statuses = [v.status for v in f.verdicts.values()]
    line, branch = _line_and_branch(f)
    tests = TestsSeen(
        collected=f.collected,
        stable=statuses.count("stable"),
        flaky=statuses.count("flaky"),
        failing=statuses.count("failing"),
        broken=statuses.count("broken"),
        pollutes=statuses.count("pollutes"),
    )
    return {
        "attempt": a.index,
        "agent": "generator" if a.index == 0 else "enhancer",
        "coverage": f.coverage_percent if f.ran else None,
        "line_coverage": line,
        "branch_coverage": branch,
        "mutation_score": f.mutation_score,
        "mutation": _mutation_record(f.mutation),
        "tests": tests,
        "entropy": a.suite.entropy,
        "static": f.static.to_data(),
        "pre_reliability": pre,
        "post_reliability": post,
        "critique": a.critique.to_data(),
        "progress": progress_note(a.critique),
        "cost": a.suite.cost,
        "notes": list(f.notes),
    }


def _line_and_branch(found: Measurement | None) -> tuple[float | None, float | None]:
    """Line and branch coverage, each in percent (coverage.py's own figure mixes both)."""
    totals = found.coverage.totals if found and found.coverage else None
    if totals is None:
        return None, None
    return round(totals.line_percent, 2), round(totals.branch_percent, 2)


def _mutation_record(report: MutationReport | None) -> MutationCounts | None:
    if report is None:
        return None
    counts = {k: report.counts[k] for k in MUTANT_COUNTS}
    return {"counts": counts, "mutants": len(report.results), "elapsed": round(report.elapsed, 3)}


def _save_attempt(run: RunDir, a: Attempt) -> None:
    run.write_text(f"attempts/{a.index}/test_suite.py", a.found.code)
    run.write_text(f"attempts/{a.index}/reply.md", a.suite.raw)
    run.write_data(f"attempts/{a.index}/record.json", a.record)
    run.event(
        "attempt", **{k: a.record[k] for k in ("attempt", "coverage", "mutation_score", "decision")}
    )


def _attempt_line(a: Attempt) -> str:
    r = a.record
    cov = "n/a" if r["coverage"] is None else f"{r['coverage']:.2f}%"
    mut = "n/a" if r["mutation_score"] is None else f"{r['mutation_score']:.2f}%"
    gains = f"; {r['progress']}" if r["progress"] else ""
    return (
        f"attempt {a.index}: coverage {cov}, mutation {mut}, {r['tests']['stable']} stable test(s), "
        f"pre {r['pre_reliability']['level']}, post {r['post_reliability']['level']}{gains}"
        f" → {r['decision']}"
    )


def _suspected_bugs(attempts: list[Attempt]) -> list[SuspectedBug]:
    bugs: dict[str, SuspectedBug] = {}
    for a in attempts:
        for key, verdict in a.found.verdicts.items():
            if verdict.suspected_bug:
                bugs[key] = {
                    "test": key,
                    "attempt": a.index,
                    "kind": verdict.kind,
                    "message": verdict.message,
                    "source": suites.function_source(a.found.code, key),
                }
            elif verdict.status == "stable":
                bugs.pop(key, None)
    return list(bugs.values())


def _report(
    session: _Session,
    attempts: list[Attempt],
    final: Final,
    reason: str,
    detail: str,
    memory: _Memory,
) -> CoverReport:
    target, lab, run, client = session.target, session.lab, session.run, session.client
    settings, backup = session.settings, session.backup
    cfg = settings.cover
    found = final.source
    test_file = None
    if found is not None and final.kept:
        lab.write(found.code)
        test_file = target.test_path
        run.write_text("final_suite.py", found.code)
    else:
        _remove_suite(target, backup)
    cov = found.coverage_percent if found else None
    mut = found.mutation_score if found else None
    mutation = found.mutation if found else None
    met = (
        cov is not None
        and cov >= cfg.coverage_target
        and mut is not None
        and mut >= cfg.mutation_target
    )
    final.notes += lab.guard()
    line, branch = _line_and_branch(found)
    return {
        "module": target.module_rel,
        "project": str(target.project),
        "framework": target.framework,
        "targets": {
            "coverage": cfg.coverage_target,
            "mutation": cfg.mutation_target,
            "max_iterations": cfg.max_iterations,
        },
        "pytest_config": lab.config.to_data(),
        "attempts": [a.record for a in attempts],
        "stop_reason": reason,
        "stop_detail": detail,
        "final": {
            "test_file": test_file,
            "from_attempt": final.attempt,
            "coverage": cov,
            "line_coverage": line,
            "branch_coverage": branch,
            "mutation_score": mut,
            "mutation_score_without_claimed": score_without(mutation, memory.claims),
            "claimed_equivalent": final_claims(memory.claims, mutation),
            "likely_equivalent": likely_records(mutation),
            "targets_met": met,
            "tests_kept": final.kept if test_file else [],
            "tests_dropped": [{"test": k, "reason": v} for k, v in final.dropped.items()],
            "suspected_bugs": _suspected_bugs(attempts),
            "notes": final.notes,
        },
        "cost": {
            "total_llm_cost": round(client.total_cost, 6) if client else 0.0,
            "max_cost": settings.max_cost,
            "tokens": client.total_usage.total_tokens if client else 0,
        },
        "run_dir": str(run.path),
    }


def _remove_suite(target: CoverTarget, backup: bytes | None) -> None:
    path = target.project / target.test_path
    if backup is not None:
        path.write_bytes(backup)
    else:
        path.unlink(missing_ok=True)
