"""The standard library's modules a fresh child would import, imported once before forking."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    found = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    return found.stdout.strip()


def test_only_standard_library_modules_are_named() -> None:
    out = _run(
        """
        import json, email.parser, pytest
        from tddforge.target.preload import stdlib_imported
        names = stdlib_imported()
        print("json" in names, "email.parser" in names, "pytest" in names,
              any(n.startswith("tddforge") for n in names), "sys" in names)
        """
    )
    # json and a submodule are named; pytest and the project are not; builtins need no import
    assert out == "True True False False False"


def test_preload_imports_what_is_missing_and_skips_the_unsafe() -> None:
    out = _run(
        """
        import sys
        from tddforge.target.preload import preload
        preload(["difflib", "this", "no_such_module_anywhere", "email.feedparser"])
        print("difflib" in sys.modules, "this" in sys.modules, "email.feedparser" in sys.modules)
        """
    )
    assert out == "True False True"  # "this" would print the Zen of Python
