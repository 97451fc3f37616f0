"""pytest's assert rewriting runs without the baseline's line tracer (target.tracing)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from _pytest.assertion import rewrite

from tddforge.target.tracing import untraced_rewriting


def test_rewriting_a_test_file_makes_no_trace_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pytestconfig: Any
) -> None:
    monkeypatch.setattr(rewrite, "_rewrite_test", rewrite._rewrite_test)  # undone after
    test_file = tmp_path / "test_sample.py"
    test_file.write_text("def test_one():\n    x = [1, 2]\n    assert x == [1, 2], x\n")
    seen: list[str] = []

    def tracer(frame: Any, event: str, arg: Any) -> None:
        seen.append(frame.f_code.co_filename)
        seen.append(frame.f_code.co_name)

    def after() -> None:
        pass

    def rewritten() -> list[str]:
        seen.clear()
        previous = sys.gettrace()
        sys.settrace(tracer)
        try:
            rewrite._rewrite_test(test_file, pytestconfig)
            after()  # the tracer is back once rewriting ends
        finally:
            sys.settrace(previous)
        assert "after" in seen
        return [f for f in seen if f.endswith(("rewrite.py", "ast.py"))]

    assert rewritten()  # traced, rewriting calls thousands of functions
    untraced_rewriting()
    untraced_rewriting()  # twice: wrapped once
    assert rewritten() == []
    assert getattr(rewrite._rewrite_test, "untraced", False)
