"""Module globals a call rebinds, and the command line it reads: put back and pinned in its test."""

from __future__ import annotations

import ast

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome
from tddforge.builtin.module_state import (
    advanced_iterators,
    argv_readers,
    clock_lines,
    mutated_containers,
    rebound_globals,
    restoring,
    unclocked,
)
from tddforge.builtin.writer import write_module

REBOUND = [
    (
        "a global assigned, in the order declared",
        "A = 1\nB = 2\n\ndef set_(x):\n    global B, A\n    A = x\n    B += x\n",
        {(4, 7): ("B", "A")},
    ),
    ("declared but only read", "A = 1\n\ndef get():\n    global A\n    return A\n", {}),
    ("not bound at the top level", "def make():\n    global NEW\n    NEW = 1\n", {}),
    (
        "bound under if and try at the top",
        "try:\n    import re as R\nexcept ImportError:\n    R = None\nif R:\n    C = 1\n"
        "def f():\n    global C, R\n    C = R = 2\n",
        {(7, 9): ("C", "R")},
    ),
    (
        "a nested function's global is its own",
        "A = 1\n\ndef outer():\n    def inner():\n        global A\n        A = 2\n    A = 3\n",
        {(4, 6): ("A",)},
    ),
    (
        "a method",
        "A = 1\n\nclass K:\n    def m(self):\n        global A\n        A = 0\n",
        {(4, 6): ("A",)},
    ),
    ("a file that does not compile", "def f(:\n", {}),
]


@pytest.mark.parametrize(("case", "source", "expected"), REBOUND, ids=[c[0] for c in REBOUND])
def test_rebound_globals(
    case: str, source: str, expected: dict[tuple[int, int], tuple[str, ...]]
) -> None:
    assert rebound_globals(source) == expected


ARGV = [
    ("sys.argv", "import sys\n\ndef main():\n    return sys.argv[1:]\n", [(3, 4)]),
    ("parse_args with nothing", "def main():\n    return PARSER.parse_args()\n", [(1, 2)]),
    ("parse_known_args with nothing", "def main():\n    return p.parse_known_args()\n", [(1, 2)]),
    ("parse_args given a list", "def main(a):\n    return p.parse_args(a)\n", []),
    ("parse_args given args=", "def main(a):\n    return p.parse_args(args=a)\n", []),
    ("standard input", "import sys\n\ndef read():\n    return sys.stdin.read()\n", [(3, 4)]),
    ("input()", "def ask():\n    return input('name? ')\n", [(1, 2)]),
    ("another object's argv", "def f(o):\n    return o.argv\n", []),
    ("at import time", "import sys\nARGS = sys.argv\n", []),
]


@pytest.mark.parametrize(("case", "source", "expected"), ARGV, ids=[c[0] for c in ARGV])
def test_argv_readers(case: str, source: str, expected: list[tuple[int, int]]) -> None:
    ast.parse(source)
    assert argv_readers(source) == expected


MUTATED = [
    (
        "a registry in a class, through cls",
        "class Monitor:\n    seen = {}\n    @classmethod\n    def register(cls, b):\n"
        "        cls.seen[b.name] = b\n",
        {(4, 5): ("Monitor.seen",)},  # from its def line
    ),
    (
        "a module's list and set, by their methods, and an item deleted",
        "HOOKS = []\nSEEN = set()\nCACHE = dict()\n\ndef add(f):\n    HOOKS.append(f)\n"
        "    SEEN.add(f)\n    del CACHE[f]\n",
        {(5, 8): ("HOOKS", "SEEN", "CACHE")},
    ),
    (
        "a class's container named by the class, from a function",
        "class K:\n    items = []\n\ndef put(x):\n    K.items.insert(0, x)\n",
        {(4, 5): ("K.items",)},
    ),
    (
        "through self, unless self has one of its own",
        "class K:\n    shared = []\n    own = {}\n    def __init__(self):\n        self.own = {}\n"
        "    def m(self, x):\n        self.shared.append(x)\n        self.own[x] = 1\n",
        {(6, 8): ("K.shared",)},
    ),
    ("only read", "CACHE = {}\n\ndef get(k):\n    return CACHE.get(k)\n", {}),
    ("a local of the same name", "A = []\n\ndef f():\n    A = []\n    A.append(1)\n", {}),
    ("a parameter of the same name", "A = []\n\ndef f(A):\n    A.append(1)\n", {}),
    ("not a container", "P = Parser()\n\ndef f():\n    P.update(1)\n", {}),
    ("an import", "import sys\n\ndef f():\n    sys.path.append('x')\n", {}),
    ("a file that does not compile", "def f(:\n", {}),
]


@pytest.mark.parametrize(("case", "source", "expected"), MUTATED, ids=[c[0] for c in MUTATED])
def test_mutated_containers(
    case: str, source: str, expected: dict[tuple[int, int], tuple[str, ...]]
) -> None:
    assert mutated_containers(source) == expected


def test_a_call_that_changes_a_registry_runs_on_a_copy_of_it() -> None:
    """``CircuitBreakerMonitor.register`` adds to a class's dict: every test after it
    would see the breaker; its test patches in a copy, which pytest puts back."""
    changes = {(3, 5): ("Monitor.seen",)}
    results = [_result(Call("register", ("1",)), (4,)), _result(Call("other"), (9,))]
    found = restoring(results, {}, changes=changes)
    assert [r.call.copied for r in found] == [("Monitor.seen",), ()]
    source = write_module("mon", found)
    assert "import copy\n" in source
    assert "from mon import Monitor, other, register\n" in source
    assert (
        "    monkeypatch.setattr('mon.Monitor.seen', copy.copy(Monitor.seen))\n"
        "    assert register(1) is None\n"
    ) in source
    cases = write_module("mon", found, framework="unittest")
    assert "with unittest.mock.patch('mon.Monitor.seen', copy.copy(Monitor.seen)):" in cases


def _result(call: Call, lines: tuple[int, ...]) -> CallResult:
    arcs = frozenset((a, b) for a, b in zip((-1, *lines), (*lines, -1), strict=True))
    return CallResult(call, arcs, Outcome("return", "NoneType", "builtins", "None", True), True)


def test_restoring_names_what_the_lines_a_call_ran_rebind_and_read() -> None:
    rebinds = {(4, 7): ("B", "A"), (9, 12): ("C", "A")}
    results = [
        _result(Call("set_"), (5, 6)),
        _result(Call("both"), (10, 5)),
        _result(Call("main"), (20, 21)),
        _result(Call("other"), (30,)),
    ]
    found = restoring(results, rebinds, [(19, 22)], "tool")
    assert [(r.call.restore, r.call.argv) for r in found] == [
        (("B", "A"), ""),
        (("B", "A", "C"), ""),
        ((), "tool"),
        ((), ""),
    ]
    assert found[3] is results[3]


ITERATORS = """\
import itertools
from itertools import count as _count

_ids = _count(start=1)
_serials = itertools.count(100, 2)
_lines = iter(LINES)
_seen = set()


def create():
    return next(_ids)


def serial():
    return next(_serials), next(_serials)


def line():
    return next(_lines)


def local():
    _ids = iter([1])
    return next(_ids)


def unused():
    return _serials
"""


def test_advanced_iterators_are_found_with_the_source_that_builds_them_afresh() -> None:
    spans, fresh = advanced_iterators(ITERATORS)
    assert spans == {(10, 11): ("_ids",), (14, 15): ("_serials",)}
    # ``_lines`` is built from a name, not literals: no source to build it afresh; a name
    # a function binds itself is its own; a container is ``mutated_containers``' concern
    assert fresh == {"_ids": "_count(start=1)", "_serials": "itertools.count(100, 2)"}
    assert advanced_iterators("def broken(:\n") == ({}, {})


def test_restoring_builds_an_advanced_iterator_afresh_instead_of_putting_it_back() -> None:
    spans, fresh = advanced_iterators(ITERATORS)
    rebinds = {(10, 11): ("_ids",), (30, 31): ("_ids",)}  # a reset rebinds it too
    results = [_result(Call("create"), (10,)), _result(Call("reset"), (30,))]
    found = restoring(results, rebinds, advances=(spans, fresh))
    assert [(r.call.restore, r.call.rebuilt) for r in found] == [
        ((), (("_ids", "_count(start=1)"),)),
        (("_ids",), ()),
    ]
    source = write_module("world", found)
    assert "from world import _count, _ids, create, reset\n" in source
    assert "    monkeypatch.setattr('world._ids', _count(start=1))\n" in source
    serial = Call("serial", rebuilt=(("_serials", "itertools.count(100, 2)"),))
    written = write_module("world", [_result(serial, (14,))])
    assert "itertools" in written.split("def ", 1)[0]  # imported, one way or another
    assert "    monkeypatch.setattr('world._serials', itertools.count(100, 2))\n" in written


def test_the_writer_puts_globals_back_and_pins_the_command_line() -> None:
    results = [
        _result(Call("configure", ("'Hi'",), restore=("GREETING",)), (5,)),
        _result(Call("main", argv="greetings"), (9,)),
    ]
    source = write_module("greetings", results)
    assert "import io\n" in source
    assert "from greetings import GREETING, configure, main\n" in source
    assert (
        "def test_configure_returns_none(monkeypatch: pytest.MonkeyPatch) -> None:\n"
        "    monkeypatch.setattr('greetings.GREETING', GREETING)\n"
        "    assert configure('Hi') is None\n"
    ) in source
    assert (
        "    monkeypatch.setattr('sys.argv', ['greetings'])\n"
        "    monkeypatch.setattr('sys.stdin', io.StringIO())\n"
        "    monkeypatch.setattr('sys.stdout', io.StringIO())\n"
        "    assert main() is None\n"
    ) in source
    cases = write_module("greetings", results, framework="unittest")
    assert (
        "        with unittest.mock.patch('greetings.GREETING', GREETING):\n"
        "            self.assertIs(configure('Hi'), None)\n"
    ) in cases
    assert "import unittest.mock\n" in cases
    assert "unittest.mock.patch('sys.argv', ['greetings'])," in cases


CLOCK = """\
import datetime
import time
from datetime import date


class TOTP:
    def now(self):
        return self.at(time.time())

    def at(self, moment):
        return int(moment) // 30

    def stamp(self, moment=None):
        return time.strftime("%Y", time.localtime(moment))

    def today(self):
        return date.today(), datetime.datetime.now(datetime.timezone.utc)

    def label(self):
        return time.strftime("%Y")
"""


def test_clock_lines_are_the_calls_that_read_the_wall_clock_through_datetime() -> None:
    # date.today() and datetime.datetime.now(tz); the time module's clock is shifted in
    # the second run instead (target/clock.py)
    assert clock_lines(CLOCK) == frozenset({17})
    assert clock_lines("def f(:\n") == frozenset()


def test_a_call_that_read_the_clock_is_asserted_through_its_type() -> None:
    value = Outcome("return", "int", "builtins", "58800000", True)
    now = CallResult(Call("TOTP.today", init_args=()), frozenset({(16, 17)}), value, True)
    at = CallResult(Call("TOTP.at", ("1",), init_args=()), frozenset({(10, 11)}), value, True)
    raised = Outcome("raise", "ValueError", "builtins", message="m")
    late = CallResult(Call("TOTP.today", init_args=()), frozenset({(16, 17)}), raised, True)
    found = unclocked([now, at, late], clock_lines(CLOCK))
    assert found[0].outcome == Outcome("return", "int", "builtins", varies=True)
    assert found[1:] == [at, late]  # it read no clock; an exception keeps its type and text
    assert "assert isinstance(result, int)" in write_module("otp", found[:1])
