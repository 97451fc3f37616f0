"""One cover-loop iteration's non-LLM work, tddforge's way and the seed's way (cosmic-ray), side by side.

Usage: python bench/cover_iteration.py [--targets DIR] [--target ID] [--cr-seconds S]

DIR is what ../shared/bench/fetch_targets.sh downloaded (default ../bench-targets);
ID a row of its targets.tsv (default jsonpointer). The module's upstream tests
play the generated suite. tddforge's iteration: static analysis of the test
file (syntax, ruff with C901, smells), one sandboxed pytest run under
coverage.py with branch data, and a cold mutation score (no cache). The seed's
iteration: the same pytest + coverage run, then cosmic-ray ``init`` + ``exec``
on the same module and tests (cosmic-ray gets its own venv under DIR). With
``--cr-seconds`` cosmic-ray's exec is stopped after S seconds and its whole-run
time is projected from the mutants it finished (said so in the output). It is
a measurement, not a test.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tddforge.analysis.static import analyze
from tddforge.config import Settings
from tddforge.mutation.engine import MutationJob, score
from tddforge.runner import run_pytest
from tddforge.sandbox import Limits, Sandbox

HERE = Path(__file__).resolve().parent


def target_row(targets: Path, wanted: str) -> dict[str, str]:
    """The targets.tsv row for ``wanted``."""
    for line in (targets / "targets.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        ident, folder, pythonpath, module, tests = line.split("\t")
        if ident == wanted:
            return {"dir": folder, "pythonpath": pythonpath, "module": module, "tests": tests}
    raise SystemExit(f"no target {wanted} in {targets / 'targets.tsv'}")


def cosmic_ray_venv(targets: Path) -> Path:
    """A venv with cosmic-ray and pytest, created once."""
    venv = targets / "cosmic-ray-venv"
    if not (venv / "bin" / "cosmic-ray").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "cosmic-ray", "pytest"], check=True
        )
    return venv


def ours(project: Path, row: dict[str, str]) -> tuple[float, dict[str, float | int | None]]:
    """tddforge: static analysis + pytest with coverage + cold mutation score."""
    settings = Settings()
    module = project / row["module"]
    started = time.perf_counter()
    static = analyze(
        (project / row["tests"]).read_text(),
        row["tests"],
        module_name=module.stem,
        module_source=module.read_text(),
        project=project,
        mypy=False,
    )
    sandbox = Sandbox(project, Limits.from_config(settings.sandbox, 600))
    run = run_pytest(
        project,
        python=sys.executable,
        sandbox=sandbox,
        paths=[row["tests"]],
        timeout=600,
        coverage_source=[str(module.parent)],
    )
    cov = run.coverage.file(row["module"]) if run.coverage else None
    job = MutationJob(
        project, module, (row["tests"],), Path(sys.executable), workers=2, use_cache=False
    )
    report = score(job, settings)
    elapsed = time.perf_counter() - started
    return elapsed, {
        "lint": static.lint_issue_count,
        "tests": run.passed,
        "coverage": round(cov.percent_covered, 2) if cov else None,
        "mutants": len(report.results),
        "score": round(report.score or 0.0, 2),
    }


def seeds_way(
    project: Path, row: dict[str, str], venv: Path, limit: float | None
) -> tuple[float, str]:
    """pytest + coverage, then cosmic-ray init + exec on the same module and tests."""
    python = venv / "bin" / "python"
    started = time.perf_counter()
    coverage = [sys.executable, "-m", "coverage", "run", "--branch"]
    pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", row["tests"]]
    subprocess.run([*coverage, *pytest], cwd=project, capture_output=True, check=False)
    config = project / "cr.toml"
    config.write_text(
        f'[cosmic-ray]\nmodule-path = "{row["module"]}"\ntimeout = 30.0\nexcluded-modules = []\n'
        f'test-command = "{python} -m pytest -x -q -p no:cacheprovider {row["tests"]}"\n'
        '[cosmic-ray.distributor]\nname = "local"\n'
    )
    session = project / "cr.sqlite"
    subprocess.run(
        [str(venv / "bin" / "cosmic-ray"), "init", str(config), str(session)],
        cwd=project,
        check=True,
        capture_output=True,
    )
    total = _count(session, "SELECT COUNT(*) FROM mutation_specs")
    exec_started = time.perf_counter()
    proc = subprocess.Popen(
        [str(venv / "bin" / "cosmic-ray"), "exec", str(config), str(session)],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    ran = time.perf_counter() - exec_started
    done = _count(session, "SELECT COUNT(*) FROM work_results")
    elapsed = time.perf_counter() - started
    if done >= total:
        return elapsed, f"{total} mutants, all run"
    projected = elapsed - ran + ran * total / max(done, 1)
    return (
        projected,
        f"{total} mutants, {done} run in {ran:.0f} s, whole run projected from that rate",
    )


def _count(session: Path, query: str) -> int:
    with sqlite3.connect(session) as db:
        return int(db.execute(query).fetchone()[0])


def main() -> None:
    """Parse the options, run both sides on copies of the sdist, print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=Path, default=HERE.parent.parent / "bench-targets")
    parser.add_argument("--target", default="jsonpointer")
    parser.add_argument("--cr-seconds", type=float, default=None)
    args = parser.parse_args()
    row = target_row(args.targets, args.target)
    venv = cosmic_ray_venv(args.targets)
    with tempfile.TemporaryDirectory(prefix="cover-bench-") as scratch:
        a, b = Path(scratch) / "ours", Path(scratch) / "seed"
        shutil.copytree(row["dir"], a)
        shutil.copytree(row["dir"], b)
        our_time, facts = ours(a, row)
        their_time, how = seeds_way(b, row, venv, args.cr_seconds)
    print(f"target {args.target}: {row['module']} with {row['tests']}")
    print(
        f"tddforge iteration: {our_time:.2f} s (static {facts['lint']} lint issues, {facts['tests']} tests, "
        f"coverage {facts['coverage']}%, {facts['mutants']} mutants, score {facts['score']}%)"
    )
    print(f"seed's way (coverage.py + cosmic-ray): {their_time:.2f} s ({how})")
    print(f"ratio: {their_time / our_time:.1f}x faster")


if __name__ == "__main__":
    main()
