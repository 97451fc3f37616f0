"""The one check command: format, lint, types, then the whole test suite.

CI runs exactly this (``.ci/run``), and so does the README. Extra arguments go
to pytest (``python tools/check.py -m "not slow"``). pytest's exit code 5 (no
tests collected) is a failure here: a suite that runs nothing proves nothing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NO_TESTS_COLLECTED = 5


def _run(title: str, argv: list[str]) -> int:
    print(f"==> {title}: {' '.join(argv)}", flush=True)
    return subprocess.call(argv, cwd=ROOT)


def main(pytest_args: list[str]) -> int:
    """Run every check; return the first failure's code, else pytest's."""
    py = sys.executable
    checks = [
        ("format", [py, "-m", "ruff", "format", "--check", "src", "tests", "tools", "bench"]),
        ("lint", [py, "-m", "ruff", "check", "src", "tests", "tools", "bench"]),
        ("types", [py, "-m", "mypy"]),
    ]
    failed = [title for title, argv in checks if _run(title, argv) != 0]
    code = _run("tests", [py, "-m", "pytest", *pytest_args])
    if code == NO_TESTS_COLLECTED:
        print("error: pytest collected no tests", file=sys.stderr)
        return 1
    if failed:
        print(f"error: failed checks: {', '.join(failed)}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
