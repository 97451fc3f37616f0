"""Graft mutants compiled while the baseline collects (target.graft.CompiledAhead)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tddforge.mutation.generate import find_mutants
from tddforge.target.baseline import _until_readable
from tddforge.target.blocks import Blocks
from tddforge.target.graft import CompiledAhead
from tddforge.target.request import Request
from tddforge.target.source import line_offsets

SOURCE = "LIMIT = 3\n\n\ndef clamp(value):\n    if value > LIMIT:\n        return LIMIT\n    return value\n"


def _request(tmp_path: Path) -> tuple[Request, list[Any]]:
    target = tmp_path / "sample.py"
    target.write_text(SOURCE)
    records = [dict(m.to_data(), target=str(target)) for m in find_mutants(SOURCE)]
    config = {"mutants": records, "targets": [str(target)], "results": str(tmp_path / "r.jsonl")}
    return Request.read(config), records  # type: ignore[arg-type]


def test_each_graft_mutant_is_compiled_as_the_collector_would(tmp_path: Path) -> None:
    request, records = _request(tmp_path)
    ahead = CompiledAhead(request)
    for _ in ahead.steps():
        pass
    grafts = [m for m in records if m["strategy"] == "graft"]
    assert grafts and len(grafts) < len(records)  # LIMIT = 3 is imported fresh
    assert set(ahead.code) == {m["id"] for m in grafts}
    blocks = Blocks(SOURCE, line_offsets(SOURCE))
    for m in grafts:
        assert ahead.code[m["id"]] == blocks.compile(m, m["target"])


def test_the_steps_stop_once_the_collection_has_something_to_say(tmp_path: Path) -> None:
    request, _ = _request(tmp_path)
    ahead = CompiledAhead(request)
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, b"{}")  # the baseline child sent what its collection imported
        _until_readable(read_fd, ahead.steps())
    finally:
        os.close(read_fd)
        os.close(write_fd)
    assert len(ahead.code) == 1  # one step taken, then the pipe was seen readable
