"""The worker starts before its config exists and waits for it (``serve.await_config``)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from tddforge.target.serve import await_config


def _write_later(path: Path, config: dict, delay: float) -> threading.Thread:  # type: ignore[type-arg]
    def write() -> None:
        time.sleep(delay)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(config), encoding="utf-8")
        partial.replace(path)

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def test_a_config_written_later_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    writer = _write_later(path, {"target": "m.py", "tests": [], "mutants": []}, 0.05)
    found = await_config(str(path))
    writer.join()
    assert found == {"target": "m.py", "tests": [], "mutants": []}


def test_an_abort_ends_the_wait_without_a_request(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    writer = _write_later(path, {"abort": True}, 0.02)
    assert await_config(str(path)) is None
    writer.join()


def test_no_config_within_patience_is_no_request(tmp_path: Path) -> None:
    started = time.monotonic()
    assert await_config(str(tmp_path / "never.json"), patience=0.05) is None
    assert time.monotonic() - started < 5
