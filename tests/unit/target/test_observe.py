"""The worker's side of import-time mutants: which passing tests can see one (pure)."""

from __future__ import annotations

import pytest

from tddforge.target.baseline import Measured
from tddforge.target.observe import (
    Observers,
    code_words,
    connected,
    definitions,
    import_name,
    import_words,
    reflective,
)
from tddforge.target.protocol import MutantRecord

DATA = "TABLE = {}\n\n\ndef lookup(k):\n    return TABLE.get(k)\n"
OTHER = "from data import TABLE\n\n\ndef keys():\n    return list(TABLE)\n\n\ndef names(mod):\n    return dir(mod)\n\n\ndef plain():\n    return 1\n"
TESTS = {
    "tests/test_m.py::test_lookup": 0.3,  # runs lookup (data.py's own code)
    "tests/test_o.py::test_keys": 0.1,  # runs other.keys, which names TABLE
    "tests/test_o.py::test_names": 0.2,  # runs other.names, which looks names up
    "tests/test_o.py::test_plain": 0.05,  # runs nothing that can see TABLE
    "tests/test_t.py::test_table": 0.4,  # its file names TABLE
    "tests/test_w.py::test_walk": 0.02,  # looks names up, in a module not importing data.py
    "pkg/m.py::pkg.m": 0.01,  # a doctest: a file the host did not read
}


def _measured() -> Measured:
    cover = {
        ("data.py", 5): ["tests/test_m.py::test_lookup"],
        ("other.py", 5): ["tests/test_o.py::test_keys"],
        ("other.py", 9): ["tests/test_o.py::test_names"],
        ("other.py", 13): ["tests/test_o.py::test_plain"],
        ("walker.py", 5): ["tests/test_w.py::test_walk"],
    }
    by_speed = sorted(TESTS, key=TESTS.__getitem__)
    users = {"data.py": {"tests/test_m.py::test_lookup"}}
    return Measured(dict(TESTS), by_speed, cover, {}, 0.0, 1.0, 5.0, "data.py", users=users)


def _mutant(**extra: object) -> MutantRecord:
    base = {"id": "m1", "operator": "x", "line": 1, "col": 0, "end_line": 1, "end_col": 5}
    return {**base, "original": "", "replacement": "", "strategy": "fresh", **extra}  # type: ignore[return-value]


WALKER = "import os\n\n\ndef names(mod):\n    return dir(mod)\n"


def test_only_the_tests_that_can_see_the_mutant_run_fastest_first() -> None:
    """Looking names up counts in a module importing the mutated one (other.py), not in
    one that does not (walker.py: it cannot hold data.py's names)."""
    scanned = ["tests/test_m.py", "tests/test_o.py", "tests/test_t.py", "tests/test_w.py"]
    sources = {"data.py": DATA, "other.py": OTHER, "walker.py": WALKER}
    observers = Observers(sources, _measured(), scanned)
    seen = observers.of(
        _mutant(observe={"names": ["TABLE", "lookup"], "files": ["tests/test_t.py"]})
    )
    assert seen == [
        "pkg/m.py::pkg.m",
        "tests/test_o.py::test_keys",
        "tests/test_o.py::test_names",
        "tests/test_m.py::test_lookup",
        "tests/test_t.py::test_table",
    ]


def test_a_mutant_the_host_could_not_bound_keeps_every_test() -> None:
    observers = Observers({"data.py": DATA}, _measured(), [])
    assert observers.of(_mutant()) is None


@pytest.mark.parametrize(
    ("line", "dynamic"),
    [
        ("return dir(mod)", True),
        ("value = getattr(obj, name)", True),
        ("ns = module.__dict__", True),
        ("from pkg import *", True),
        ("sys.modules[name]", True),
        ("return obj.directory", False),
        ("x = getattribute", False),
        ("return TABLE", False),
        # one fixed attribute: the line mentions that name, which ``words`` sees
        ("self.__doc__ = getattr(func, '__doc__', None)", False),
        ('if hasattr(seq, "__len__"):', False),
        ("obj = getattr(obj, attr, None)", True),
        ("getattr(mod, 'x') or vars(mod)", True),
    ],
)
def test_what_counts_as_looking_names_up(line: str, dynamic: bool) -> None:
    assert reflective(line) is dynamic


WIDTH = """\
WIDTH = 8


def pad(text, width=WIDTH):
    return text.rjust(width)


class Box:
    def show(self, text, width=WIDTH):
        return text.center(width)


def plain():
    return 1
"""


def test_a_test_running_code_inside_a_reached_definition_sees_it_and_no_other() -> None:
    """A mutant of WIDTH changes pad's and Box.show's defaults: a test running their bodies
    sees it though no line it runs names WIDTH; one running only plain() does not."""
    tests = {"t::pad": 0.1, "t::show": 0.2, "t::plain": 0.3, "t::imports": 0.4, "t::none": 0.5}
    cover = {("w.py", 5): ["t::pad"], ("w.py", 10): ["t::show"], ("w.py", 14): ["t::plain"]}
    by_speed = sorted(tests, key=tests.__getitem__)
    users = {"w.py": {"t::pad", "t::show", "t::plain", "t::imports"}}
    measured = Measured(
        dict(tests), by_speed, cover, {}, 0.0, 1.0, 5.0, "w.py", users=users,
        importers={"w.py": {"t::imports"}},
    )  # fmt: skip
    observers = Observers({"w.py": WIDTH}, measured, ["t"])
    seen = observers.of(_mutant(observe={"names": ["WIDTH", "pad", "Box", "show"], "files": []}))
    assert seen == ["t::pad", "t::show", "t::imports"]


def test_definitions() -> None:
    assert definitions(WIDTH) == {
        "pad": range(4, 6),
        "Box": range(8, 11),
        "show": range(9, 11),
        "plain": range(13, 15),
    }
    assert definitions("def broken(:\n") == {}


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("x = 1  # the signatures\n", {"x"}),
        ("name = 'signatures'\n", {"name", "signatures"}),  # a string can name it
        ('"""doc about TABLE"""\n', {"doc", "about", "TABLE"}),
        ("x = (\n", {"x"}),  # does not tokenize: every word
    ],
)
def test_a_comment_names_nothing(source: str, found: set[str]) -> None:
    assert code_words(source) == found


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import a.b\nfrom c.d import e as f\n", {"a", "b", "c", "d", "e"}),
        ("def f():\n    from . import g\n", {"g"}),
        ("import importlib\nimportlib.import_module(name)\n", None),
        ("x = __import__(name)\n", None),
        ("def f(:\n", None),
    ],
)
def test_import_words(source: str, found: set[str] | None) -> None:
    assert import_words(source) == found


def test_connected_follows_imports_of_imports() -> None:
    imports = {"p/a.py": set(), "p/b.py": {"p", "a"}, "p/c.py": {"b"}, "p/d.py": {"os"}}
    names = {f: import_name(f) for f in imports}
    assert connected("p/a.py", imports, names) == ({"p/a.py", "p/b.py", "p/c.py"}, {"a", "b", "c"})
    assert import_name("p/__init__.py") == "p"
    assert connected("p/d.py", {**imports, "p/e.py": None}, {**names, "p/e.py": "e"})[0] == {
        "p/d.py",
        "p/e.py",
    }
