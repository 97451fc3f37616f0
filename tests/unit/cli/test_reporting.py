"""What the CLI prints comes from tests, models and paths: brackets must print as they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge import cli
from tddforge.outcome import Outcome

HOSTILE = "tests/t.py::test_x[/abc]"  # rich would read this as a closing markup tag


def test_red_report_prints_markup_like_names_literally(capsys: pytest.CaptureFixture[str]) -> None:
    data = {
        "valid": False,
        "test_results": {"total": 2},
        "failing_tests": [],
        "unexpected_passes": [],
        "invalid_red": [{"name": HOSTILE, "reason": "NameError for [bold]x[/bold]"}],
        "refused_files": [{"path": "[red]../x.py", "reason": "contains '..'"}],
        "warnings": ["spec cases with no test: TC[1]"],
    }
    cli._report_red(Outcome("red", False, "invalid", data, files=(Path("/tmp/[art]/red.yaml"),)))
    err = capsys.readouterr().err
    for text in (HOSTILE, "[bold]x[/bold]", "[red]../x.py", "TC[1]", "/tmp/[art]/red.yaml"):
        assert text in err


def test_progress_prints_markup_like_messages_literally(capsys: pytest.CaptureFixture[str]) -> None:
    cli._progress(f"refused {HOSTILE}")
    assert HOSTILE in capsys.readouterr().err
