"""Per-cycle overhead of a kata session besides the LLM: test runs, quality gates and git.

Runs a scripted 10-cycle session through the real openai SDK against the
loopback fake server (replies are instant, so what remains is tddforge's own
work: sandboxed pytest runs, ruff format/check, the compile check, git), then
prints each green cycle's non-LLM seconds, their median, and the session's
``--json`` summary (cycle metrics shortened to the first cycle)::

    python bench/kata_overhead.py [--cycles 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from tddforge.config import load_settings
from tddforge.llm import make_client
from tddforge.llm.fakeserver import FakeOpenAIServer
from tddforge.orchestration.kata_session import KataOptions, run_kata

FENCE = "```"
KATA = "# Counting kata\n\nModule `kata` grows one function per step: `feature_i()` returns i.\n"


def _block(path: str, content: str) -> str:
    return f"### FILE: {path}\n{FENCE}python\n{content}{FENCE}\n"


def _tests(count: int) -> str:
    names = ", ".join(f"feature_{i}" for i in range(1, count + 1))
    body = "".join(
        f"\n\ndef test_feature_{i}_returns_{i}():\n    assert feature_{i}() == {i}\n"
        for i in range(1, count + 1)
    )
    return f"from kata import {names}\n{body}"


def _code(count: int) -> str:
    return "\n\n".join(f"def feature_{i}():\n    return {i}\n" for i in range(1, count + 1))


def script(server: FakeOpenAIServer, cycles: int) -> None:
    """Queue a Tester, Implementer and Refactorer reply per cycle."""
    for n in range(1, cycles + 1):
        server.enqueue(_block("tests/test_kata.py", _tests(n)), usage=(1500, 150))
        server.enqueue(_block("kata.py", _code(n)), usage=(1800, 120))
        server.enqueue("NO_CHANGES", usage=(1900, 5))


def main() -> None:
    """Run the session and print the overhead figures and the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=10)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tddforge-kata-bench-"))
    (root / "KATA.md").write_text(KATA, encoding="utf-8")
    with FakeOpenAIServer(model="gpt-4o-mini") as server:
        script(server, args.cycles)
        settings = load_settings(
            None, {}, {"model": "gpt-4o-mini", "base_url": server.base_url, "api_key": "bench"}
        )
        options = KataOptions(root / "KATA.md", root / "work", max_cycles=args.cycles)
        outcome = run_kata(options, settings, make_client(settings), lambda _m: None)
    summary = outcome.summary
    per_cycle = [c["tool_seconds"] for c in summary["cycle_metrics"] if c["outcome"] == "green"]
    print("cycle  non-LLM seconds (tests + gates + git)")
    for number, seconds in enumerate(per_cycle, 1):
        print(f"{number:5d}  {seconds:.3f}")
    print(f"median per-cycle overhead besides the LLM: {statistics.median(per_cycle):.3f} s")
    shown = dict(summary, cycle_metrics=summary["cycle_metrics"][:1])
    print(json.dumps(shown, indent=2))


if __name__ == "__main__":
    main()
