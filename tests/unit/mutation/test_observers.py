"""How far an import-time mutant reaches (pure): the names, the test files, or every test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.mutation.observers import (
    ProjectText,
    import_time_units,
    module_units,
    observe,
    reached_names,
    read_project,
)

MODULE = """\
import warnings
from other import register

TABLE = {"a": 1}
RULES = []
RULES.append("x")
LIMIT = 3
DERIVED = LIMIT * 2


def lookup(key):
    return TABLE.get(key)


def fill():
    RULES.append("y")


fill()


class Box:
    SIZE = 4

    def size(self):
        return self.SIZE


def unrelated(x=5):
    return x


register(LIMIT)
warnings.filterwarnings("ignore")
"""


@pytest.mark.parametrize(
    ("line", "elsewhere", "expected"),
    [
        # data, and the function reading it
        (4, "", {"TABLE", "lookup"}),
        # a method of the module's data changes that data; fill() mentions RULES, and the
        # call of the module's own function changes what it mentions
        (5, "", {"RULES", "fill"}),
        (6, "", {"RULES", "fill"}),
        # a class: its name and what its body binds
        (23, "", {"Box", "SIZE", "size"}),
        # a default: the function
        (30, "", {"unrelated"}),
        # another file computes from the data while imported
        (4, "from m import TABLE\nKEYS = list(TABLE)\n", {"TABLE", "lookup", "KEYS"}),
        # LIMIT goes into a call of another module's function: unbounded
        (7, "", None),
        # what nothing reads reaches no further
        (8, "", {"DERIVED"}),
        # the call itself, or a call into the standard library
        (34, "", None),
        (35, "", None),
    ],
)
def test_reached_names(line: int, elsewhere: str, expected: set[str] | None) -> None:
    units = module_units(MODULE)
    others = [import_time_units(elsewhere)] if elsewhere else []
    assert reached_names(units, line, others) == expected


def test_another_files_function_bodies_do_not_count_as_import_time_reads() -> None:
    units = import_time_units("from m import TABLE\n\n\ndef g():\n    return TABLE\n")
    assert [u.binds for u in units if "TABLE" in u.reads] == [frozenset({"TABLE"})]


def _text(**files: str) -> ProjectText:
    return ProjectText(
        tests={name: set(words.split()) for name, words in files.items()},
    )


def test_test_files_mentioning_a_reached_name_or_looking_names_up_are_kept() -> None:
    """A test file looking names up dynamically counts when it imports the mutated module
    (or a module importing it): without, it cannot hold the module's names."""
    text = _text(**{"tests/test_a.py": "lookup x", "tests/test_b.py": "other"})
    text.dynamic_tests |= {"tests/test_c.py", "tests/test_d.py", "tests/test_e.py"}
    text.tests["tests/test_c.py"] = {"vars", "m"}  # ``import m``
    text.tests["tests/test_d.py"] = {"vars", "other"}
    text.tests["tests/test_e.py"] = {"vars", "user"}  # ``import user``, which imports m
    text.imports = {"m.py": set(), "user.py": {"m"}, "other.py": {"os"}}
    text.names = {"m.py": "m", "user.py": "user", "other.py": "other"}
    found = observe(MODULE, "m.py", [4], text)[4]
    assert found == {
        "names": ["TABLE", "lookup"],
        "files": ["tests/test_a.py", "tests/test_c.py", "tests/test_e.py"],
    }


def test_code_elsewhere_looking_names_up_counts_when_it_imports_the_mutated_module() -> None:
    text = _text(**{"tests/test_a.py": "loader", "tests/test_b.py": "walker"})
    text.others = {"pkg/loader.py": {"\0dynamic"}, "pkg/walker.py": {"\0dynamic"}}
    text.imports = {"pkg/m.py": set(), "pkg/loader.py": {"pkg", "m"}, "pkg/walker.py": {"os"}}
    text.names = {"pkg/m.py": "m", "pkg/loader.py": "loader", "pkg/walker.py": "walker"}
    found = observe(MODULE, "pkg/m.py", [4], text)[4]
    assert found is not None and found["files"] == ["tests/test_a.py"]


def test_a_conftest_mentioning_a_reached_name_keeps_every_test() -> None:
    text = _text(**{"tests/test_a.py": "lookup"})
    text.conftests["tests/conftest.py"] = {"TABLE"}
    assert observe(MODULE, "m.py", [4], text)[4] is None


def test_code_elsewhere_reading_a_reached_name_at_run_time_keeps_the_tests_naming_it() -> None:
    text = _text(**{"tests/test_a.py": "helpers", "tests/test_b.py": "nothing"})
    text.others["tests/helpers.py"] = {"lookup"}
    text.names["tests/helpers.py"] = "helpers"
    found = observe(MODULE, "m.py", [4], text)[4]
    assert found is not None and found["files"] == ["tests/test_a.py"]


def test_read_project_separates_tests_conftests_and_runtime_code(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from .m import lookup\n",
        "pkg/m.py": MODULE,
        "pkg/loader.py": "def load(mod):\n    return vars(mod)\n",
        "tests/conftest.py": "import pytest\n",
        "tests/test_m.py": "from pkg import lookup\n\n\ndef test_it():\n    assert lookup('a')\n",
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    paths = sorted(tmp_path.rglob("*.py"))
    text = read_project(tmp_path, paths, [tmp_path / "tests/test_m.py"], [tmp_path / "pkg/m.py"])
    assert {"pkg/m.py", "pkg/__init__.py"} <= set(text.units)
    assert "pkg/m.py" not in text.others
    assert "lookup" in text.tests["tests/test_m.py"]
    assert set(text.conftests) == {"tests/conftest.py"}
    assert text.others["pkg/__init__.py"] == set()  # imports only: nothing runs later
    assert "\0dynamic" in text.others["pkg/loader.py"]
    assert text.names["pkg/loader.py"] == "loader"
    assert text.names["pkg/__init__.py"] == "pkg"
    assert text.imports["tests/test_m.py"] == {"pkg", "lookup"}
