"""Interpreter gates: what their expressions evaluate to, and which mutants they leave out."""

from __future__ import annotations

import ast
import sys
from typing import Any

import pytest

from tddforge.mutation.gates import Gates, Interpreter, read_interpreter, same_value
from tddforge.mutation.generate import find_mutants, mutants_of

PY311 = Interpreter.from_data(
    {
        "sys.version_info": [3, 11, 7, "final", 0],
        "sys.version_info.major": 3,
        "sys.version_info.minor": 11,
        "sys.platform": "linux",
        "sys.implementation.name": "cpython",
        "os.name": "posix",
        "platform.python_implementation()": "CPython",
        "sys.__names__": ["platform", "version_info"],
    }
)
IMPORTS = "import os, sys\nimport platform as plat\nfrom sys import version_info as V\n"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("sys.version_info >= (3, 14)", False),
        ("sys.version_info[:2] == (3, 11)", True),
        ("sys.version_info[0] > 2", True),
        ("sys.version_info.minor", 11),
        ("V >= (3, 8)", True),
        ("sys.platform == 'win32'", False),
        ("sys.platform.startswith('win')", None),  # a method call: unknown
        ("os.name == 'nt' or sys.platform == 'linux'", True),
        ("not sys.version_info < (3,)", True),
        ("hasattr(sys, 'pypy_version_info')", False),
        ("hasattr(sys, 'platform')", True),
        ("hasattr(os, 'name')", None),  # only sys's attributes are facts
        ("hasattr('sys', 'platform')", None),  # a string is not the module
        ("sys.implementation.name == 'cpython'", True),
        ("plat.python_implementation() == 'PyPy'", False),
        ("sys.version_info >= (3, 8) and FLAG", None),  # a name that is not a fact
        ("(3, 8) < (3, 9)", None),  # no fact read: not a gate
        ("sys.maxsize > 2**32", None),  # a fact this interpreter's data lacks
        ("sys.version_info[x]", None),
    ],
)
def test_gate_values(expression: str, value: Any) -> None:
    tree = ast.parse(IMPORTS + f"x = 1\nresult = {expression}\n")
    node = tree.body[-1].value  # type: ignore[attr-defined]
    gates = Gates(tree, PY311)
    assert gates.known(node) is (value is not None)
    if value is not None:
        assert same_value(gates.value(node), value)


def test_a_name_bound_otherwise_is_not_the_module() -> None:
    tree = ast.parse("import sys\nsys = object()\nresult = sys.version_info >= (3, 8)\n")
    assert not Gates(tree, PY311).known(tree.body[-1].value)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [(True, True, True), (True, 1, False), ((3, 11), (3, 11), True), ((3, True), (3, 1), False)],
)
def test_same_value_is_typed(a: Any, b: Any, same: bool) -> None:
    assert same_value(a, b) is same


def _changes(source: str, interpreter: Interpreter | None = PY311) -> tuple[set, set]:
    found = mutants_of(source, True, interpreter)
    made = {(m.line, m.original, m.replacement) for m in found.made}
    left = {(m.line, m.original, m.replacement) for m in found.same_here}
    return made, left


GATED = """import sys
PY3 = sys.version_info[0] > 2
if sys.version_info >= (3, 14):
    import annotationlib
    LIMIT = 1
else:
    LIMIT = 2
PYPY = hasattr(sys, 'pypy_version_info')
"""


def test_changes_that_keep_a_gate_value_are_left_out() -> None:
    made, left = _changes(GATED)
    # the value stays True / False on 3.11: nothing a test could see
    assert (2, "2", "1") in left and (2, ">", ">=") in left
    assert (3, "14", "15") in left and (3, ">=", ">") in left
    assert (8, "'pypy_version_info'", "''") in left
    # the value changes: kept
    assert (2, "2", "3") in made  # 3 > 3 is False
    assert (3, ">=", "<") in made  # now the 3.14 branch runs
    assert (3, "sys.version_info >= (3, 14)", "not (sys.version_info >= (3, 14))") in made
    assert (2, "sys.version_info[0] > 2", "None") in made  # True becomes None
    assert (8, "hasattr(sys, 'pypy_version_info')", "None") in made


def test_the_branch_a_gate_never_takes_is_left_out() -> None:
    made, left = _changes(GATED)
    assert (5, "1", "0") in left and (5, "1", "2") in left  # the 3.14 branch's body
    assert (7, "2", "3") in made  # the else branch runs on 3.11


def test_without_the_interpreter_every_mutant_is_made() -> None:
    made, left = _changes(GATED, None)
    assert left == set()
    assert {(m.line, m.original, m.replacement) for m in find_mutants(GATED)} == made
    assert (3, "14", "15") in made and (5, "1", "0") in made


def test_the_gate_inside_a_larger_condition() -> None:
    source = "import sys\ndef f(x):\n    if sys.version_info >= (3, 8) and x:\n        return 1\n"
    made, left = _changes(source)
    assert (3, "8", "9") in left  # (3, 9) <= 3.11 too
    assert (3, ">=", "<") in made
    assert any(r == "or" or "not" in r for _, _, r in made)  # the `and` and the test still mutate


def test_reads_this_interpreter() -> None:
    found = read_interpreter(sys.executable)
    assert found is not None
    assert found.fact("sys.version_info") == tuple(sys.version_info)
    assert found.fact("sys.platform") == sys.platform
    assert ("pypy_version_info" in found.sys_names) == hasattr(sys, "pypy_version_info")
    assert read_interpreter("/no/such/python") is None
