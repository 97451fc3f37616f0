"""``mutation_vs_mutmut.py --project``: a whole package, mutmut and tddforge side by side.

Each round runs mutmut (from a clean state), ``tddforge mutate --no-cache`` and
``tddforge mutate --no-cache --scope functions`` (function bodies only: the kind of
mutant mutmut makes) alternately on separate copies of the sdist (toolz 1.2.0; or
boltons 24.0.0, which the engine was never profiled on), with the same worker
count, the tests run by mutmut's venv interpreter for both. Then: the floor of a
mutant's cost on this suite (``mutation.floor``) against ours per mutant (the
mutant phase's core seconds per mutant); a re-run with the cache after a body
edit of one module; and cosmic-ray, given a fixed number of seconds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mutation_vs_mutmut import mutmut_score, run_mutmut, run_plain


@dataclass(frozen=True)
class Target:
    """A package benched whole: where it lies in its sdist, its suite, and what the bench
    must do so that both tools can run that suite unchanged."""

    name: str
    sdist: str  # the directory fetch_targets.sh unpacks
    package: str  # the path both tools mutate
    tests: str  # the suite both tools run (its pytest testpaths)
    never_mutated: tuple[str, ...]  # the tests' globs inside the package, if any
    edited: str  # the module edited for the warm re-run
    edit: tuple[str, str]  # a body edit: the function's code changes, its behaviour does not
    mutmut_deselected: tuple[str, ...] = ()
    also_copy: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()  # what the tests import besides pytest
    # (file, old, new): the suite's own breakage under the pytest both tools run, fixed in
    # every copy alike
    patches: tuple[tuple[str, str, str], ...] = ()

    def mutmut_config(self) -> str:
        """The ``[tool.mutmut]`` table for this package."""
        args = ", ".join(f'"--deselect", "{t}"' for t in self.mutmut_deselected)
        return (
            "\n[tool.mutmut]\n"
            f'source_paths = ["{self.package}/"]\n'
            f"do_not_mutate = {json.dumps(list(self.never_mutated))}\n"
            f"also_copy = {json.dumps(list(self.also_copy))}\n"
            f"pytest_add_cli_args = [{args}]\n"
            f'pytest_add_cli_args_test_selection = ["{self.tests}"]\n'
        )


TARGETS = {
    "toolz": Target(
        name="toolz",
        sdist="toolz-1.2.0",
        package="toolz",
        tests="toolz",  # toolz/tests and toolz/sandbox/tests
        never_mutated=("toolz/tests/*", "toolz/sandbox/tests/*"),
        edited="toolz/dicttoolz.py",
        edit=(
            "    for d in dicts:\n        rv.update(d)\n",
            "    for d in dicts:\n        rv.update(d)\n        d = None\n",
        ),
        # Three tests cannot pass under mutmut: two check toolz's namespaces, where
        # mutmut's injected names show, and one reads the installed package's metadata,
        # which mutmut's copy lacks; mutmut runs without them. tlz is copied for test_tlz.
        mutmut_deselected=(
            "toolz/tests/test_curried.py::test_curried_namespace",
            "toolz/tests/test_curried.py::test_curried_operator",
            "toolz/tests/test_package.py::test_has_version",
        ),
        also_copy=("tlz/",),
    ),
    # Not profiled while the engine was tuned: the check that the ratio is not toolz's alone.
    "boltons": Target(
        name="boltons",
        sdist="boltons-24.0.0",
        package="boltons",
        tests="tests",
        never_mutated=(),
        edited="boltons/iterutils.py",
        edit=(
            "    size = _validate_positive_int(size, 'chunk size')\n",
            "    size = _validate_positive_int(size, 'chunk size')\n    size = size\n",
        ),
        # Four tests cannot pass under mutmut: three pickle a class, which mutmut's
        # trampoline renames, and one walks the stack, where the trampoline adds frames.
        mutmut_deselected=(
            "tests/test_namedutils.py::test_namedlist_pickle",
            "tests/test_namedutils.py::test_namedtuple_pickle",
            "tests/test_tbutils.py::test_contextual",
            "tests/test_typeutils.py::test_sentinel_pickle",
        ),
        also_copy=("pytest.ini",),
        # its conftest's hook takes py.path's ``path``, which pytest 9 no longer passes
        patches=(
            (
                "tests/conftest.py",
                "def pytest_ignore_collect(path, config):",
                "def pytest_ignore_collect(collection_path, config):",
            ),
            ("tests/conftest.py", "path.basename", "collection_path.name"),
        ),
    ),
}
COSMIC_CONFIG = """
[cosmic-ray]
module-path = "{package}"
timeout = 10.0
excluded-modules = {excluded}
test-command = "{python} -m pytest -x -q -p no:cacheprovider {tests}"

[cosmic-ray.distributor]
name = "local"
"""


def run_ours(
    target: Target, work: Path, workers: int, python: Path, *extra: str
) -> tuple[float, dict[str, Any]]:
    """One ``tddforge mutate`` of the package: wall seconds and its JSON report."""
    command = [sys.executable, "-m", "tddforge", "mutate", target.package, "--tests", target.tests]
    command += ["--json"]
    command += ["--workers", str(workers), "--python", str(python), *extra]
    started = time.perf_counter()
    out = subprocess.run(command, cwd=work, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, json.loads(out)


def floor(target: Target, work: Path, workers: int, python: Path) -> Any:
    """The floor of a mutant's cost on this suite (fork + one test)."""
    from tddforge.config import Settings
    from tddforge.mutation.engine import MutationJob
    from tddforge.mutation.floor import measure_floor

    module = work / target.package / "__init__.py"
    job = MutationJob(work, module, (target.tests,), python, workers=workers)
    return measure_floor(job, Settings())


def by_strategy(report: dict[str, Any], floor_seconds: float) -> str:
    """A child's median wall time for mutants in function bodies (what mutmut mutates too)
    and for import-time code, against the floor; and its median CPU time, which a busy
    machine does not stretch."""
    parts = []
    for strategy, what in (("graft", "in function bodies"), ("fresh", "in import-time code")):
        ran = [m for m in report["all_mutants"] if m["strategy"] == strategy and m["seconds"] > 0]
        if ran:
            median = statistics.median(m["seconds"] for m in ran)
            cpu = statistics.median(m.get("cpu_seconds", 0.0) for m in ran)
            parts.append(
                f"{len(ran)} mutants {what}: a child's median {1000 * median:.1f} ms "
                f"({median / floor_seconds:.2f}x the floor), {1000 * cpu:.1f} ms of CPU"
            )
    return "per strategy: " + "; ".join(parts)


def edit_one_module(
    target: Target, work: Path, workers: int, python: Path
) -> tuple[float, float, dict[str, Any]]:
    """A cached run, a body edit of one module, the re-run: both walls, the re-run's report."""
    shutil.rmtree(work / ".tddforge", ignore_errors=True)
    first, _ = run_ours(target, work, workers, python)
    path = work / target.edited
    original = path.read_text()
    old, new = target.edit
    assert old in original, f"the bench's edit no longer applies to {target.edited}"
    path.write_text(original.replace(old, new))
    try:
        again, report = run_ours(target, work, workers, python)
    finally:
        path.write_text(original)
    return first, again, report


def cosmic_ray(target: Target, work: Path, python: Path, seconds: float, venv: Path) -> str:
    """cosmic-ray on the package for at most ``seconds``: its figures, or how far it got
    (from its own ``venv``, created when missing)."""
    if not (venv / "bin" / "cosmic-ray").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "-q", "cosmic-ray"]
        subprocess.run(pip, check=True)
    config = work / "cosmic-ray.toml"
    config.write_text(
        COSMIC_CONFIG.format(
            package=target.package,
            tests=target.tests,
            python=python,
            excluded=json.dumps(list(target.never_mutated)),
        )
    )
    session = work / "session.sqlite"
    cr = str(venv / "bin" / "cosmic-ray")
    subprocess.run([cr, "init", str(config), str(session)], cwd=work, check=True)
    started = time.perf_counter()  # the mutants' time: after init
    finished = True
    try:
        subprocess.run(
            [cr, "exec", str(config), str(session)], cwd=work, timeout=seconds, check=False
        )
    except subprocess.TimeoutExpired:
        finished = False
    wall = time.perf_counter() - started
    with sqlite3.connect(session) as db:
        total = db.execute("SELECT COUNT(*) FROM work_items").fetchone()[0]
        done = db.execute("SELECT COUNT(*) FROM work_results").fetchone()[0]
        killed = db.execute(
            "SELECT COUNT(*) FROM work_results WHERE lower(test_outcome) = 'killed'"
        ).fetchone()[0]
    rate = done / wall if wall else 0.0
    if finished:
        score = 100.0 * killed / done if done else 0.0
        return (
            f"cosmic-ray   : {total} mutants, score {score:.2f}% ({killed} killed), "
            f"wall {wall:.1f} s, {rate:.2f} mutants/s"
        )
    return (
        f"cosmic-ray   : stopped after {seconds:.0f} s with {done} of {total} mutants done "
        f"({100.0 * done / total:.1f}%), {rate:.2f} mutants/s: about {total / rate / 60:.0f} min "
        "for the whole package"
    )


def prepared_copy(target: Target, source: Path, copy: Path) -> None:
    """A copy of the sdist with the target's patches applied."""
    shutil.copytree(source, copy)
    for name, old, new in target.patches:
        path = copy / name
        text = path.read_text()
        assert old in text, f"the bench's patch no longer applies to {name}"
        path.write_text(text.replace(old, new))


def requirements(target: Target, python: Path) -> None:
    """What the suite imports besides pytest, in the tests' interpreter."""
    if target.requirements:
        pip = [str(python), "-m", "pip", "install", "-q", *target.requirements]
        subprocess.run(pip, check=True)


def run_project_bench(target: Target, source: Path, mutmut: Path, args: argparse.Namespace) -> None:
    """The whole comparison on the package; prints the figures."""
    scratch = Path(tempfile.mkdtemp(prefix="mutbench-project-"))
    theirs, ours, cosmic = scratch / "mutmut", scratch / "tddforge", scratch / "cosmic"
    for copy in (theirs, ours, cosmic):
        prepared_copy(target, source, copy)
    with (theirs / "pyproject.toml").open("a") as handle:
        handle.write(target.mutmut_config())
    python = mutmut.parent / "python"
    requirements(target, python)
    med = statistics.median
    m_walls, m_rates, o_walls, o_rates, plains = [], [], [], [], []
    f_walls: list[float] = []
    m_counts: Counter[str] = Counter()
    o_report: dict[str, Any] = {}
    f_report: dict[str, Any] = {}
    for round_no in range(args.rounds):
        wall, rate, m_counts = run_mutmut(mutmut, theirs, args.workers)
        m_walls.append(wall)
        m_rates.append(rate)
        wall, o_report = run_ours(target, ours, args.workers, python, "--no-cache", "--all")
        o_walls.append(wall)
        o_rates.append(o_report["totals"]["mutants"] / o_report["mutant_seconds"])
        wall, f_report = run_ours(
            target, ours, args.workers, python, "--no-cache", "--scope", "functions"
        )
        f_walls.append(wall)
        plains.append(run_plain(ours, python, target.tests))
        print(
            f"round {round_no + 1}: mutmut {m_walls[-1]:.1f} s, tddforge {o_walls[-1]:.1f} s, "
            f"tddforge --scope functions {f_walls[-1]:.1f} s, plain pytest {plains[-1]:.2f} s",
            flush=True,
        )
    totals = o_report["totals"]
    m_total, o_total = sum(m_counts.values()), totals["mutants"]
    m_rate, o_rate = m_total / med(m_walls), o_total / med(o_walls)
    print(
        f"target: the {target.package} package ({totals['modules']} modules) with {target.tests} "
        f"({o_report['tests']} tests), {args.workers} workers, {args.rounds} rounds, "
        f"tests run by {python}"
    )
    print(
        f"mutmut 3.8.1 : {m_total} mutants, score {mutmut_score(m_counts):.2f}% {dict(m_counts)}, "
        f"median wall {med(m_walls):.1f} s, {m_rate:.1f} mutants/s; "
        f"mutant phase {med(m_rates):.1f} mutants/s"
    )
    print(
        f"tddforge     : {o_total} mutants, score {totals['score']:.2f}% "
        f"(counting likely-equivalent survivors {totals['score_counting_equivalent']:.2f}%) "
        f"{totals['counts']}, median wall {med(o_walls):.1f} s, {o_rate:.1f} mutants/s; "
        f"mutant phase {med(o_rates):.1f} mutants/s; ran by strategy {o_report['strategies']}"
    )
    print(
        f"ratio (tddforge / mutmut mutants per second): whole run {o_rate / m_rate:.2f}x, "
        f"mutant phase {med(o_rates) / med(m_rates):.2f}x; one plain pytest run of the suite "
        f"{med(plains):.2f} s"
    )
    f_totals = f_report["totals"]
    f_rate = f_totals["mutants"] / med(f_walls)
    print(
        f"tddforge --scope functions (function bodies only, the kind of mutant mutmut makes): "
        f"{f_totals['mutants']} mutants, score {f_totals['score']:.2f}% {f_totals['counts']}, "
        f"median wall {med(f_walls):.1f} s, {f_rate:.1f} mutants/s; "
        f"whole run {f_rate / m_rate:.2f}x mutmut's"
    )
    measured = floor(target, ours, args.workers, python)
    per_mutant = args.workers / med(o_rates)  # core seconds per mutant in the mutant phase
    print(
        f"floor (fork + one test through pytest's protocol): {1000 * measured.alone:.1f} ms alone, "
        f"{1000 * measured.core_seconds:.1f} ms of a core with {args.workers} busy; ours "
        f"{1000 * per_mutant:.1f} ms of a core per mutant = {per_mutant / measured.core_seconds:.2f}x "
        "the floor"
    )
    print(by_strategy(o_report, measured.core_seconds))
    first, again, report = edit_one_module(target, ours, args.workers, python)
    reran = report["totals"]["mutants"] - report["reused"]
    print(
        f"re-run after a body edit of {target.edited}: {again:.1f} s (the cached run before it "
        f"{first:.1f} s), {reran} mutants ran, {report['reused']} verdicts reused"
    )
    venv = args.cosmic_venv.resolve()
    print(cosmic_ray(target, cosmic, python, args.cosmic_seconds, venv), flush=True)
