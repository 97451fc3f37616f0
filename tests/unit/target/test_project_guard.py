"""``project_guard``: in a process of its own (an audit hook stays for the process's life)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tddforge.target import project_guard

SCRIPT = textwrap.dedent(
    """
    import json, os, shutil, sys, tempfile
    from tddforge.target import project_guard

    def attempt(step):
        try:
            exec(step, {"os": os, "shutil": shutil, "tempfile": tempfile})
        except PermissionError as exc:
            return "refused" if exc.strerror == project_guard.REFUSED else "denied"
        except OSError as exc:
            return type(exc).__name__
        return "done"

    project_guard.install(os.getcwd())
    for step in json.loads(sys.argv[1]):  # the baseline's writes
        exec(step, {"os": os, "shutil": shutil})
    recorded = project_guard.take()
    project_guard.enforce(recorded)
    results = [attempt(step) for step in json.loads(sys.argv[2])]
    print(json.dumps({"recorded": recorded, "results": results, "refused": project_guard.refused()}))
    """
)

BASELINE = [
    "os.makedirs('.', exist_ok=True)",  # asks to make what is there: not a write
    # asked to remove or move the root, and failed: nothing changed, nothing allowed
    "try:\n    os.rmdir('.')\nexcept OSError:\n    pass",
    "try:\n    shutil.move('.', '.')\nexcept (OSError, shutil.Error):\n    pass",
    "open(os.path.join('pkg', 'mod.py'), 'a').close()",  # opened to append, left as it was
    "os.makedirs('pkg', exist_ok=True)",
    "os.makedirs('out', exist_ok=True)",
    "open(os.path.join('out', 'log.txt'), 'w').close()",
    "open('notes.txt', 'a').close()",
    "open('README.md').read()",  # read only: not recorded
]

CASES = [
    ("shutil.rmtree('.')", "refused"),
    ("shutil.rmtree(os.getcwd())", "refused"),
    ("shutil.rmtree('pkg')", "refused"),
    ("os.remove('README.md')", "refused"),
    ("os.unlink(os.path.join('pkg', 'mod.py'))", "refused"),
    ("open('README.md', 'w')", "refused"),
    ("open('README.md', 'a')", "refused"),
    ("open('README.md', 'r+')", "refused"),
    ("os.open('README.md', os.O_WRONLY | os.O_TRUNC)", "refused"),
    ("os.truncate('README.md', 0)", "refused"),
    ("os.chmod('README.md', 0)", "refused"),
    ("os.rename('README.md', 'moved.md')", "refused"),
    ("open('fresh.txt', 'w').close(); os.replace('fresh.txt', 'README.md')", "refused"),
    ("fd = os.open('pkg', os.O_RDONLY); os.remove('mod.py', dir_fd=fd)", "refused"),
    ("open('README.md').read()", "done"),
    ("open(os.path.join('out', 'log.txt'), 'w').write('x')", "done"),  # the baseline did
    ("os.remove(os.path.join('out', 'log.txt'))", "done"),
    ("shutil.rmtree('out')", "done"),  # the baseline made it
    ("open('notes.txt', 'w').close()", "done"),
    (
        "open('new.txt', 'w').close(); os.rename('new.txt', 'new2.txt'); os.remove('new2.txt')",
        "done",
    ),
    (
        "os.mkdir('made'); open(os.path.join('made', 'a'), 'w').close(); shutil.rmtree('made')",
        "done",
    ),
    (
        "os.makedirs(os.path.join('.tddforge', 'x'), exist_ok=True); shutil.rmtree('.tddforge')",
        "done",
    ),
    ("d = tempfile.mkdtemp(); open(os.path.join(d, 'a'), 'w').close(); shutil.rmtree(d)", "done"),
    ("os.remove('missing.txt')", "FileNotFoundError"),
]


def _run(tmp_path: Path, baseline: list[str], steps: list[str]) -> dict[str, object]:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "mod.py").write_text("X = 1\n")
    (project / "README.md").write_text("keep\n")
    argv = [sys.executable, "-c", SCRIPT, json.dumps(baseline), json.dumps(steps)]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_baseline_s_writes_are_recorded_and_nothing_it_only_read(tmp_path: Path) -> None:
    found = _run(tmp_path, BASELINE, [])
    assert found["recorded"] == ["notes.txt", "out", "out/log.txt"]


@pytest.mark.parametrize(("step", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_a_mutant_may_not_change_what_the_baseline_left_alone(
    tmp_path: Path, step: str, expected: str
) -> None:
    found = _run(tmp_path, BASELINE, [step])
    assert found["results"] == [expected]
    assert found["refused"] == (1 if expected == "refused" else 0)
    project = tmp_path / "proj"
    assert (project / "README.md").read_text() == "keep\n"  # refused before anything changed
    assert (project / "pkg" / "mod.py").read_text() == "X = 1\n"


@pytest.mark.parametrize(
    ("rel", "allowed", "created", "expected"),
    [
        ("a/b/c.txt", {"a/b"}, set(), True),
        ("a/b/c.txt", {"a/b/c.txt"}, set(), True),
        ("a/b", {"a/b/c.txt"}, set(), False),
        ("a", set(), {"a"}, True),
        (".", {"a"}, set(), False),
        ("x/y", {"."}, set(), True),
        ("x/y", set(), set(), False),
    ],
)
def test_allowed_is_what_a_touched_path_holds(
    rel: str, allowed: set[str], created: set[str], expected: bool
) -> None:
    state = project_guard._STATE
    saved = (state.allowed, state.created)
    state.allowed, state.created = allowed, created
    try:
        assert project_guard._allowed(rel) is expected
    finally:
        state.allowed, state.created = saved
