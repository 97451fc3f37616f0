"""Per-run overhead of each sandbox backend against a bare subprocess.

Runs ``python -c pass`` ten times per way (bare ``subprocess.run``, then
``Sandbox.run`` with each backend that works here) and prints the medians
side by side with the difference to bare, in milliseconds::

    python bench/sandbox_overhead.py [--runs 10]
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import tempfile
from pathlib import Path

from tddforge.sandbox import BACKENDS, Limits, Sandbox
from tddforge.sandbox.backend import backend_works, drop_uid
from tddforge.sandbox.guarantees import median_ms

ARGV = [sys.executable, "-c", "pass"]


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bare = median_ms(lambda: subprocess.run(ARGV, check=True, cwd=work), runs)
        print(f"{'way':<10}{'median ms':>11}{'+ms vs bare':>13}   ({runs} runs of python -c pass)")
        print(f"{'bare':<10}{bare:>11.1f}{0.0:>13.1f}")
        for backend in BACKENDS:
            if not backend_works(backend, drop_uid()):
                print(f"{backend:<10}{'unavailable':>11}")
                continue
            box = Sandbox(work, Limits(wall_seconds=60), backend=backend)
            ms = median_ms(functools.partial(box.run, ARGV), runs)
            print(f"{backend:<10}{ms:>11.1f}{ms - bare:>13.1f}")


if __name__ == "__main__":
    main()
