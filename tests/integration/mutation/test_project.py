"""One run over a package: real pytest, real sandbox, the cache across modules."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.engine import MutationJob, score_project, verify_project
from tddforge.mutation.floor import measure_floor
from tddforge.mutation.ground_truth import project_differences
from tddforge.mutation.project import ProjectReport
from tddforge.mutation.report import MutantResult, MutationReport

from .conftest import write_files

pytestmark = pytest.mark.integration

FILES = {
    "pkg/__init__.py": "from .calc import add, clip\nfrom .fmt import FMT, pad, render\n",
    # FMT is read while the test module is imported (its table of cases): only a fresh
    # import shows a mutant of it to the test, as a fresh interpreter would
    "pkg/fmt.py": (
        'FMT = "<{}>"\n\n\ndef render(x, fmt=FMT):\n    return fmt.format(x)\n\n\n'
        "def pad(text, width=0):\n    if len(text) < width:\n        return text.ljust(width)\n"
        "    return text\n"
    ),
    "pkg/calc.py": (
        "def add(a, b):\n    return a + b\n\n\n"
        "def clip(x, top=10):\n    if x > top:\n        return top\n    return x\n"
    ),
    "tests/test_fmt.py": (
        "from pkg import FMT, render\n\nCASES = [(1, FMT, '<1>')]\n\n\n"
        "def test_render():\n    for x, fmt, out in CASES:\n        assert render(x, fmt) == out\n"
    ),
    "tests/test_calc.py": (
        "def test_add():\n    from pkg.calc import add  # imported by the test itself\n\n"
        "    assert add(2, 3) == 5\n\n\n"
        "def test_both():\n    from pkg import clip, pad\n\n"
        "    assert pad(str(clip(12))) == '10'\n"
    ),
}
MODULES = ("pkg/__init__.py", "pkg/calc.py", "pkg/fmt.py")


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return write_files(tmp_path / "proj", FILES)


def _job(root: Path, **changes: object) -> MutationJob:
    modules = tuple(root / m for m in MODULES)
    base = {
        "project": root,
        "module": modules[0],
        "tests": ("tests",),
        "python": Path(sys.executable),
        "workers": 2,
        "timeout": 300.0,
        "modules": modules,
    }
    return MutationJob(**{**base, **changes})  # type: ignore[arg-type]


def _module(report: ProjectReport, rel: str) -> MutationReport:
    return next(m for m in report.modules if m.module == rel)


def _verdicts(report: ProjectReport) -> dict[tuple[str, str], str]:
    return {(m.module, r.mutant.id): r.verdict for m in report.modules for r in m.results}


def test_a_package_is_scored_in_one_run_and_matches_the_ground_truth(
    package: Path, settings: Settings
) -> None:
    report = score_project(_job(package), settings)
    assert [m.module for m in report.modules] == list(MODULES)
    assert report.tests == 3 and report.counts["error"] == 0
    fmt = _module(report, "pkg/fmt.py")
    constant = [r for r in fmt.results if r.mutant.line == 1 and r.mutant.operator == "string"]
    assert constant and all(r.verdict == "killed" for r in constant)
    boundary = [
        r for r in _module(report, "pkg/calc.py").results if r.mutant.operator == "boundary"
    ]
    assert [r.verdict for r in boundary] == ["survived"]  # clip(12) never probes x == top
    truth = verify_project(_job(package), settings, report)
    assert len(truth) == report.mutants
    assert project_differences(report, truth) == []


def _depends_on(module: MutationReport, result: MutantResult, nodeid: str) -> bool:
    """Whether ``nodeid``'s outcome decided the verdict: it killed the mutant, or it covers a
    survivor (a change to it could kill it)."""
    if result.verdict == "killed":
        return result.killer == nodeid
    lines = set(result.mutant.lines)
    return bool(lines.intersection(module.test_lines.get(nodeid, ())))


def test_editing_one_module_reruns_only_what_it_must(package: Path, settings: Settings) -> None:
    cache = VerdictCache(package / ".tddforge" / "mutation-cache")
    first = score_project(_job(package), settings, cache=cache)
    assert first.counts["error"] == 0
    calc = package / "pkg" / "calc.py"
    calc.write_text(calc.read_text().replace("return a + b", "return b + a"))  # a body edit
    second = score_project(_job(package), settings, cache=cache)
    assert not any(r.reused for r in _module(second, "pkg/calc.py").results)
    fmt = _module(second, "pkg/fmt.py")
    # test_both ran the edited module: the verdicts it decided run again, the others are kept
    for result in fmt.results:
        assert result.reused != _depends_on(fmt, result, "tests/test_calc.py::test_both"), result
    assert any(r.reused for r in fmt.results) and not all(r.reused for r in fmt.results)
    assert _verdicts(second) == _verdicts(score_project(_job(package), settings))


def test_a_test_body_edit_reruns_the_verdicts_that_depend_on_it(
    package: Path, settings: Settings
) -> None:
    cache = VerdictCache(package / ".tddforge" / "mutation-cache")
    first = score_project(_job(package), settings, cache=cache)
    assert _width(first).verdict == "survived"
    tests = package / "tests" / "test_calc.py"
    stronger = "== '10'\n    assert pad('') == ''\n"  # the same test, one check more
    tests.write_text(tests.read_text().replace("== '10'\n", stronger))
    second = score_project(_job(package), settings, cache=cache)
    assert _width(second).verdict == "killed" and not _width(second).reused
    for module in second.modules:
        for result in module.results:
            depends = _depends_on(module, result, "tests/test_calc.py::test_both")
            assert not (depends and result.reused), result
    assert any(r.reused for m in second.modules for r in m.results)


def _width(report: ProjectReport) -> MutantResult:
    """pad's default width 0 made 1: only ``pad('')`` tells them apart."""
    (found,) = [
        r
        for r in _module(report, "pkg/fmt.py").results
        if r.mutant.line == 8 and (r.mutant.original, r.mutant.replacement) == ("0", "1")
    ]
    return found


def test_the_floor_forks_a_collected_session_per_test(package: Path, settings: Settings) -> None:
    floor = measure_floor(_job(package), settings)
    assert floor.workers == 2
    assert 0 < floor.alone < 1.0 and 0 < floor.busy < 1.0
    assert floor.core_seconds == floor.busy * 2


GATED = {
    "gated/__init__.py": (
        "import sys\n\n"
        "PY3 = sys.version_info[0] > 2\n"
        "if sys.version_info >= (99, 0):\n"
        "    def width():\n        return 99\n"
        "else:\n"
        "    def width():\n        return 3\n"
    ),
    "tests/test_gated.py": (
        "import gated\n\n\ndef test_width():\n    assert gated.width() == 3\n\n\n"
        "def test_py3():\n    assert gated.PY3 is True\n"
    ),
}


def test_mutants_that_keep_an_interpreter_gate_are_not_made(
    tmp_path: Path, settings: Settings
) -> None:
    root = write_files(tmp_path / "proj", GATED)
    module = root / "gated/__init__.py"
    job = _job(root, module=module, modules=(module,), tests=("tests",))
    report = score_project(job, settings)
    gated = report.modules[0]
    made = {(r.mutant.line, r.mutant.original, r.mutant.replacement) for r in gated.results}
    assert (6, "99", "100") not in made  # the body of a branch never taken here
    assert (4, "99", "100") not in made and (3, "2", "1") not in made  # same value here
    assert (4, ">=", "<") in made and (3, "2", "3") in made  # these change the value
    assert {r.verdict for r in gated.results} == {"killed"}
    assert gated.same_here == report.same_here > 0
    data = report.to_data()
    assert data["totals"]["same_on_interpreter"] == report.same_here
    assert data["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert f"{report.same_here} mutants not made" in report.to_markdown()


def test_the_mutants_left_out_at_a_gate_do_survive(tmp_path: Path) -> None:
    """Ground truth for the rule: each mutant it leaves out, applied, passes the tests."""
    import subprocess

    from tddforge.mutation.gates import read_interpreter
    from tddforge.mutation.generate import mutants_of
    from tddforge.mutation.mutant import apply_mutant

    root = write_files(tmp_path / "proj", GATED)
    path = root / "gated/__init__.py"
    source = path.read_text()
    left = mutants_of(source, True, read_interpreter(sys.executable)).same_here
    assert len(left) >= 5
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    for mutant in left:
        path.write_text(apply_mutant(source, mutant))
        done = subprocess.run(command, cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, (mutant, done.stdout[-400:])
    path.write_text(source)
    assert subprocess.run(command, cwd=root, capture_output=True).returncode == 0
