"""Inputs mined from the project's own tests: call shapes and literal arguments, statically."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tddforge.builtin.discover import CallableInfo, ClassInfo, InstanceInfo, ModuleInfo, Param
from tddforge.builtin.explore import Call, Step
from tddforge.builtin.from_tests import (
    ancestor_reexports,
    calls_from_tests,
    consuming,
    package_reexports,
    project_test_sources,
    read_tests,
    star_names,
)
from tddforge.builtin.writer import bound_names


def _callable(name: str, qualname: str, kind: str) -> CallableInfo:
    return CallableInfo(
        name=name,
        qualname=qualname,
        kind=kind,
        parameters=(),
        returns=None,
        docstring=None,
        doctests=(),
        is_async=False,
        is_generator=False,
        lines=None,
    )


INFO = ModuleInfo(
    name="pkg.docs",
    file=None,
    docstring=None,
    doctests=(),
    functions=(_callable("parse", "parse", "function"),),
    classes=(
        ClassInfo(
            name="Game",
            docstring=None,
            doctests=(),
            constructor=_callable("Game", "Game", "constructor"),
            methods=(
                _callable("roll", "Game.roll", "method"),
                _callable("load", "Game.load", "classmethod"),
            ),
            properties=(),
            is_abstract=False,
            is_exception=False,
            lines=None,
        ),
        ClassInfo(  # no ``__init__`` of its own: built as ``Plain()``
            name="Plain",
            docstring=None,
            doctests=(),
            constructor=None,
            methods=(_callable("feed", "Plain.feed", "method"),),
            properties=(),
            is_abstract=False,
            is_exception=False,
            lines=None,
        ),
    ),
)

CASES = [
    (
        "imported function, literal text",
        'from pkg.docs import parse\n\ndef test_a():\n    assert parse("Args:\\n    x: int")\n',
        [Call("parse", ("'Args:\\n    x: int'",))],
    ),
    (
        "module alias and keyword",
        "import pkg.docs as d\n\ndef test_a():\n    d.parse('a', strict=True)\n",
        [Call("parse", ("'a'",), (("strict", "True"),))],
    ),
    (
        "from the package",
        "from pkg import docs\n\ndef test_a():\n    docs.parse(b'x')\n",
        [Call("parse", ("b'x'",))],
    ),
    (
        "a method on an instance built in the test",
        "from pkg.docs import Game\n\ndef test_a():\n    g = Game(3)\n    g.roll(10)\n    g.roll(x)\n",
        [Call("Game", ("3",)), Call("Game.roll", ("10",), init_args=("3",))],
    ),
    (
        "a class method",
        "from pkg.docs import Game\n\ndef test_a():\n    Game.load([1, 2])\n",
        [Call("Game.load", ("[1, 2]",))],
    ),
    (
        "a non-literal argument is skipped",
        "from pkg.docs import parse\n\ndef test_a():\n    parse(make())\n    parse(*args)\n",
        [],
    ),
    (
        "another module's parse is not ours",
        "from json import parse\nimport docs\n\ndef test_a():\n    parse('x')\n",
        [],
    ),
    (
        "a method on an instance built in setUp",
        "import unittest\nfrom pkg import docs\n\nclass T(unittest.TestCase):\n"
        "    def setUp(self):\n        self.game = docs.Game(2)\n\n"
        "    def test_a(self):\n        self.game.roll('x.y')\n",
        [Call("Game", ("2",)), Call("Game.roll", ("'x.y'",), init_args=("2",))],
    ),
    (
        "setUp's instance is its own class's only",
        "from pkg.docs import Game\n\nclass A:\n    def setup_method(self):\n"
        "        self.game = Game(1)\n\nclass B:\n    def test_b(self):\n        self.game.roll(4)\n",
        [Call("Game", ("1",))],
    ),
    (
        "a method on a fixture's instance",
        "import pytest\nfrom pkg.docs import Game\n\n@pytest.fixture\ndef game():\n"
        "    return Game(5)\n\ndef test_a(game):\n    game.roll(1)\n",
        [Call("Game", ("5",)), Call("Game.roll", ("1",), init_args=("5",))],
    ),
    (
        "a fixture with options that yields a built name",
        "import pytest\nfrom pkg.docs import Game\n\n@pytest.fixture(scope='module')\n"
        "def g():\n    made = Game(6)\n    yield made\n\ndef test_a(g):\n    g.roll(2)\n",
        [Call("Game", ("6",)), Call("Game.roll", ("2",), init_args=("6",))],
    ),
    (
        "a test that does not ask for the fixture",
        "import pytest\nfrom pkg.docs import Game\n\n@pytest.fixture\ndef game():\n"
        "    return Game(5)\n\ndef test_a():\n    game.roll(1)\n",
        [Call("Game", ("5",))],
    ),
    (
        "a text assigned to a name first",
        "from pkg.docs import parse\n\ndef test_a():\n    s = 'a\\nb'\n    parse(s)\n"
        "    s = make()\n    parse(s)\n",
        [Call("parse", ("'a\\nb'",))],
    ),
    (
        "a loop over the module's table, by subscript",
        "from pkg.docs import parse\n\nDATA = (('x', 'X'), ('y z', 'Y Z'))\n\n"
        "class T:\n    def test_a(self):\n        for data in DATA:\n"
        "            with self.subTest(data=data):\n                parse(data[0], data[1])\n",
        [Call("parse", ("'x'", "'X'")), Call("parse", ("'y z'", "'Y Z'"))],
    ),
    (
        "a loop unpacking rows of .items(), and enumerate",
        "from pkg.docs import parse\n\ndef test_a():\n"
        "    for text, n in {'a': 1, 'b': 2}.items():\n        parse(text, n)\n"
        "    for i, t in enumerate(['c']):\n        parse(t, strict=i)\n",
        [
            Call("parse", ("'a'", "1")),
            Call("parse", ("'c'",), (("strict", "0"),)),
            Call("parse", ("'b'", "2")),
        ],
    ),
    (
        "parametrize: names in one string, rows, a pytest.param row",
        "import pytest\nfrom pkg.docs import parse\n\nCASES = ['q', pytest.param('r', id='r')]\n\n"
        "@pytest.mark.parametrize('text, n', [('a', 1), pytest.param('b', 2, marks=[])])\n"
        "def test_a(text, n):\n    parse(text, n)\n\n"
        "@pytest.mark.parametrize(('text',), [('c',)])\n"
        "@pytest.mark.parametrize('flag', [True])\ndef test_b(text, flag):\n"
        "    parse(text, flag)\n\n"
        "@pytest.mark.parametrize('word', CASES)\ndef test_c(word):\n    parse(word)\n",
        [
            Call("parse", ("'a'", "1")),
            Call("parse", ("'c'", "True")),
            Call("parse", ("'q'",)),
            Call("parse", ("'b'", "2")),
            Call("parse", ("'r'",)),
        ],
    ),
    (
        "parametrize on the class, a table in the class body",
        "import pytest\nfrom pkg.docs import Game\n\n@pytest.mark.parametrize('n', [1, 2])\n"
        "class TestGame:\n    ROLLS = [7]\n\n    def test_a(self, n):\n"
        "        for r in self.ROLLS:\n            Game(n).roll(r + 1)\n",
        [
            Call("Game.roll", ("8",), init_args=("1",)),
            Call("Game", ("1",)),
            Call("Game.roll", ("8",), init_args=("2",)),
            Call("Game", ("2",)),
        ],
    ),
    (
        "an indirect parametrize binds nothing",
        "import pytest\nfrom pkg.docs import parse\n\n"
        "@pytest.mark.parametrize('text', ['a'], indirect=True)\ndef test_a(text):\n    parse(text)\n",
        [],
    ),
    (
        "a comprehension over a table; its name is not bound after",
        "from pkg.docs import parse\n\ndef test_a():\n"
        "    assert all([parse(w) for w in ('a', 'b') if w])\n    parse(w)\n",
        [Call("parse", ("'a'",)), Call("parse", ("'b'",))],
    ),
    (
        "a fixture that returns a literal text",
        "import pytest\nfrom pkg.docs import parse\n\n@pytest.fixture\ndef text():\n"
        "    return 'Args:\\n' + '    x: int'\n\ndef test_a(text):\n    parse(text)\n",
        [Call("parse", ("'Args:\\n    x: int'",))],
    ),
    (
        "a loop over unknown items unbinds its name",
        "from pkg.docs import parse\n\ndef test_a():\n    w = 'a'\n"
        "    for w in load():\n        parse(w)\n",
        [],
    ),
    (
        "instances in a table",
        "from pkg.docs import Game\n\ndef test_a():\n    for g in [Game(1), Game(2)]:\n"
        "        g.roll(3)\n",
        [
            Call("Game", ("1",)),
            Call("Game", ("2",)),
            Call("Game.roll", ("3",), init_args=("1",)),
            Call("Game.roll", ("3",), init_args=("2",)),
        ],
    ),
    (
        "a value whose repr does not read back is left out",
        "from pkg.docs import parse\n\ndef test_a():\n    parse(float('nan'))\n    parse(1e308 * 10)\n",
        [],
    ),
    (
        "a star import of the module",
        "from pkg.docs import *\n\ndef test_a():\n    parse('x')\n",
        [Call("parse", ("'x'",))],
    ),
    ("a file that does not compile", "from pkg.docs import parse\ndef test_a(:\n", []),
    (
        "each call once, in order",
        "from pkg.docs import parse\n\ndef test_a():\n    parse('b')\n    parse('a')\n    parse('b')\n",
        [Call("parse", ("'b'",)), Call("parse", ("'a'",))],
    ),
    (
        "a helper function of the test file, its parameters bound per call site",
        "from pkg.docs import parse\n\ndef check(text, strict=False):\n"
        "    assert parse(text, strict=strict)\n\n"
        "def test_a():\n    check('a: b')\n    check('c', strict=True)\n",
        [
            Call("parse", ("'a: b'",), (("strict", "False"),)),
            Call("parse", ("'c'",), (("strict", "True"),)),
        ],
    ),
    (
        "a helper method on self, with what setUp stored",
        "import unittest\nfrom pkg.docs import Game\n\nclass Base(unittest.TestCase):\n"
        "    def setUp(self):\n        self.game = Game(2)\n"
        "    def _assert_roll(self, expected, *pins):\n"
        "        self.assertEqual(expected, self.game.roll(*pins))\n"
        "        self.assertEqual(expected, self.game.roll(pins[0]))\n\n"
        "class TestGame(Base):\n    def test_a(self):\n        self._assert_roll(9, 4)\n",
        [
            Call("Game", ("2",)),
            Call("Game.roll", ("4",), init_args=("2",)),
            # ``roll(*pins)`` spread, then ``roll(pins[0])`` after it on the same game
            Call("Game.roll", ("4",), init_args=("2",), before=(Step("roll", ("4",)),)),
        ],
    ),
    (
        "a helper passing on what its caller gave, by *args and **kwargs",
        "from pkg.docs import parse\n\ndef check(text, expected, *more, **kwargs):\n"
        "    assert parse(text, **kwargs) == expected\n    parse(*more)\n\n"
        "def test_a():\n    js = 'a /* b */'\n    check(js, 'a')\n"
        "    check('c', 'c', 'd', strict=True)\n    check('e', 'e', **load())\n",
        [
            Call("parse", ("'a /* b */'",)),
            Call("parse"),
            Call("parse", ("'c'",), (("strict", "True"),)),
            Call("parse", ("'d'",)),
        ],
    ),
    (
        "a helper walked once per row of the caller's table",
        "from pkg.docs import parse\n\ndef _check(pair):\n    assert parse(pair[0]) == pair[1]\n\n"
        "def test_a():\n    for pair in [('x', 1), ('y', 2)]:\n        _check(pair)\n",
        [Call("parse", ("'x'",)), Call("parse", ("'y'",))],
    ),
    (
        "a mixin's tests, run in the subclass that binds the function they call",
        "import unittest\nfrom pkg.docs import parse\n\n\nclass Base:\n"
        "    def test_a(self):\n        self.parse('x: 1')\n\n\n"
        "class TestParse(Base, unittest.TestCase):\n    parse = staticmethod(parse)\n",
        [Call("parse", ("'x: 1'",))],
    ),
    (
        "a mixin's tests, run in each subclass with the class it names through the module",
        "import unittest\nfrom pkg import docs\n\n\nclass Base:\n    KIND = None\n    ROLL = 0\n\n"
        "    def test_a(self):\n        game = self.KIND(2)\n        game.roll(self.ROLL)\n\n\n"
        "class TestGame(Base, unittest.TestCase):\n    KIND = docs.Game\n    ROLL = 3\n\n\n"
        "class TestParse(Base, unittest.TestCase):\n    KIND = docs.parse\n",
        [
            Call("Game", ("2",)),
            Call("Game.roll", ("3",), init_args=("2",)),
            Call("parse", ("2",)),
            Call("Game.roll", ("0",), via="parse(2)"),  # the one class with a ``roll``
        ],
    ),
    (
        "a function given another name",
        "from pkg.docs import parse\n\ndef test_a():\n    f = parse\n    f('y')\n",
        [Call("parse", ("'y'",))],
    ),
    (
        "a call a check makes of what it is given",
        "import unittest\n\nimport pytest\n\nfrom pkg.docs import parse\n\n"
        "class T(unittest.TestCase):\n    def test_a(self):\n"
        "        self.assertRaises(ValueError, parse, 'bad', strict=True)\n"
        "        self.assertRaisesRegex(ValueError, 'b.d', parse, 'worse', msg='no')\n"
        "        pytest.raises(ValueError, parse, 'worst')\n"
        "        self.assertRaises(ValueError, parse, *rows)\n",
        [
            Call("parse", ("'bad'",), (("strict", "True"),)),
            Call("parse", ("'worse'",)),
            Call("parse", ("'worst'",)),
        ],
    ),
    (
        "a class without a constructor of its own",
        "from pkg.docs import Plain\n\ndef test_a():\n    p = Plain()\n    p.feed('x')\n",
        [Call("Plain"), Call("Plain.feed", ("'x'",), init_args=())],
    ),
    (
        "an instance a helper of the file builds and returns",
        "from pkg.docs import Game\n\ndef _make(n=3):\n    from pkg.docs import Game\n"
        "    game = Game(n)\n    game.ready = True\n    return game\n\n"
        "def test_a():\n    g = _make(5)\n    g.roll(10)\n    _make().roll(2)\n",
        [
            Call("Game", ("5",)),
            Call("Game.roll", ("10",), init_args=("5",)),
            Call("Game.roll", ("2",), init_args=("3",)),
            Call("Game", ("3",)),
        ],
    ),
    (
        "a helper returning itself is not followed",
        "from pkg.docs import Game\n\ndef _loop(n):\n    return _loop(n)\n\n"
        "def test_a():\n    _loop(1).roll(2)\n",
        [],
    ),
    (
        "helpers that call each other end at the depth limit",
        "from pkg.docs import parse\n\ndef a(t):\n    b(t)\n\ndef b(t):\n    c(t)\n\n"
        "def c(t):\n    parse(t)\n\ndef d(t):\n    d(t)\n\n"
        "def test_a():\n    b('near')\n    a('far')\n    d('loop')\n",
        [Call("parse", ("'near'",))],
    ),
]


@pytest.mark.parametrize(("case", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_calls_from_tests(case: str, source: str, expected: list[Call]) -> None:
    assert calls_from_tests("pkg.docs", INFO, {"tests/test_docs.py": source}) == expected


RELATIVE = [
    (
        "a test inside the package, two levels up",
        "pkg/tests/test_docs.py",
        "from ..docs import parse\n\ndef test_a():\n    parse('a: b')\n",
        [Call("parse", ("'a: b'",))],
    ),
    (
        "a sibling test module, one level",
        "pkg/test_docs.py",
        "from .docs import Game\n\ndef test_a():\n    g = Game(2)\n    g.roll(3)\n",
        [Call("Game", ("2",)), Call("Game.roll", ("3",), (), ("2",), ())],
    ),
    (
        "the module from its package, relatively",
        "pkg/tests/test_docs.py",
        "from .. import docs\n\ndef test_a():\n    docs.parse('x')\n",
        [Call("parse", ("'x'",))],
    ),
    (
        "under a src directory",
        "src/pkg/tests/test_docs.py",
        "from ..docs import parse\n\ndef test_a():\n    parse('s')\n",
        [Call("parse", ("'s'",))],
    ),
    (
        "another module of the package",
        "pkg/tests/test_docs.py",
        "from ..other import parse\n\ndef test_a():\n    parse('no')\n",
        [],
    ),
    (
        "climbing out of the file's packages",
        "tests/test_docs.py",
        "from ...docs import parse\n\ndef test_a():\n    parse('no')\n",
        [],
    ),
    (
        "an absolute import is the module only when it names it exactly",
        "tests/test_docs.py",
        "from other.pkg.docs import parse\n\ndef test_a():\n    parse('no')\n",
        [],
    ),
]


@pytest.mark.parametrize(
    ("case", "path", "source", "expected"), RELATIVE, ids=[c[0] for c in RELATIVE]
)
def test_relative_imports_resolve_from_the_test_files_path(
    case: str, path: str, source: str, expected: list[Call]
) -> None:
    assert calls_from_tests("pkg.docs", INFO, {path: source}) == expected


def test_the_projects_test_files_are_found_and_ours_left_out(tmp_path: Path) -> None:
    for rel in (
        "tests/test_a.py",
        "tests/helpers.py",
        "pkg/b_test.py",
        "tests.py",
        "pkg/test.py",
        "pkg/mod.py",
        "conftest.py",
        ".venv/lib/tests/test_x.py",
        "tests/test_mod_tddforge.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    found = project_test_sources(tmp_path, exclude=["tests/test_mod_tddforge.py"])
    assert sorted(found) == [
        "conftest.py",
        "pkg/b_test.py",
        "pkg/test.py",
        "tests.py",
        "tests/helpers.py",
        "tests/test_a.py",
    ]


REEXPORTS = [
    ("a star import", "from .docs import *\n", frozenset({"*"})),
    ("named imports", "from .docs import parse, Game as G\n", frozenset({"parse", "Game"})),
    ("by its absolute name", "from pkg.docs import parse\n", frozenset({"parse"})),
    ("another module's names", "from .other import *\nfrom ..docs import x\n", frozenset()),
    ("no package init", None, frozenset()),
    ("an init that does not parse", "from .docs import (\n", frozenset()),
    ("through a sibling star-imported", "from .core import *\n", frozenset({"*"})),
    ("through a sibling by absolute name", "from pkg.api import *\n", frozenset({"*"})),
    ("a sibling that names what it takes", "from .named import *\n", frozenset()),
    ("a sibling that is not there", "from .gone import *\n", frozenset()),
]

SIBLINGS = {
    "core": "from .static import *\nfrom .docs import *\n",
    "api": "from pkg.docs import *\n",
    "named": "from .docs import parse\n",
}


@pytest.mark.parametrize(("case", "init", "expected"), REEXPORTS, ids=[r[0] for r in REEXPORTS])
def test_package_reexports(case: str, init: str | None, expected: frozenset[str]) -> None:
    assert package_reexports(init, "pkg.docs", SIBLINGS.get) == expected


THROUGH_PACKAGE = [
    (
        "the package's name, star re-export",
        "import pkg\n\ndef test_a():\n    pkg.parse('a.b')\n    pkg._hidden('x')\n",
        frozenset({"*"}),
        [Call("parse", ("'a.b'",))],
    ),
    (
        "a name imported from the package",
        "from pkg import parse as p\n\ndef test_a():\n    p('x')\n",
        frozenset({"parse"}),
        [Call("parse", ("'x'",))],
    ),
    (
        "a name the package does not take from the module",
        "import pkg\nfrom pkg import Game\n\ndef test_a():\n    pkg.parse('x')\n    Game(1)\n",
        frozenset({"Game"}),
        [Call("Game", ("1",))],
    ),
    (
        "a star import from a package that star re-exports the module",
        "from pkg import *\n\ndef test_a():\n    parse('x')\n    Game(2).roll(3)\n    other(1)\n",
        frozenset({"*"}),
        [
            Call("parse", ("'x'",)),
            Call("Game.roll", ("3",), init_args=("2",)),
            Call("Game", ("2",)),
        ],
    ),
    (
        "a star import from a package that takes other names",
        "from pkg import *\n\ndef test_a():\n    parse('x')\n",
        frozenset({"Game"}),
        [],
    ),
    (
        "without re-exports the package is not the module",
        "import pkg\n\ndef test_a():\n    pkg.parse('x')\n",
        frozenset(),
        [],
    ),
    (
        "the package handed on by a helper of the tests (asttokens' context.py)",
        "from .context import pkg\n\ndef test_a():\n    src = 'x = 1'\n    pkg.parse(src)\n",
        frozenset({"*"}),
        [Call("parse", ("'x = 1'",))],
    ),
    (
        "a helper's other names are not the package",
        "from .context import parse\n\ndef test_a():\n    parse('x')\n",
        frozenset({"*"}),
        [],
    ),
]


@pytest.mark.parametrize(
    ("case", "source", "offered", "expected"),
    THROUGH_PACKAGE,
    ids=[c[0] for c in THROUGH_PACKAGE],
)
def test_calls_through_the_packages_reexports(
    case: str, source: str, offered: frozenset[str], expected: list[Call]
) -> None:
    found = calls_from_tests("pkg.docs", INFO, {"tests/test_pkg.py": source}, offered)
    assert found == expected


def test_a_tables_later_rows_come_after_every_sites_first_call() -> None:
    source = (
        "from pkg.docs import parse\n\nROWS = ['r1', 'r2', 'r3']\n\n"
        "def test_a():\n    for row in ROWS:\n        parse(row)\n\n"
        "def test_b():\n    parse('other')\n"
    )
    found = calls_from_tests("pkg.docs", INFO, {"tests/test_docs.py": source})
    assert [c.args[0] for c in found] == ["'r1'", "'other'", "'r2'", "'r3'"]


def test_values_the_module_names_too_are_passed_as_their_source() -> None:
    """``Kind`` is imported by the test and bound by the module: ``Kind.FAST`` and a list
    of members are kept as written; ``Other`` is the test's own, and an instance of the
    module's class is built by its constructor's source."""
    source = (
        "from pkg.kinds import Kind as K, Other\nfrom pkg.docs import Game, parse\n\n"
        "def test_a():\n    parse('x', kind=K.FAST)\n    parse([K.SLOW, 'y'])\n"
        "    parse(Other.X)\n    parse(Game(3))\n"
    )
    namespace = frozenset({"Kind", "Game", "parse", "re"})
    found = calls_from_tests("pkg.docs", INFO, {"tests/test_docs.py": source}, namespace=namespace)
    assert found == [
        Call("parse", ("'x'",), (("kind", "Kind.FAST"),)),
        Call("parse", ("[Kind.SLOW, 'y']",)),
        Call("parse", ("Game(3)",)),
        Call("Game", ("3",)),
    ]


def test_bound_names() -> None:
    source = (
        "import os.path\nfrom .strategy import Strategy as S, compile_regex\n"
        "try:\n    import regex\nexcept ImportError:\n    regex = None\n"
        "X: int = 1\nA, B = 1, 2\n\ndef f():\n    inner = 1\n\nclass K:\n    attr = 2\n"
    )
    assert frozenset(bound_names(source)) == frozenset(
        {"os", "S", "compile_regex", "regex", "X", "A", "B", "f", "K"}
    )
    assert frozenset(bound_names("def f(:\n")) == frozenset()


DRIVERS = [
    (
        "the package under another name, with a table",
        "import pkg as p\n\ndef test_a():\n    for s in ['{}', '[1]']:\n        p.loads(s, strict=False)\n",
        [
            Call("pkg.loads", ("'{}'",), (("strict", "False"),)),
            Call("pkg.loads", ("'[1]'",), (("strict", "False"),)),
        ],
    ),
    (
        "a sibling module's function imported by name",
        "from pkg.scanner import scan\n\ndef test_a():\n    scan('a b')\n    scan(x)\n",
        [Call("pkg.scanner.scan", ("'a b'",))],
    ),
    (
        "the module's own names and other packages are not drivers",
        "import json\nimport pkg\nfrom pkg import docs\n\ndef test_a():\n"
        "    json.loads('1')\n    docs.parse('x')\n    pkg.docs.parse('y')\n",
        [],
    ),
    (
        "through a helper of the test file",
        "import pkg\n\ndef check(text):\n    assert pkg.loads(text)\n\ndef test_a():\n"
        "    check('a: 1')\n",
        [Call("pkg.loads", ("'a: 1'",))],
    ),
]


@pytest.mark.parametrize(("case", "source", "expected"), DRIVERS, ids=[c[0] for c in DRIVERS])
def test_calls_of_the_rest_of_the_package_are_read_as_drivers(
    case: str, source: str, expected: list[Call]
) -> None:
    read = read_tests("pkg.docs", INFO, {"tests/test_pkg.py": source})
    assert read.drivers == expected


def test_a_star_import_of_another_module_of_the_package_names_its_classes() -> None:
    # ``Board`` of ``pkg.tags`` is built on the module's ``Game``: its ``roll`` is Game's
    source = (
        "from pkg.tags import *\n\ndef test_a():\n    board = Board(3)\n    board.roll(4)\n"
        "    Other().roll(5)\n"
    )
    offers = {"pkg.tags": frozenset({"Board"})}
    read = read_tests(
        "pkg.docs",
        INFO,
        {"tests/test_pkg.py": source},
        star=lambda dotted: offers.get(dotted, frozenset()),
    )
    assert read.drivers == [Call("pkg.tags.Board", ("3",))]
    assert read.calls == [Call("Game.roll", ("4",), via="pkg.tags.Board(3)")]
    assert read_tests("pkg.docs", INFO, {"tests/test_pkg.py": source}).calls == []


MADE_BY_THE_PACKAGE = [
    (
        "a method of the package's object returns the module's",
        "from pkg.tags import Parser\n\ndef test_a():\n    parser = Parser()\n"
        "    token = parser.parse('1 + 2')\n    token.roll(4)\n",
        [Call("Game.roll", ("4",), via="pkg.tags.Parser().parse('1 + 2')")],
    ),
    (
        "stored by setUpClass on the class, read on self",
        "import unittest\nfrom pkg.tags import Parser\n\nclass T(unittest.TestCase):\n"
        "    @classmethod\n    def setUpClass(cls):\n        cls.parser = Parser(strict=True)\n\n"
        "    def test_a(self):\n        self.parser.parse('x').roll(5)\n",
        [Call("Game.roll", ("5",), via="pkg.tags.Parser(strict=True).parse('x')")],
    ),
    (
        "a constant of the package passed on by its path",
        "from pkg.names import XSD\nfrom pkg.tags import Parser\n\ndef test_a():\n"
        "    Parser(ns={'xs': XSD}).parse('x').roll(1)\n",
        [Call("Game.roll", ("1",), via="pkg.tags.Parser(ns={'xs': pkg.names.XSD}).parse('x')")],
    ),
    (
        "an argument not known",
        "from pkg.tags import Parser\n\ndef test_a(text):\n    Parser().parse(text).roll(1)\n",
        [],
    ),
    (
        "a private method is not called",
        "from pkg.tags import Parser\n\ndef test_a():\n    Parser()._parse('x').roll(1)\n",
        [],
    ),
    (
        "a name not written as a constant is not taken for one",
        "from pkg.names import xsd\nfrom pkg.tags import Parser\n\ndef test_a():\n"
        "    Parser(ns=xsd).parse('x').roll(1)\n",
        [],
    ),
]


@pytest.mark.parametrize(
    ("case", "source", "expected"), MADE_BY_THE_PACKAGE, ids=[c[0] for c in MADE_BY_THE_PACKAGE]
)
def test_the_modules_objects_made_by_the_packages_methods_are_called_through_them(
    case: str, source: str, expected: list[Call]
) -> None:
    """elementpath's tokens: ``XPath1Parser(...).parse('2 + 5')`` makes an instance of the
    module's class, which nothing else builds: its methods are called on that source."""
    calls = read_tests("pkg.docs", INFO, {"tests/test_pkg.py": source}).calls
    assert [c for c in calls if c.target == "Game.roll"] == expected


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("__all__ = ['a', 'b']\na = b = c = 1\n", {"a", "b"}),
        ("from .x import y\nclass A: pass\ndef _f(): pass\nz = 1\n", {"y", "A", "z"}),
        ("def f(:\n", set()),
        (None, set()),
    ],
)
def test_star_names(source: str | None, names: set[str]) -> None:
    assert star_names(source) == names


FORMATTED = ModuleInfo(
    name="pkg.docs",
    file=None,
    docstring=None,
    doctests=(),
    functions=(),
    classes=(
        ClassInfo(
            name="Num",
            docstring=None,
            doctests=(),
            constructor=_callable("Num", "Num", "constructor"),
            methods=(_callable("__format__", "Num.__format__", "method"),),
            properties=(),
            is_abstract=False,
            is_exception=False,
            lines=None,
        ),
    ),
)


@pytest.mark.parametrize(
    ("case", "line", "specs"),
    [
        ("format()", "format(Num(2), '.2h')", ["'.2h'"]),
        ("format() without a spec", "format(Num(2))", ["''"]),
        ("str.format, automatic and numbered", "'{:.1k} {0:>5}'.format(Num(2))", ["'.1k'", "'>5'"]),
        (
            "an f-string; !r formats the repr",
            "f'{Num(2):.3m} {Num(2)} {Num(2)!r}'",
            ["'.3m'", "''"],
        ),
        ("a spec from a table", "[format(Num(2), s) for s in ('a', 'b')]", ["'a'", "'b'"]),
        ("not an instance of the module's class", "format(2.0, '.2f')", []),
    ],
)
def test_an_instance_formatted_with_a_spec_is_a_call_of_its_format(
    case: str, line: str, specs: list[str]
) -> None:
    source = f"from pkg.docs import Num\n\ndef test_a():\n    assert {line}\n"
    calls = calls_from_tests("pkg.docs", FORMATTED, {"tests/test_num.py": source})
    expected = [Call("Num.__format__", (spec,), init_args=("2",)) for spec in specs]
    assert [c for c in calls if c.target == "Num.__format__"] == expected


@pytest.mark.parametrize(
    ("case", "source", "expected"),
    [
        (
            "an object the package's other class builds, through the top package's alias",
            "import pkg as p\n\ndef test_a():\n    g = p.Board([(1, 2)])\n"
            "    assert p.parse(g) == 1\n",
            [Call("parse", ("pkg.Board([(1, 2)])",))],
        ),
        (
            "imported by name from a sibling module, with a keyword",
            "from pkg.graph import Board\nfrom pkg.sub.docs import parse\n\n"
            "def test_a():\n    parse(Board(3, size=2))\n",
            [Call("parse", ("pkg.graph.Board(3, size=2)",))],
        ),
        (
            "built from what is not known",
            "import pkg as p\n\ndef test_a(x):\n    g = p.Board(x)\n    p.parse(g)\n",
            [],
        ),
        (
            "a private name is not offered",
            "import pkg as p\n\ndef test_a():\n    p._parse('x')\n",
            [],
        ),
        (
            "another package's object is not written",
            "import json\nfrom pkg.sub.docs import parse\n\ndef test_a():\n"
            "    parse(json.loads('1'))\n",
            [],
        ),
    ],
)
def test_objects_the_rest_of_the_package_builds_are_passed_as_their_source(
    case: str, source: str, expected: list[Call]
) -> None:
    """A graph algorithm's tests pass ``nx.DiGraph([(1, 2)])``: not a literal, but a call of
    the package with literal arguments, which a generated test can make too."""
    assert calls_from_tests("pkg.sub.docs", INFO, {"tests/test_docs.py": source}) == expected


def _with_parameters(name: str, kind: str, *params: tuple[str, bool]) -> CallableInfo:
    return _callable(name, name, kind).model_copy(
        update={
            "parameters": tuple(
                Param(
                    name=n,
                    kind="positional_or_keyword",
                    annotation=None,
                    has_default=d,
                    default="None" if d else None,
                    default_is_literal=d,
                )
                for n, d in params
            )
        }
    )


OPTIONAL = ModuleInfo(
    name="pkg.cal",
    file=None,
    docstring=None,
    doctests=(),
    functions=(_with_parameters("parse", "function", ("text", False), ("start", True)),),
    classes=(),
)


@pytest.mark.parametrize(
    ("case", "line", "expected"),
    [
        ("a trailing argument with a default", "parse('11 PM', start)", [("'11 PM'",)]),
        ("by name", "parse('11 PM', start=now())", [("'11 PM'",)]),
        ("a required one unknown", "parse(text, 1)", []),
        ("every argument known", "parse('x', 2)", [("'x'", "2")]),
        ("an unknown keyword the function does not take", "parse('x', other=now())", []),
        ("more arguments than parameters", "parse('x', start, extra)", []),
    ],
)
def test_an_unknown_argument_with_a_default_is_left_out(
    case: str, line: str, expected: list[tuple[str, ...]]
) -> None:
    """parsedatetime's tests pass the time they ran as ``sourceTime``: the text is still
    an input, called without it."""
    source = f"from pkg.cal import parse\n\ndef test_a(text):\n    start = now()\n    {line}\n"
    calls = calls_from_tests("pkg.cal", OPTIONAL, {"tests/test_cal.py": source})
    assert [c.args for c in calls] == expected


def test_a_mixins_function_the_module_binds_too_is_still_called() -> None:
    """unidecode binds ``unidecode`` itself (``unidecode = unidecode_expect_ascii``): the
    name is then passed as its source, and ``staticmethod(unidecode)`` must still be
    read as the module's function."""
    source = (
        "import unittest\nfrom pkg.docs import parse\n\n\nclass Base:\n"
        "    def test_a(self):\n        self.parse('x: 1')\n\n\n"
        "class TestParse(Base, unittest.TestCase):\n    parse = staticmethod(parse)\n"
    )
    read = read_tests(
        "pkg.docs", INFO, {"tests/test_docs.py": source}, namespace=frozenset({"parse"})
    )
    assert read.calls == [Call("parse", ("'x: 1'",))]


def _class(name: str, *methods: str, properties: tuple[str, ...] = ()) -> ClassInfo:
    return ClassInfo(
        name=name,
        docstring=None,
        doctests=(),
        constructor=_callable(name, name, "constructor"),
        methods=tuple(_callable(m, f"{name}.{m}", "method") for m in methods),
        properties=properties,
        is_abstract=False,
        is_exception=False,
        lines=None,
    )


MAPPING = ModuleInfo(
    name="pkg.dd",
    file=None,
    docstring=None,
    doctests=(),
    functions=(_callable("dotty", "dotty", "function"), _callable("parse", "parse", "function")),
    classes=(
        _class("Dotty", "__getitem__", "__setitem__", "__delitem__", "__contains__", "get"),
        _class("Other", "get", "__len__", "__or__", "__call__", properties=("size",)),
    ),
)
FACTORY = "    def setUp(self):\n        self.d = dotty({'a': {'b': [1, 2]}})\n"
VIA = "dotty({'a': {'b': [1, 2]}})"
SYNTAX_CASES = [
    (
        "item access, membership, assignment and deletion on what a function returned",
        f"{FACTORY}    def test_a(self):\n        self.assertEqual(self.d['a.b.0'], 1)\n"
        "        assert 'a.b' in self.d\n        self.assertIn('a', self.d)\n"
        "        self.d['c.0'] = 5\n        del self.d['a']\n",
        [
            Call("dotty", ("{'a': {'b': [1, 2]}}",)),
            Call("Dotty.__getitem__", ("'a.b.0'",), via=VIA),
            Call("Dotty.__contains__", ("'a.b'",), via=VIA),
            Call("Dotty.__contains__", ("'a'",), via=VIA),
            Call("Dotty.__setitem__", ("'c.0'", "5"), via=VIA),
            Call(
                "Dotty.__delitem__",
                ("'a'",),
                via=VIA,
                before=(Step("__setitem__", ("'c.0'", "5")),),
            ),
        ],
    ),
    (
        "a method two classes define is not guessed for a returned object",
        f"{FACTORY}    def test_a(self):\n        self.d.get('a')\n",
        [Call("dotty", ("{'a': {'b': [1, 2]}}",))],
    ),
    (
        "operators and len on an instance its class built",
        "    def test_a(self):\n        o = Other(3)\n        assert len(o) == 3\n"
        "        o | [4]\n        o | make()\n        o['x']\n",
        [
            Call("Other", ("3",)),
            Call("Other.__len__", init_args=("3",)),
            Call("Other.__or__", ("[4]",), init_args=("3",)),
        ],
    ),
    (
        "calls after the steps the test made on the same object",
        "    def test_a(self):\n        o = Other(1)\n        o.get(2)\n        o['k'] = 3\n"
        "        o.name = 'n'\n        assert len(o) == 1\n        o = Other(2)\n"
        "        assert len(o) == 0\n",
        [
            Call("Other", ("1",)),
            Call("Other.get", ("2",), init_args=("1",)),
            Call(
                "Other.__len__",
                init_args=("1",),
                before=(
                    Step("get", ("2",)),
                    Step("__setitem__", ("'k'", "3")),
                    Step("__setattr__", ("'name'", "'n'")),
                ),
            ),
            Call("Other", ("2",)),
            Call("Other.__len__", init_args=("2",)),
        ],
    ),
    (
        "a property read after a step, on an instance and on what a function returned",
        "    def test_a(self):\n        o = Other(1)\n        o.get(2)\n"
        "        self.assertEqual(o.size, 1)\n        dotty({}).size\n        o.missing\n",
        [
            Call("Other", ("1",)),
            Call("Other.get", ("2",), init_args=("1",)),
            Call("Other.size", init_args=("1",), attribute=True, before=(Step("get", ("2",)),)),
            Call("Other.size", attribute=True, via="dotty({})"),
            Call("dotty", ("{}",)),
        ],
    ),
    (
        "an object called, after a step",
        "    def setUp(self):\n        self.o = Other(1)\n"
        "    def test_a(self):\n        self.o.get(2)\n        self.o('x', k=1)\n",
        [
            Call("Other", ("1",)),
            Call("Other.get", ("2",), init_args=("1",)),
            Call(
                "Other.__call__",
                ("'x'",),
                (("k", "1"),),
                init_args=("1",),
                before=(Step("get", ("2",)),),
            ),
        ],
    ),
    (
        "steps taken inside assertions",
        "    def test_a(self):\n        o = Other(1)\n"
        "        self.assertEqual('a', o.get(2))\n        assert o.get(3) == 'b'\n",
        [
            Call("Other", ("1",)),
            Call("Other.get", ("2",), init_args=("1",)),
            Call(
                "Other.get",
                ("3",),
                init_args=("1",),
                before=(Step("get", ("2",)),),
            ),
        ],
    ),
    (
        "a step whose argument is not known leaves the object's state unknown",
        "    def test_a(self):\n        o = Other(1)\n        o.get(make())\n        o | [1]\n",
        [Call("Other", ("1",)), Call("Other.__or__", ("[1]",), init_args=("1",))],
    ),
    (
        "the standard library's value types built from literals",
        "    def test_a(self):\n        parse(StringIO('a: 1'))\n        parse(io.BytesIO(b'x'))\n"
        "        parse(dt.date(2020, 1, 2))\n        parse(StringIO(make()))\n"
        "        parse(io.open('f'))\n",
        [
            Call("parse", ("io.StringIO('a: 1')",)),
            Call("parse", ("io.BytesIO(b'x')",)),
            Call("parse", ("datetime.date(2020, 1, 2)",)),
        ],
    ),
    (
        "what a function returned, passed on as its source",
        "    def test_a(self):\n        parse(dotty({'k': 1}))\n",
        [Call("parse", ("dotty({'k': 1})",)), Call("dotty", ("{'k': 1}",))],
    ),
]


@pytest.mark.parametrize(
    ("case", "body", "expected"), SYNTAX_CASES, ids=[c[0] for c in SYNTAX_CASES]
)
def test_special_methods_reached_through_syntax(case: str, body: str, expected: list[Call]) -> None:
    source = (
        "import datetime as dt\nimport io\nimport unittest\nfrom io import StringIO\n"
        "from pkg.dd import Other, dotty, parse\n\n\n"
        f"class TestD(unittest.TestCase):\n{body}"
    )
    assert calls_from_tests("pkg.dd", MAPPING, {"tests/test_dd.py": source}) == expected


INITS = {
    "top": "from top.mid.docs import Game, parse\nfrom .other import thing\n",
    "top.mid": "from .docs import *\n",
    "chain": "from chain.mid import Game\n",
    "chain.mid": "from . import docs\nfrom .docs import Game\n",
    "rel": "from .mid.docs import *\n",
    "far": "from far.mid.other import parse\n",
}
ANCESTORS = [
    (
        "a name taken from the module by its full path",
        "top.mid.docs",
        frozenset({"*"}),
        {"top": frozenset({"Game", "parse"})},
    ),
    (
        "a name taken from a nearer package that offers it",
        "chain.mid.docs",
        frozenset({"Game"}),
        {"chain": frozenset({"Game"})},
    ),
    ("a relative star import", "rel.mid.docs", frozenset(), {"rel": frozenset({"*"})}),
    ("another module's name of the same spelling", "far.mid.docs", frozenset({"*"}), {}),
    ("a package with no init", "none.mid.docs", frozenset(), {}),
]


@pytest.mark.parametrize(
    ("case", "module", "offered", "expected"), ANCESTORS, ids=[c[0] for c in ANCESTORS]
)
def test_ancestor_reexports(
    case: str, module: str, offered: frozenset[str], expected: dict[str, frozenset[str]]
) -> None:
    assert ancestor_reexports(module, offered, INITS.get) == expected


def test_calls_through_a_package_above_the_modules_own() -> None:
    """netaddr's tests do ``from netaddr import IPSet`` for ``netaddr.ip.sets``; methods and
    operators on what they build count, and a name the package does not offer does not."""
    info = INFO.model_copy(update={"name": "top.mid.docs"})
    source = (
        "import top\nfrom top import Game, other\n\n"
        "def test_a():\n    g = Game(1)\n    g.roll(2)\n    top.parse('x')\n    other(3)\n"
    )
    above = {"top": frozenset({"Game", "parse"})}
    found = read_tests("top.mid.docs", info, {"tests/test_top.py": source}, above=above)
    assert found.calls == [
        Call("Game", ("1",)),
        Call("Game.roll", ("2",), init_args=("1",)),
        Call("parse", ("'x'",)),
    ]


def test_a_generator_read_from_the_tests_is_consumed() -> None:
    """Its body runs only as it is consumed: the call collects what it yields."""
    walk = _callable("walk", "walk", "function").model_copy(update={"is_generator": True})
    pairs = _callable("pairs", "Game.pairs", "method").model_copy(update={"is_generator": True})
    game = INFO.classes[0].model_copy(update={"methods": (*INFO.classes[0].methods, pairs)})
    info = INFO.model_copy(update={"functions": (*INFO.functions, walk), "classes": (game,)})
    source = (
        "from pkg.docs import Game, parse, walk\n\ndef test_a():\n"
        "    assert list(walk('a/b')) == ['a']\n    g = Game(3)\n"
        "    assert list(g.pairs(2)) == []\n    parse('x')\n"
    )
    calls = calls_from_tests("pkg.docs", info, {"tests/test_docs.py": source})
    consumed = {c.target: c.consume for c in calls}
    assert consumed == {"walk": True, "Game": False, "Game.pairs": True, "parse": False}


def test_a_generator_captured_from_the_packages_api_is_consumed() -> None:
    """sentencex's ``Language.segment(text)``, captured while ``segment("en", text)`` ran:
    not consumed, the call reached none of the segmenter's body."""
    segment = _callable("segment", "Game.segment", "method")
    segment = segment.model_copy(update={"is_generator": True})
    game = INFO.classes[0].model_copy(update={"methods": (*INFO.classes[0].methods, segment)})
    info = INFO.model_copy(update={"classes": (game,)})
    captured = [Call("Game.segment", ("'a. b'",), (), ()), Call("parse", ("'x'",))]
    assert consuming(captured, info) == [
        Call("Game.segment", ("'a. b'",), (), (), consume=True),
        Call("parse", ("'x'",)),
    ]


HELD = ModuleInfo(
    name="iso",
    file=None,
    docstring=None,
    doctests=(),
    functions=(),
    classes=(
        _class("_Lookup", "get", "__getitem__", "__contains__", "__len__").model_copy(
            update={"hidden": True}
        ),
        _class("Other", "get"),
    ),
    instances=(InstanceInfo(name="countries", class_name="_Lookup"),),
)


def test_calls_on_the_modules_own_instance_are_read_on_it() -> None:
    """iso3166's tests use ``countries``, an instance of a private class: each method and
    operator is read as a call on that object, by either spelling of it, and the object
    passed on stays its name; a step on it is never replayed (it is the module's)."""
    source = (
        "import iso\nfrom iso import countries\n\n\ndef test_a():\n"
        "    assert countries['us'].alpha2 == 'US'\n    countries.get('zz', None)\n"
        "    assert 'US' in countries\n    assert len(iso.countries) == 2\n"
        "    iso.countries.get(840)\n    countries.missing('x')\n    _Lookup()\n"
    )
    read = read_tests("iso", HELD, {"tests/test_iso.py": source})
    assert read.calls == [
        Call("_Lookup.__getitem__", ("'us'",), via="countries"),
        Call("_Lookup.get", ("'zz'", "None"), via="countries"),
        Call("_Lookup.__contains__", ("'US'",), via="countries"),
        Call("_Lookup.__len__", via="countries"),
        Call("_Lookup.get", ("840",), via="countries"),
    ]


def test_a_chain_of_calls_is_read_once_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call of a chain reads the one before it from several places: without the
    memo, a chain of twelve calls made hundreds of thousands of readings."""
    from tddforge.builtin import from_tests

    made: list[ast.Call] = []
    original = from_tests._made

    def counting(names: object, known: object, node: ast.Call, env: object) -> object:
        made.append(node)
        return original(names, known, node, env)  # type: ignore[arg-type]

    monkeypatch.setattr(from_tests, "_made", counting)
    chain = "".join(f".step{i}({i})" for i in range(12))
    source = (
        f"from pkg.tags import Parser\n\ndef test_a():\n    x = Parser(){chain}\n    x.roll(1)\n"
    )
    read = read_tests("pkg.docs", INFO, {"tests/test_pkg.py": source})
    expected = f"pkg.tags.Parser(){chain}"
    assert read.calls == [Call("Game.roll", ("1",), via=expected)]
    assert len(made) <= 2 * 13  # thirteen calls, each read in at most two environments


CONFTEST = """\
import pytest

from pkg.tags import Board


@pytest.fixture
def size():
    return 3


@pytest.fixture
def board(size):
    return Board(size=size)
"""

CONFTESTS = [
    (
        "a conftest's fixture made by the package from another fixture",
        {"tests/conftest.py": CONFTEST},
        "def test_a(board):\n    board.roll(4)\n",
        [Call("Game.roll", ("4",), via="pkg.tags.Board(size=3)")],
    ),
    (
        "the root's conftest, two directories up",
        {"conftest.py": CONFTEST},
        "def test_a(board):\n    board.roll(4)\n",
        [Call("Game.roll", ("4",), via="pkg.tags.Board(size=3)")],
    ),
    (
        "a nearer conftest overrides a fixture the one above asks for, as pytest does",
        {
            "conftest.py": CONFTEST,
            "tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef size():\n    return 7\n",
        },
        "def test_a(board):\n    board.roll(4)\n",
        [Call("Game.roll", ("4",), via="pkg.tags.Board(size=7)")],
    ),
    (
        "the test file's own fixture hides the conftest's",
        {"tests/conftest.py": CONFTEST},
        "import pytest\nfrom pkg.docs import Game\n\n@pytest.fixture\ndef board():\n"
        "    return Game(9)\n\ndef test_a(board):\n    board.roll(4)\n",
        [Call("Game.roll", ("4",), init_args=("9",))],
    ),
    (
        "a conftest beside another directory's tests does not apply",
        {"other/conftest.py": CONFTEST},
        "def test_a(board):\n    board.roll(4)\n",
        [],
    ),
    (
        "a fixture asking for one the file defines after it",
        {},
        "import pytest\nfrom pkg.tags import Board\n\n@pytest.fixture\ndef board(size):\n"
        "    return Board(size=size)\n\n@pytest.fixture\ndef size():\n    return 5\n\n"
        "def test_a(board):\n    board.roll(4)\n",
        [Call("Game.roll", ("4",), via="pkg.tags.Board(size=5)")],
    ),
]


@pytest.mark.parametrize(
    ("case", "conftests", "test", "expected"), CONFTESTS, ids=[c[0] for c in CONFTESTS]
)
def test_fixtures_come_from_the_conftests_above_the_test_file(
    case: str, conftests: dict[str, str], test: str, expected: list[Call]
) -> None:
    """lunr's ``index`` fixture is ``lunr(ref="id", ..., documents=documents)`` in
    ``tests/conftest.py``, ``documents`` another of its fixtures: every test of
    ``Index.search`` asks for it, and none builds an index itself."""
    header = "from pkg.tags import Board\nfrom pkg import docs\n\n"
    sources = {**conftests, "tests/test_pkg.py": header + test}
    calls = read_tests("pkg.docs", INFO, sources).calls
    assert [c for c in calls if c.target == "Game.roll"] == expected
