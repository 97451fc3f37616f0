"""Calls other files make into a module while they are imported (mutation.import_calls)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.mutation.import_calls import bare_calls, calls_into
from tddforge.mutation.import_reads import project_import_code


@pytest.mark.parametrize(
    ("source", "calls"),
    [
        ("fill()\n", [(1, "fill()", "fill")]),
        (
            "import toolz\ntoolz._sigs.create_signature_registry()\n",
            [(2, "toolz._sigs.create_signature_registry()", "create_signature_registry")],
        ),
        (
            "register(\n    'a',\n    b=1,\n)\n",
            [(1, "register(\n    'a',\n    b=1,\n)", "register")],
        ),
        ("X = fill()\n", []),  # bound: not a bare call
        ("def f():\n    fill()\n", []),  # runs when called, not at import
        ("if True:\n    fill()\n", []),  # only top-level statements
        ("fill\n", []),
        ("make()()\n", []),  # no name to match
        ("def broken(:\n", []),
    ],
)
def test_bare_calls(source: str, calls: list[tuple[int, str, str]]) -> None:
    assert bare_calls(source) == calls


def test_only_other_files_calls_of_the_modules_functions(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "registry.py"
    module.write_text("TABLE = {}\n\n\ndef fill():\n    TABLE['a'] = 1\n\n\nfill()\n")
    (tmp_path / "pkg" / "__init__.py").write_text(
        "from . import registry\nregistry.fill()\nprint('x')\nregistry.TABLE.clear()\n"
    )
    (tmp_path / "pkg" / "other.py").write_text("def fill():\n    pass\n\n\nfill()\n")
    (tmp_path / "pkg" / "quiet.py").write_text("X = 1\n")
    _, calls = project_import_code(tmp_path)
    assert (tmp_path / "pkg" / "quiet.py").resolve() not in calls
    replays = calls_into(calls, module.resolve(), module.read_text())
    # the module's own call is not another file's; other.py's fill() is matched by name
    # here, and the worker tells it is not the registry's function
    assert sorted((Path(r["file"]).name, r["line"], r["source"]) for r in replays) == [
        ("__init__.py", 2, "registry.fill()"),
        ("other.py", 5, "fill()"),
    ]
