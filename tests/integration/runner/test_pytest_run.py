"""run_pytest on small sample projects, for real: pytest, coverage.py and the sandbox."""

from __future__ import annotations

import site
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tddforge.errors import RunnerError
from tddforge.runner import TestRun, interpreter_for, run_pytest, run_pytest_orders
from tddforge.sandbox import Limits, Sandbox, SandboxResult

pytestmark = pytest.mark.integration

PY = Path(sys.executable)

SAMPLE = {
    "calc.py": """
        def sign(x):
            if x >= 0:
                return 1
            else:
                return -1
    """,
    "tests/test_outcomes.py": """
        import pytest
        from calc import sign

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")

        def test_pass():
            assert sign(3) == 1

        def test_fail():
            assert sign(-3) == 1

        def test_fixture_error(broken):
            pass

        def test_unknown_fixture(no_such_fixture):
            pass

        @pytest.mark.skip(reason="not today")
        def test_skip():
            pass

        @pytest.mark.xfail(reason="known bug")
        def test_xfail():
            assert sign(0) == 0

        def test_missing_function():
            from calc import absolute
    """,
    "tests/test_missing_module.py": """
        import calculator_v2

        def test_never():
            pass
    """,
    "tests/test_syntax.py": """
        def test_broken(:
            pass
    """,
    "tests/test_fine.py": """
        def test_fine():
            assert True
    """,
    "seq.py": """
        def first(items):
            return items[0]
    """,
    "tests/test_raised_in.py": """
        from seq import first

        def test_first_of_nothing():
            assert first([]) is None

        def test_raised_here():
            assert [][0] is None
    """,
    "hang/test_hang.py": """
        def test_first():
            assert True

        def test_hang():
            while True:
                pass

        def test_never_reached():
            assert True
    """,
    "crash/test_crash.py": """
        import os

        def test_first():
            assert True

        def test_crash():
            os._exit(3)
    """,
    "cov/test_cov.py": """
        from calc import sign

        def test_positive():
            assert sign(5) == 1
    """,
    "ctx/test_ctx.py": """
        import pytest
        from calc import sign

        @pytest.fixture
        def negative():
            return sign(-2)

        def test_positive():
            assert sign(5) == 1

        def test_negative(negative):
            assert negative == -1
    """,
    "forks/test_forks.py": """
        import os

        def spawn_in(path):
            pid = os.fork()
            if pid == 0:
                os.chdir(path)  # fails outside any handler: the child unwinds into pytest
                os._exit(0)
            return os.waitpid(pid, 0)[1]

        def test_spawn_fails():
            assert spawn_in("") != 0

        def test_after():
            assert True
    """,
    "empty/README.txt": "no tests here\n",
    "shared/test_shared.py": """
        import os

        import pytest

        SEEN = []

        def test_first():
            SEEN.append(1)
            assert SEEN == [1]

        def test_needs_first():
            assert SEEN == [1]

        def test_dies():
            os._exit(4)

        def test_fails():
            assert SEEN == ["x"]

        @pytest.mark.skip(reason="not today")
        def test_skipped():
            pass
    """,
}


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    work = tmp_path_factory.mktemp("runner-work")
    write_project(work / "proj", SAMPLE)
    return Sandbox(work, Limits(cpu_seconds=60, memory_mb=2048, wall_seconds=60))


@pytest.fixture(scope="session")
def project(sandbox: Sandbox) -> Path:
    return sandbox.work_dir / "proj"


def run(project: Path, sandbox: Sandbox, *paths: str, **kwargs: object) -> TestRun:
    kwargs.setdefault("timeout", 30)
    kwargs.setdefault("python", PY)
    return run_pytest(project, sandbox=sandbox, paths=paths, **kwargs)  # type: ignore[arg-type]


def summary(test_run: TestRun) -> dict[str, tuple[str, str | None]]:
    return {o.nodeid.split("::")[-1]: (o.outcome, o.failure_kind) for o in test_run.outcomes}


def test_outcomes_of_every_kind(project: Path, sandbox: Sandbox) -> None:
    result = run(project, sandbox, "tests/test_outcomes.py")
    assert summary(result) == {
        "test_pass": ("passed", None),
        "test_fail": ("failed", "AssertionError"),
        "test_fixture_error": ("error", "RuntimeError"),
        "test_unknown_fixture": ("error", "FixtureLookupError"),
        "test_skip": ("skipped", None),
        "test_xfail": ("skipped", "xfail"),
        "test_missing_function": ("failed", "ImportError"),
    }
    by_id = {o.nodeid.split("::")[-1]: o for o in result.outcomes}
    assert by_id["test_unknown_fixture"].missing_name == "no_such_fixture"
    assert by_id["test_missing_function"].missing_name == "absolute"
    assert by_id["test_fail"].location == "tests/test_outcomes.py:12"
    assert "sign(-3)" in (by_id["test_fail"].message or "")
    assert (result.exit_code, result.timed_out, result.collection_errors) == (1, False, ())
    assert "test_fail" in result.output  # pytest's own text, kept for humans


def test_a_failure_names_the_file_it_was_raised_in(project: Path, sandbox: Sandbox) -> None:
    result = run(project, sandbox, "tests/test_raised_in.py")
    by_id = {o.nodeid.split("::")[-1]: o for o in result.outcomes}
    assert by_id["test_first_of_nothing"].failure_kind == "IndexError"
    assert by_id["test_first_of_nothing"].raised_in == "seq.py"
    assert by_id["test_raised_here"].raised_in == "tests/test_raised_in.py"


def test_collection_errors_do_not_stop_other_files(project: Path, sandbox: Sandbox) -> None:
    paths = ("tests/test_missing_module.py", "tests/test_syntax.py", "tests/test_fine.py")
    result = run(project, sandbox, *paths)
    errors = {e.nodeid: (e.failure_kind, e.missing_name) for e in result.collection_errors}
    assert errors == {
        "tests/test_missing_module.py": ("ModuleNotFoundError", "calculator_v2"),
        "tests/test_syntax.py": ("SyntaxError", None),
    }
    assert summary(result) == {"test_fine": ("passed", None)}
    syntax = next(e for e in result.collection_errors if e.failure_kind == "SyntaxError")
    assert syntax.location == "tests/test_syntax.py:1"


def test_endless_test_is_cut_off_at_the_timeout(project: Path, sandbox: Sandbox) -> None:
    started = time.monotonic()
    result = run(project, sandbox, "hang", timeout=4)
    assert time.monotonic() - started < 8
    assert result.timed_out
    assert summary(result) == {"test_first": ("passed", None), "test_hang": ("error", "Timeout")}
    assert result.by_nodeid()["hang/test_hang.py::test_hang"].phase == "call"


def test_crashed_interpreter_keeps_earlier_results(project: Path, sandbox: Sandbox) -> None:
    result = run(project, sandbox, "crash")
    assert not result.timed_out
    assert summary(result) == {"test_first": ("passed", None), "test_crash": ("error", "Crashed")}
    assert result.exit_code == 3


def test_a_copy_a_test_forks_that_returns_into_pytest_reports_nothing(
    project: Path, sandbox: Sandbox
) -> None:
    result = run(project, sandbox, "forks")
    assert [o.nodeid.split("::")[-1] for o in result.outcomes] == ["test_spawn_fails", "test_after"]
    assert summary(result) == {"test_spawn_fails": ("passed", None), "test_after": ("passed", None)}
    assert result.exit_code == 0
    # the copy used to run the rest of the session, print its own summary and write its
    # results beside the test's
    assert "failed" not in result.output and "2 passed" in result.output


def test_branch_coverage_reports_the_branch_not_taken(project: Path, sandbox: Sandbox) -> None:
    result = run(project, sandbox, "cov", coverage_source=["calc"])
    assert summary(result) == {"test_positive": ("passed", None)}
    assert result.coverage is not None
    calc = result.coverage.file("calc.py")
    assert calc is not None
    assert calc.missing_lines == (5,)
    assert calc.missing_branches == ((2, 5),)
    assert (calc.num_branches, calc.covered_branches) == (2, 1)
    assert result.coverage.totals.branch_percent == pytest.approx(50.0)
    assert result.coverage.totals.line_percent == pytest.approx(75.0)


def test_the_report_covers_only_the_included_files(project: Path, sandbox: Sandbox) -> None:
    everything = run(project, sandbox, "cov", coverage_source=[str(project)])
    assert everything.coverage is not None
    assert {"calc.py", "cov/test_cov.py"} <= {f.path for f in everything.coverage.files}
    only = run(
        project,
        sandbox,
        "cov",
        coverage_source=[str(project)],
        coverage_include=[project / "calc.py"],
    )
    assert only.coverage is not None
    assert [f.path for f in only.coverage.files] == ["calc.py"]
    assert only.coverage.totals.branch_percent == pytest.approx(50.0)


def test_per_test_coverage_names_each_test_by_node_id(project: Path, sandbox: Sandbox) -> None:
    result = run(project, sandbox, "ctx", coverage_source=["calc"], per_test=True)
    assert result.coverage is not None
    calc = result.coverage.file("calc.py")
    assert calc is not None
    positive, negative = "ctx/test_ctx.py::test_positive", "ctx/test_ctx.py::test_negative"
    assert calc.contexts[1] == ("",)  # the def ran at import, outside any test
    assert set(calc.contexts[3]) == {positive} and set(calc.contexts[5]) == {negative}
    assert set(calc.arcs) == {"", positive, negative}
    assert (2, 3) in calc.arcs[positive] and (2, 3) not in calc.arcs[negative]
    assert (2, 5) in calc.arcs[negative]  # taken by its fixture, measured with the test
    assert set(calc.executed_branches) == {(2, 3), (2, 5)}
    plain = run(project, sandbox, "ctx", coverage_source=["calc"])
    assert plain.coverage is not None
    assert plain.coverage.file("calc.py").arcs == {}  # type: ignore[union-attr]


class Counting(Sandbox):
    """The real sandbox, keeping the command line of each process it starts."""

    def __init__(self, like: Sandbox) -> None:
        super().__init__(like.work_dir, like.limits)
        self.started: list[list[str]] = []

    def run(self, argv: Sequence[str], **kwargs: Any) -> SandboxResult:
        self.started.append(list(argv))
        return super().run(argv, **kwargs)


def test_the_report_is_written_as_pytest_ends(project: Path, sandbox: Sandbox) -> None:
    counting = Counting(sandbox)
    result = run(
        project,
        counting,
        "ctx",
        coverage_source=["calc"],
        coverage_include=[project / "calc.py"],
        per_test=True,
    )
    assert len(counting.started) == 1  # no second interpreter to read the data again
    assert result.coverage is not None
    calc = result.coverage.file("calc.py")
    assert calc is not None and [f.path for f in result.coverage.files] == ["calc.py"]
    assert set(calc.contexts[3]) == {"ctx/test_ctx.py::test_positive"}
    assert (calc.num_branches, calc.covered_branches) == (2, 2)
    # nothing measured: the plugin writes nothing, and coverage.py's command line says so
    assert run(project, counting, "ctx", coverage_source=["nowhere"]).coverage is None
    assert len(counting.started) == 3


def test_the_tests_run_here_when_the_project_asks_xdist_for_workers(sandbox: Sandbox) -> None:
    # ``-n`` in addopts is common; run elsewhere, the tests would escape our plugin's
    # coverage contexts (and its shuffled orders and forked isolation).
    files = {
        "pytest.ini": "[pytest]\naddopts = -n 2\n",
        "calc.py": SAMPLE["calc.py"],
        "ctx/test_ctx.py": SAMPLE["ctx/test_ctx.py"],
    }
    project = write_project(sandbox.work_dir / "xdist", files)
    result = run(project, sandbox, "ctx", coverage_source=["calc"], per_test=True)
    assert summary(result) == {"test_positive": ("passed", None), "test_negative": ("passed", None)}
    calc = result.coverage.file("calc.py")  # type: ignore[union-attr]
    assert calc is not None
    assert set(calc.arcs) == {
        "",
        "ctx/test_ctx.py::test_positive",
        "ctx/test_ctx.py::test_negative",
    }


def test_a_shuffle_seed_gives_its_own_order_every_time(project: Path, sandbox: Sandbox) -> None:
    def order(seed: str | None) -> list[str]:
        env = {} if seed is None else {"TDDFORGE_SHUFFLE": seed}
        result = run(project, sandbox, "tests/test_outcomes.py", env=env)
        return [o.nodeid.split("::")[-1] for o in result.outcomes]

    in_file = order(None)
    shuffled = order("1-1")
    assert shuffled != in_file and sorted(shuffled) == sorted(in_file)
    assert order("1-1") == shuffled
    assert order("1-2") not in (shuffled, in_file)


def test_orders_run_once_per_seed_each_from_the_collected_session(
    project: Path, sandbox: Sandbox
) -> None:
    def names(result: TestRun) -> list[str]:
        return [o.nodeid.split("::")[-1] for o in result.outcomes]

    runs = run_pytest_orders(
        project,
        sandbox=sandbox,
        python=PY,
        orders=["1-1", "1-2"],
        paths=["tests/test_outcomes.py"],
        timeout=30,
    )
    alone = [
        run(project, sandbox, "tests/test_outcomes.py", env={"TDDFORGE_SHUFFLE": seed})
        for seed in ("1-1", "1-2")
    ]
    assert [names(r) for r in runs] == [names(r) for r in alone]  # each seed's own order
    assert [summary(r) for r in runs] == [summary(r) for r in alone]
    assert [r.exit_code for r in runs] == [1, 1] and not any(r.timed_out for r in runs)
    shared = run_pytest_orders(
        project,
        sandbox=sandbox,
        python=PY,
        orders=["a", "b", "c"],
        paths=["shared/test_shared.py::test_first"],
        timeout=30,
    )
    # test_first appends to a module list and wants it to hold one item: every run starts afresh
    assert [summary(r) for r in shared] == [{"test_first": ("passed", None)}] * 3


ADDRESSES_TEST = """
    from pathlib import Path

    class Language:
        def __init__(self, name):
            self.name = name

    def test_build():
        built = [Language(str(n)) for n in range(6)]
        with open(Path(__file__).with_name("ids.txt"), "a") as out:
            out.write(" ".join(str(id(b)) for b in built) + "\\n")
"""


def test_each_order_builds_its_objects_at_addresses_of_its_own(sandbox: Sandbox) -> None:
    # a set of objects hashed by address iterates in the order of their addresses: runs
    # forked from one session would all agree on it, where another process may not
    project = write_project(sandbox.work_dir / "addresses", {"test_ids.py": ADDRESSES_TEST})
    runs = run_pytest_orders(
        project, sandbox=sandbox, python=PY, orders=list("abcdefgh"), paths=["."], timeout=30
    )
    assert [summary(r) for r in runs] == [{"test_build": ("passed", None)}] * 8
    layouts = (project / "ids.txt").read_text().splitlines()
    assert len(layouts) == 8 and len(set(layouts)) > 1


def test_an_order_cut_off_at_the_timeout_leaves_the_others(project: Path, sandbox: Sandbox) -> None:
    runs = run_pytest_orders(
        project, sandbox=sandbox, python=PY, orders=["1", "2"], paths=["hang"], timeout=2
    )
    assert len(runs) == 2 and all(r.timed_out for r in runs)
    for result in runs:
        assert summary(result)["test_hang"] == ("error", "Timeout")
        assert summary(result).get("test_first", ("passed", None)) == ("passed", None)


def test_isolated_tests_each_start_from_the_collected_state(
    project: Path, sandbox: Sandbox
) -> None:
    shared = run(project, sandbox, "shared")
    assert summary(shared)["test_needs_first"] == ("passed", None)  # leans on test_first
    assert shared.exit_code == 4  # and test_dies takes the whole run down
    alone = run(project, sandbox, "shared", env={"TDDFORGE_ISOLATE": "1"})
    assert summary(alone) == {
        "test_first": ("passed", None),
        "test_needs_first": ("failed", "AssertionError"),
        "test_dies": ("failed", "ProcessDied"),
        "test_fails": ("failed", "AssertionError"),
        "test_skipped": ("skipped", None),
    }
    assert alone.exit_code == 1
    fails = alone.by_nodeid()["shared/test_shared.py::test_fails"]
    assert fails.location == "shared/test_shared.py:18"


def test_no_tests_is_exit_code_five(project: Path, sandbox: Sandbox) -> None:
    result = run(project, sandbox, "empty")
    assert (result.exit_code, result.total) == (5, 0)


def test_private_files_are_removed(project: Path, sandbox: Sandbox) -> None:
    run(project, sandbox, "tests/test_fine.py", coverage_source=["calc"])
    assert not (sandbox.work_dir / ".tddforge").exists()
    assert not (project / ".coverage").exists()


@pytest.fixture(scope="session")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with no packages at all (made in well under a second: no pip)."""
    venv = tmp_path_factory.mktemp("venvs") / "bare"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def test_coverage_missing_is_one_clear_error(
    project: Path, sandbox: Sandbox, bare_venv: Path, tmp_path: Path
) -> None:
    """A venv that has pytest (our packages, linked) but not coverage."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = _site_packages(venv)
    for entry in Path(site.getsitepackages()[0]).iterdir():
        if not entry.name.startswith("coverage") and not (target / entry.name).exists():
            (target / entry.name).symlink_to(entry)
    python = venv / "bin" / "python"
    # The links point into this venv's site-packages, which may live under the sandbox's private /tmp.
    linked = Sandbox(
        sandbox.work_dir, sandbox.limits, readonly_paths=[Path(site.getsitepackages()[0])]
    )
    assert run(project, linked, "tests/test_fine.py", python=python).passed == 1
    with pytest.raises(RunnerError, match="coverage is not installed"):
        run(project, linked, "tests/test_fine.py", python=python, coverage_source=["calc"])


def test_pytest_missing_is_an_error(project: Path, sandbox: Sandbox, bare_venv: Path) -> None:
    with pytest.raises(RunnerError, match="No module named pytest"):
        run(project, sandbox, "tests/test_fine.py", python=bare_venv / "bin" / "python")


def test_missing_interpreter_or_project(project: Path, sandbox: Sandbox, tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="interpreter not found"):
        run(project, sandbox, python=project / "no-python")
    with pytest.raises(RunnerError, match="outside the sandbox work dir"):
        run(tmp_path, sandbox)


def test_usage_error_is_an_error(project: Path, sandbox: Sandbox) -> None:
    with pytest.raises(RunnerError, match="usage error"):
        run(project, sandbox, "no/such/dir")


def test_interpreter_for(tmp_path: Path) -> None:
    assert interpreter_for(tmp_path, None) == PY
    for venv in ("venv", ".venv"):  # .venv wins when both exist
        bin_dir = tmp_path / venv / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python").symlink_to(PY)
        assert interpreter_for(tmp_path, None) == bin_dir / "python"
    assert interpreter_for(tmp_path, str(PY)) == PY
    with pytest.raises(RunnerError):
        interpreter_for(tmp_path, str(tmp_path / "nope"))
