"""Which data mutants change nothing but their module's own globals (pure)."""

from __future__ import annotations

import pytest

from tddforge.target.purity import narrowable_lines

REGISTRY = """\
import inspect

TABLE = {}
TABLE["abs"] = dict(one=[lambda x: None], two=(0, lambda x, y=2: print(x)))
KEYS = sorted(["b", "a"])
found = {}


def fill(table=TABLE, found=found):
    for name, sigs in table.items():
        found[name] = tuple(expand(s) for s in sigs)


def expand(sig):
    made = []
    made.append(sig)
    return inspect.signature(sig) if callable(sig) else made
"""


@pytest.mark.parametrize(
    ("source", "line", "expected"),
    [
        ("X = 1\n", 1, True),
        ("X = [1, 2]\nX += [3]\n", 2, True),
        ("X = {'a': (1, lambda v=2: v)}\n", 1, True),  # a lambda's body is not run
        ("X = {}\nX['k'] = dict(a=1)\n", 2, True),  # an item of the module's data
        ("X = make()\n", 1, False),  # a call: it may write anywhere
        ("X = {'k': f(1)}\n", 1, False),
        ("import os\nos.environ['A'] = 'b'\n", 2, False),  # beyond the module
        ("import other\nother.X = 1\n", 2, False),
        ("X = [1]\nY = X\nY.append(2)\n", 3, True),  # still the module's data
        ("X = (lambda v=f(): v)\n", 1, False),  # a lambda's default is run
        ("def dict(**k):\n    return k\n\n\nX = dict(a=1)\n", 5, False),  # shadowed
        ("list = [1]\nX = list\n", 2, False),
        ("X = [1]\n\n\ndef f():\n    return X\n", 4, False),  # a function's line
        ("X = {'a': {}}\nX['a'].update(b=[lambda: 1])\n", 2, True),  # filled in place
        ("X = []\nX.append((1, 'a'))\n", 2, True),
        ("X = []\nX.append(make())\n", 2, False),
        ("import os\nos.environ.update(A='b')\n", 2, False),
        ("X = []\nX.frobnicate(1)\n", 2, False),  # not a method known to fill
    ],
)
def test_plain_data_statements(source: str, line: int, expected: bool) -> None:
    assert (line in narrowable_lines(source)) is expected


def test_a_registry_filled_by_another_file_is_narrowed_when_it_writes_only_its_data() -> None:
    lines = narrowable_lines(REGISTRY, frozenset({"fill"}))
    assert {3, 4, 5, 6} <= lines


@pytest.mark.parametrize(
    "fill",
    [
        # into a parameter the caller passes
        "def fill(table, found):\n    found['x'] = 1\n",
        # into another module's object
        "def fill(table=TABLE):\n    inspect.cache = table\n",
        "def fill(table=TABLE):\n    inspect.registry.update(table)\n",
        # through a name bound to something it did not build
        "def fill(table=TABLE):\n    for name in table:\n        name.x = 1\n",
        "def fill(table=TABLE):\n    reg = inspect.registry\n    reg['x'] = 1\n",
        # a module's global rebound
        "def fill():\n    global found\n    found = {}\n",
        # through a module function it calls
        "def fill(table=TABLE):\n    helper(table)\n\n\ndef helper(t):\n    inspect.x = t\n",
        # a parameter named as the module's data is the caller's object
        "def fill(TABLE):\n    TABLE['k'] = 1\n",
    ],
)
def test_a_replayed_call_writing_beyond_the_module_narrows_nothing(fill: str) -> None:
    source = REGISTRY.split("def fill")[0] + fill
    assert narrowable_lines(source, frozenset({"fill"})) == frozenset()


def test_an_unknown_replayed_function_narrows_nothing() -> None:
    assert narrowable_lines(REGISTRY, frozenset({"missing"})) == frozenset()


def test_a_syntax_error_narrows_nothing() -> None:
    assert narrowable_lines("X = (\n") == frozenset()
