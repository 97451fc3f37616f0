"""Whether pytest's rewritten plugin modules need writing, and which plugins stay out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.runner.plugin_cache import Plugin, plan

PROJECT = Path("/work/project")
SITE = Path("/venv/lib/python3.11/site-packages")


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        ([], (False, [])),  # no plugin, or no pytest
        ([Plugin("xdist", SITE / "xdist/plugin.py", True)], (False, [])),  # cached
        ([Plugin("xdist", SITE / "xdist/plugin.py", False)], (True, [])),
        # the project's own plugin is left out, and never the reason for a run
        ([Plugin("own", PROJECT / "src/own/plugin.py", False)], (False, ["own"])),
        (
            [
                Plugin("own", PROJECT / "src/own/plugin.py", False),
                Plugin("anyio", SITE / "anyio/pytest_plugin.py", False),
            ],
            (True, ["own"]),
        ),
        # a sibling directory whose name starts like the project's is not in it
        ([Plugin("x", Path("/work/project2/x.py"), False)], (True, [])),
    ],
)
def test_a_run_is_wanted_when_a_plugin_outside_the_project_is_not_cached(
    plugins: list[Plugin], expected: tuple[bool, list[str]]
) -> None:
    assert plan(plugins, PROJECT) == expected
