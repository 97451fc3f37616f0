"""Helpers for driving the real ``tddforge`` CLI against the fake OpenAI server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tddforge.llm.fakeserver import FakeOpenAIServer

DATA = Path(__file__).resolve().parent.parent / "data"
FENCE = "```"


def file_block(path: str, content: str) -> str:
    """One ``### FILE:`` block as a model would write it."""
    return f"### FILE: {path}\n{FENCE}python\n{content}{FENCE}\n"


def clean_env() -> dict[str, str]:
    """Our environment without tddforge's or OpenAI's settings, but for the sandbox backend named."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TDDFORGE_", "OPENAI_")) or k == "TDDFORGE_SANDBOX"
    }


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tddforge ARGS`` in a clean environment."""
    base = clean_env()
    return subprocess.run(
        [sys.executable, "-m", "tddforge", *args],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def error_lines(stderr: str) -> list[str]:
    """stderr without progress lines ("· ..."): what an error leaves for the user to read."""
    return [line for line in stderr.strip().splitlines() if not line.startswith("· ")]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def calc_spec(tmp_path: Path) -> Path:
    target = tmp_path / "calc.yaml"
    shutil.copyfile(DATA / "specs" / "calc.yaml", target)
    return target


@pytest.fixture
def rate_spec(tmp_path: Path) -> Path:
    """The two-component rate limiter: constructors with keywords, attributes and errors."""
    target = tmp_path / "ratelimit.yaml"
    shutil.copyfile(DATA / "specs" / "ratelimit.yaml", target)
    return target
