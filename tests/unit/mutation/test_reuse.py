"""When may a cached verdict be reused? (the worker's pure decision, as a table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.mutation import fingerprints as fp
from tddforge.target.reuse import is_unchanged, looping, reusable, still_passing

A, B, C = "t.py::test_a", "t.py::test_b", "t.py::TestK::test_c[1]"
UNCHANGED = {"t.py::test_a", "t.py::TestK::*", "t.py"}


@pytest.mark.parametrize(
    ("prior", "covering", "reused"),
    [
        (None, [A], None),
        ({"verdict": "killed", "killer": A, "ran": [A]}, [A, B], "killed"),
        ({"verdict": "killed", "killer": B, "ran": [A, B]}, [A, B], None),  # killer edited
        ({"verdict": "killed", "killer": A, "ran": [A]}, [B], None),  # killer no longer covers
        (
            {"verdict": "killed", "killer": C, "ran": [C]},
            [C],
            "killed",
        ),  # class method via class key
        ({"verdict": "killed", "killer": "collection: t.py", "ran": []}, [A], "killed"),
        ({"verdict": "killed", "killer": "collection: u.py", "ran": []}, [A], None),
        # the mutated module failed to run (a rebind): no test, nothing else changed
        ({"verdict": "killed", "killer": "collection: TypeError", "ran": []}, [A], "killed"),
        ({"verdict": "killed", "killer": "collection: u/v.py", "ran": []}, [A], None),
        ({"verdict": "survived", "ran": [A, C]}, [A, C], "survived"),
        ({"verdict": "survived", "ran": [A]}, [A, C], None),  # a test now covers it that never ran
        ({"verdict": "survived", "ran": [A, B]}, [A, B], None),  # an edited test covers it
        ({"verdict": "no-coverage", "ran": []}, [], "no-coverage"),
        ({"verdict": "no-coverage", "ran": []}, [A], None),  # now covered
        # the same code under the same unchanged tests loops again
        ({"verdict": "timeout", "ran": [A, C]}, [A, C], "timeout"),
        ({"verdict": "timeout", "ran": [A]}, [A, C], None),  # a test now covers it that never ran
        ({"verdict": "timeout", "ran": [A, B]}, [A, B], None),  # an edited test covers it
        # the test it timed out in is known: unchanged tests after it never ran, nor would
        ({"verdict": "timeout", "killer": A, "ran": [A]}, [A, C], "timeout"),
        ({"verdict": "timeout", "killer": A, "ran": [A]}, [A, B], None),  # B edited: B runs
        ({"verdict": "timeout", "killer": B, "ran": [A, B]}, [A, B], None),  # it was edited
        ({"verdict": "timeout", "killer": A, "ran": [A]}, [C], None),  # it covers it no more
        ({"verdict": "error", "ran": []}, [A], None),
    ],
)
def test_reusable(prior: dict | None, covering: list[str], reused: str | None) -> None:
    verdict = reusable(prior, covering, UNCHANGED)
    assert (verdict or {}).get("verdict") == reused


@pytest.mark.parametrize(
    ("prior", "covering", "passed"),
    [
        (None, [A, C], []),
        ({"verdict": "survived", "ran": [A]}, [A, C], [A]),  # C is new: only C runs
        ({"verdict": "survived", "ran": [A, B]}, [A, B], [A]),  # B was edited: B runs
        ({"verdict": "survived", "ran": [A, C]}, [C], [C]),  # A no longer covers it
        ({"verdict": "survived", "ran": [A]}, [A, B], [A]),
        ({"verdict": "survived", "ran": []}, [A, C], []),
        # a kill, a timeout or an error proves nothing of the tests it ran
        ({"verdict": "killed", "killer": B, "ran": [A, B]}, [A, B], []),
        ({"verdict": "timeout", "ran": [A]}, [A, C], []),
        # a timeout whose test is known: those that ran before it passed
        ({"verdict": "timeout", "killer": C, "ran": [A, C]}, [A, B, C], [A]),
        ({"verdict": "timeout", "killer": B, "ran": [A, B]}, [A, B], []),  # its test edited
        ({"verdict": "error", "ran": [A]}, [A, C], []),
        ({"verdict": "no-coverage", "ran": []}, [A], []),
    ],
)
def test_still_passing(prior: dict | None, covering: list[str], passed: list[str]) -> None:
    assert still_passing(prior, covering, UNCHANGED) == passed  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prior", "covering", "looped"),
    [
        (None, [A], None),
        ({"verdict": "timeout", "killer": A, "ran": [A]}, [A, B], A),
        ({"verdict": "timeout", "killer": C, "ran": [A, C]}, [A, C], C),  # a method, by class
        ({"verdict": "timeout", "killer": B, "ran": [A, B]}, [A, B], None),  # edited
        ({"verdict": "timeout", "killer": A, "ran": [A]}, [B], None),  # no longer covers it
        ({"verdict": "timeout", "ran": [A]}, [A], None),  # which test timed out is unknown
        ({"verdict": "killed", "killer": A, "ran": [A]}, [A], None),
    ],
)
def test_looping(prior: dict | None, covering: list[str], looped: str | None) -> None:
    assert looping(prior, covering, UNCHANGED) == looped  # type: ignore[arg-type]


def test_a_module_that_failed_to_run_is_not_reused_when_anything_else_changed() -> None:
    """``unchanged`` is empty when another project file or an import-time line changed."""
    prior = {"verdict": "killed", "killer": "collection: TypeError", "ran": []}
    assert reusable(prior, [A], set()) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        ("t.py::test_a", True),
        ("t.py::test_a[param-1]", True),
        ("t.py::test_b", False),
        ("t.py::TestK::test_anything", True),
        ("t.py::TestOther::test_c", False),
        ("collection: t.py", True),
        ("collection: u.py", False),
    ],
)
def test_is_unchanged(nodeid: str, expected: bool) -> None:
    assert is_unchanged(nodeid, UNCHANGED) is expected


SOURCE = """import pytest

HELPER = 1


def test_one():
    assert HELPER == 1


def test_two():
    assert True


class TestBase:
    def test_inherited(self):
        assert True


class TestChild(TestBase):
    pass
"""


def _prints(tmp_path: Path, source: str) -> dict[str, str]:
    (tmp_path / "tests").mkdir(exist_ok=True)
    path = tmp_path / "tests" / "test_x.py"
    path.write_text(source)
    return fp.fingerprints(tmp_path, [path])


def test_fingerprint_keys(tmp_path: Path) -> None:
    assert sorted(_prints(tmp_path, SOURCE)) == [
        "tests/test_x.py",
        "tests/test_x.py::TestBase::*",
        "tests/test_x.py::TestChild::*",
        "tests/test_x.py::test_one",
        "tests/test_x.py::test_two",
    ]


@pytest.mark.parametrize(
    ("edit", "changed"),
    [
        (("assert True\n\n\nclass", "assert 1 == 1\n\n\nclass"), {"tests/test_x.py::test_two"}),
        (
            ("HELPER = 1", "HELPER = 2"),
            {
                "tests/test_x.py::test_one",
                "tests/test_x.py::test_two",
                "tests/test_x.py::TestBase::*",
                "tests/test_x.py::TestChild::*",
            },
        ),
        (
            ("    pass\n", "    def test_more(self):\n        assert True\n"),
            {"tests/test_x.py::TestBase::*", "tests/test_x.py::TestChild::*"},
        ),
        (("", "\n\ndef test_added():\n    assert True\n"), set()),
    ],
)
def test_only_what_a_test_depends_on_changes_its_fingerprint(
    tmp_path: Path, edit: tuple[str, str], changed: set[str]
) -> None:
    before = _prints(tmp_path, SOURCE)
    after = _prints(tmp_path, SOURCE.replace(*edit, 1) if edit[0] else SOURCE + edit[1])
    differing = {k for k in before if k != "tests/test_x.py" and before[k] != after.get(k)}
    assert differing == changed
    unchanged = set(fp.unchanged(before, after))
    assert not changed & unchanged


@pytest.mark.parametrize(
    ("edit", "collection_changes"),
    [
        (("", "\n\ndef test_added():\n    assert True\n"), False),
        (("assert HELPER == 1", "assert HELPER == 2"), False),
        (("", "\n\n@pytest.mark.parametrize('x', [1])\ndef test_p(x):\n    pass\n"), True),
        (("import pytest", "import pytest\nimport os"), True),
        (("    pass\n", "    X = 1\n"), True),
    ],
)
def test_collection_key_covers_only_import_time_code(
    tmp_path: Path, edit: tuple[str, str], collection_changes: bool
) -> None:
    before = _prints(tmp_path, SOURCE)["tests/test_x.py"]
    after = _prints(tmp_path, SOURCE.replace(*edit, 1) if edit[0] else SOURCE + edit[1])[
        "tests/test_x.py"
    ]
    assert (before != after) is collection_changes


CASES = """import unittest

from m import f, g


class TestF(unittest.TestCase):
    LIMIT = 3

    def setUp(self):
        self.x = 1

    def test_one(self):
        self.assertEqual(f(self.x), 1)

    def test_two(self):
        self.assertEqual(g(self.LIMIT), 2)


class TestG(unittest.TestCase):
    def test_three(self):
        self.assertTrue(g(1))
"""


def test_a_method_has_its_own_fingerprint_when_no_class_inherits_another(
    tmp_path: Path,
) -> None:
    """A pruned unittest suite keeps the verdicts of the tests it kept: dropping
    ``test_two`` leaves ``test_one``'s fingerprint as it was, while an edit to what the
    class holds (``setUp``, an attribute) changes each of its methods'."""
    before = _prints(tmp_path, CASES)
    keys = {k for k in before if k.count("::") == 2 and not k.endswith("*")}
    assert keys == {
        "tests/test_x.py::TestF::test_one",
        "tests/test_x.py::TestF::test_two",
        "tests/test_x.py::TestG::test_three",
    }
    dropped = CASES.replace(
        "\n    def test_two(self):\n        self.assertEqual(g(self.LIMIT), 2)\n", ""
    )
    after = _prints(tmp_path, dropped)
    unchanged = set(fp.unchanged(before, after))
    assert {"tests/test_x.py::TestF::test_one", "tests/test_x.py::TestG::test_three"} <= unchanged
    assert "tests/test_x.py::TestF::*" not in unchanged  # the class as a whole changed
    assert is_unchanged("tests/test_x.py::TestF::test_one", unchanged)
    assert not is_unchanged("tests/test_x.py::TestF::test_two", unchanged)
    for edit in (("self.x = 1", "self.x = 2"), ("LIMIT = 3", "LIMIT = 4")):
        edited = set(fp.unchanged(before, _prints(tmp_path, CASES.replace(*edit))))
        assert "tests/test_x.py::TestF::test_one" not in edited
        assert "tests/test_x.py::TestG::test_three" in edited
    # a class that inherits another of the file's: its methods go by the class only
    inheriting = CASES.replace("class TestG(unittest.TestCase)", "class TestG(TestF)")
    assert not any(k.endswith("::test_one") for k in _prints(tmp_path, inheriting))


def test_conftest_edits_change_every_fingerprint(tmp_path: Path) -> None:
    before = _prints(tmp_path, SOURCE)
    (tmp_path / "tests" / "conftest.py").write_text("import pytest\n")
    after = _prints(tmp_path, SOURCE)
    assert fp.unchanged(before, after) == []


def test_only_passing_unchanged_tests_keep_their_baseline_records() -> None:
    from tddforge.target.reuse import reusable_baseline

    prior = {
        A: {
            "outcome": "passed",
            "duration": 0.1,
            "lines": {"m.py": [3]},
            "imports": {},
            "imported": [],
            "writes": [],
        },
        B: {
            "outcome": "passed",
            "duration": 0.1,
            "lines": {"m.py": [4]},
            "imports": {},
            "imported": [],
            "writes": [],
        },  # edited since
        C: {
            "outcome": "passed",
            "duration": 0.1,
            "lines": {"m.py": [5]},
            "imports": {},
            "imported": [],
            "writes": [],
        },  # unchanged class
        "t.py::test_skip": {
            "outcome": "skipped",
            "duration": 0.0,
            "lines": {},
            "imports": {},
            "imported": [],
            "writes": [],
        },
    }
    config = {"prior_baseline": prior, "unchanged_tests": [*UNCHANGED, "t.py::test_skip"]}
    assert sorted(reusable_baseline(config)) == sorted([A, C])
    # a record from before the project guard does not say what its test wrote: run it again
    del prior[C]["writes"]
    assert sorted(reusable_baseline(config)) == [A]


IMPORTS = """from math import floor


def test_a():
    assert floor(1.5) == 1


def test_b():
    assert True
"""


@pytest.mark.parametrize(
    ("edit", "changed", "collection_changes"),
    [
        # one more name for a new test: the old tests stay reusable
        (("from math import floor", "from math import ceil, floor"), set(), True),
        # the name a test reads now comes from elsewhere: that test changes
        (("from math import floor", "from math import ceil as floor"), {"test_a"}, True),
        # another module is imported: everything may differ
        (
            ("from math import floor", "from math import floor\nfrom os import sep"),
            {"test_a", "test_b"},
            True,
        ),
        (
            ("from math import floor", "from math import floor\nimport os"),
            {"test_a", "test_b"},
            True,
        ),
        # importing pytest runs nothing under pytest: only a test reading the name changes
        (("from math import floor", "from math import floor\nimport pytest"), set(), True),
        (
            (
                "from math import floor\n",
                "from math import floor\nimport pytest\n\n\n"
                "def test_c():\n    with pytest.raises(ValueError):\n        int('x')\n",
            ),
            set(),
            True,
        ),
        (("assert floor(1.5) == 1", "assert pytest.approx(floor(1.5)) == 1"), {"test_a"}, False),
        # pytest imports re, decimal and datetime itself: importing one (as a generated suite
        # does while some test calls re.escape) changes only the tests that read the name
        (("from math import floor", "import re\nfrom math import floor"), set(), True),
        (
            ("from math import floor", "import datetime\nimport decimal\nfrom math import floor"),
            set(),
            True,
        ),
        (
            (
                "from math import floor\n",
                "import re\nfrom math import floor\n\n\n"
                "def test_c():\n    assert re.escape('.') == '\\\\.'\n",
            ),
            set(),
            True,
        ),
    ],
)
def test_from_imports_count_by_the_names_each_test_reads(
    tmp_path: Path, edit: tuple[str, str], changed: set[str], collection_changes: bool
) -> None:
    before = _prints(tmp_path, IMPORTS)
    after = _prints(tmp_path, IMPORTS.replace(*edit, 1))
    differing = {k.split("::")[-1] for k in before if "::" in k and before[k] != after.get(k)}
    assert differing == changed
    assert (before["tests/test_x.py"] != after["tests/test_x.py"]) is collection_changes


@pytest.mark.parametrize(
    "source",
    [
        "def test_a():\n    assert 1\n",
        "x = 1\r\ndef test_a():\r\n    assert x\r\n",
        "x = 1\rdef test_a():\r    assert x\r",
        "s = '\f'\ndef test_é():\n    assert 'ü' + s == 'ü\f'\n",  # a form feed ends no line
        "class TestA:\n    def test_a(self):\n        assert [\n            1,\n        ]\n",
        "x = 1; y = 'ünï'; z = (\n  x,\n  y)",  # no newline at the end
    ],
)
def test_segments_match_the_stdlib(source: str) -> None:
    import ast

    segment = fp.Segments(source)
    nodes = list(ast.walk(ast.parse(source)))
    assert len(nodes) > 3
    for node in nodes:
        assert segment(node) == (ast.get_source_segment(source, node) or "")
