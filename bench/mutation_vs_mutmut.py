"""mutmut 3.8.1 and tddforge's mutation engine, side by side on toolz (one module, or all of it).

Usage: python bench/mutation_vs_mutmut.py [--targets DIR] [--rounds N] [--workers N]
       python bench/mutation_vs_mutmut.py --project [--cosmic-seconds S] [--cosmic-venv V] [...]

DIR is what ../shared/bench/fetch_targets.sh downloaded (default ./bench-targets;
it is fetched when missing). mutmut gets its own venv under DIR, and that venv's
interpreter runs the tests for both tools (``tddforge mutate --python``), so
both use the same Python, pytest and plugins. Each round runs mutmut (from a
clean state) and ``tddforge mutate --no-cache`` alternately on separate copies
of the same sdist, with the same worker count, and times one plain pytest run
of the test file. The script prints both mutant counts and scores and two
rates with their ratios (medians over the rounds):

- whole run: mutants / wall time of everything each tool does for a run;
- mutant phase: mutmut's own "mutations/second" (the mutants it tried over the
  time after its generation, stats and clean-test steps) against ours over the
  worker's time after its baseline (``mutant_seconds`` in the JSON report).

Then, in one process, it times a cold run against a warm re-score after one
test was added to the test file. It is a measurement, not a test.

With ``--project`` both tools mutate the whole ``toolz`` package against its
whole suite (its pytest testpaths, ``toolz``); ``--package boltons`` takes boltons
instead, with its ``tests``. The script also measures the floor of a
mutant's cost (a child forked from the collected session running one test,
``mutation.floor``) beside ours per mutant, re-runs ``tddforge mutate`` with
its cache after a body edit of one module (what ran again, what was reused),
and gives cosmic-ray ``S`` seconds on the same package (how far it got, or its
figures when it finished).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULE = "toolz/dicttoolz.py"
TESTS = "toolz/tests/test_dicttoolz.py"
MUTMUT_CONFIG = f"""
[tool.mutmut]
source_paths = ["toolz/"]
only_mutate = ["{MODULE}"]
pytest_add_cli_args_test_selection = ["{TESTS}"]
"""
NEW_TEST = """

def test_bench_added_test():
    assert merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
"""


def fetch(targets: Path, sdist: str = "toolz-1.2.0") -> Path:
    """The unpacked sdist, fetched with the shared script when missing."""
    source = targets / "src" / sdist
    if not source.is_dir():
        script = HERE.parent.parent / "shared" / "bench" / "fetch_targets.sh"
        subprocess.run(["bash", str(script), str(targets)], check=True)
    return source


def mutmut_venv(targets: Path) -> Path:
    """A venv with mutmut 3.8.1 and pytest, created once."""
    venv = targets / "mutmut-venv"
    mutmut = venv / "bin" / "mutmut"
    if not mutmut.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "-q", "mutmut==3.8.1", "pytest"]
        subprocess.run(pip, check=True)
    return mutmut


def run_mutmut(mutmut: Path, work: Path, workers: int) -> tuple[float, float, Counter[str]]:
    """One clean mutmut run: wall seconds, its own mutations/second, verdict counts."""
    shutil.rmtree(work / "mutants", ignore_errors=True)
    started = time.perf_counter()
    out = subprocess.run(
        [str(mutmut), "run", "--max-children", str(workers)],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wall = time.perf_counter() - started
    rate = float(re.findall(r"([0-9.]+) mutations/second", out)[-1])
    listing = subprocess.run(
        [str(mutmut), "results", "--all", "true"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = Counter(line.rsplit(":", 1)[1].strip() for line in listing.splitlines() if ":" in line)
    return wall, rate, counts


def run_ours(work: Path, workers: int, python: Path) -> tuple[float, dict]:  # type: ignore[type-arg]
    """One cold ``tddforge mutate`` run: wall seconds and its JSON report."""
    command = [sys.executable, "-m", "tddforge", "mutate", MODULE, "--tests", TESTS]
    command += ["--no-cache", "--json", "--workers", str(workers), "--python", str(python)]
    started = time.perf_counter()
    out = subprocess.run(command, cwd=work, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, json.loads(out)


def run_plain(work: Path, python: Path, tests: str = TESTS) -> float:
    """Wall seconds of one plain pytest run of the tests: a floor for any engine's run."""
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", tests]
    started = time.perf_counter()
    subprocess.run(command, cwd=work, capture_output=True, check=True)
    return time.perf_counter() - started


def mutmut_score(counts: Counter[str]) -> float:
    """mutmut's killed / (killed + survived + timeout), in percent."""
    judged = counts["killed"] + counts["survived"] + counts["timeout"]
    return 100.0 * counts["killed"] / judged if judged else 0.0


def warm_vs_cold(work: Path, workers: int, rounds: int, python: Path) -> tuple[float, float]:
    """Median cold run against median warm re-score after adding one test (same process)."""
    from tddforge.config import Settings
    from tddforge.mutation.cache import VerdictCache
    from tddforge.mutation.engine import MutationJob, WarmWorker, score

    settings = Settings()
    job = MutationJob(work, work / MODULE, (TESTS,), python, workers=workers)
    test_file = work / TESTS
    original = test_file.read_text()
    colds, warms = [], []
    with WarmWorker(work, python, settings) as warm:
        for _ in range(rounds):
            cache = VerdictCache(Path(tempfile.mkdtemp()) / "cache")
            test_file.write_text(original)
            started = time.perf_counter()
            score(job, settings, cache=cache)
            colds.append(time.perf_counter() - started)
            warm.score(job, cache=cache)  # the loop's previous scoring, warm
            test_file.write_text(original + NEW_TEST)
            started = time.perf_counter()
            warm.score(job, cache=cache)
            warms.append(time.perf_counter() - started)
    test_file.write_text(original)
    return statistics.median(colds), statistics.median(warms)


def main() -> None:
    """Run the comparison and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=Path, default=Path("bench-targets"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--project", action="store_true", help="a whole package")
    parser.add_argument(
        "--package", default="toolz", choices=("toolz", "boltons"), help="with --project"
    )
    parser.add_argument("--cosmic-seconds", type=float, default=300.0)
    parser.add_argument("--cosmic-venv", type=Path, help="default: DIR/cosmic-ray-venv")
    args = parser.parse_args()
    if args.project:
        from project_bench import TARGETS, run_project_bench  # beside this script

        target = TARGETS[args.package]
        source = fetch(args.targets.resolve(), target.sdist)
        mutmut = mutmut_venv(args.targets.resolve())
        args.cosmic_venv = args.cosmic_venv or args.targets / "cosmic-ray-venv"
        run_project_bench(target, source, mutmut, args)
        return
    source = fetch(args.targets.resolve())
    mutmut = mutmut_venv(args.targets.resolve())
    scratch = Path(tempfile.mkdtemp(prefix="mutbench-"))
    theirs, ours = scratch / "mutmut", scratch / "tddforge"
    shutil.copytree(source, theirs)
    shutil.copytree(source, ours)
    with (theirs / "pyproject.toml").open("a") as handle:
        handle.write(MUTMUT_CONFIG)
    python = mutmut.parent / "python"  # the tests' interpreter, for both tools
    m_walls, m_rates, o_walls, o_rates, plains = [], [], [], [], []
    m_counts: Counter[str] = Counter()
    o_report: dict = {}  # type: ignore[type-arg]
    for round_no in range(args.rounds):
        wall, rate, m_counts = run_mutmut(mutmut, theirs, args.workers)
        m_walls.append(wall)
        m_rates.append(rate)
        wall, o_report = run_ours(ours, args.workers, python)
        o_walls.append(wall)
        o_rates.append(o_report["mutants"] / o_report["mutant_seconds"])
        plains.append(run_plain(ours, python))
        print(
            f"round {round_no + 1}: mutmut {m_walls[-1]:.2f} s, tddforge {o_walls[-1]:.2f} s, "
            f"plain pytest {plains[-1]:.2f} s",
            flush=True,
        )
    med = statistics.median
    m_total, o_total = sum(m_counts.values()), o_report["mutants"]
    m_rate, o_rate = m_total / med(m_walls), o_total / med(o_walls)
    print(
        f"target: {MODULE} with {TESTS} ({o_report['tests']} tests), {args.workers} workers, "
        f"{args.rounds} rounds, tests run by {python}"
    )
    print(
        f"mutmut 3.8.1 : {m_total} mutants, score {mutmut_score(m_counts):.2f}% {dict(m_counts)}, "
        f"median wall {med(m_walls):.2f} s, {m_rate:.1f} mutants/s; "
        f"mutant phase {med(m_rates):.1f} mutants/s"
    )
    print(
        f"tddforge     : {o_total} mutants, score {o_report['score']:.2f}% {o_report['counts']}, "
        f"median wall {med(o_walls):.2f} s, {o_rate:.1f} mutants/s; "
        f"mutant phase {med(o_rates):.1f} mutants/s"
    )
    print(
        f"ratio (tddforge / mutmut mutants per second): whole run {o_rate / m_rate:.2f}x, "
        f"mutant phase {med(o_rates) / med(m_rates):.2f}x"
    )
    print(
        f"10x mutmut's whole-run rate means {o_total} mutants in {o_total / (10 * m_rate):.2f} s; "
        f"one plain pytest run of the test file takes {med(plains):.2f} s"
    )
    cold, warm = warm_vs_cold(ours, args.workers, args.rounds, python)
    print(
        f"cold run {cold:.2f} s, warm re-score after adding one test {warm:.2f} s: warm/cold = {warm / cold:.2f}"
    )


if __name__ == "__main__":
    main()
