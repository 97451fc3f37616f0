"""discover → search → write, for real: the written tests pass under pytest and ruff."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tddforge.builtin.constants import mine_constants
from tddforge.builtin.discover import discover
from tddforge.builtin.generator import BuiltinSuiteGenerator
from tddforge.builtin.search import search
from tddforge.builtin.writer import write_module
from tddforge.config import Settings as TddforgeSettings
from tddforge.cover_contract import CoverTarget
from tddforge.runner.pytest_run import run_pytest
from tddforge.sandbox import Limits, Sandbox

pytestmark = pytest.mark.integration

LIMITS = Limits(cpu_seconds=60, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=60)
PY = Path(sys.executable)
RUFF = Path(sys.executable).with_name("ruff")

SAMPLE = '''\
"""Words and boxes."""

import time

IRREGULAR = {"child": "children", "mouse": "mice"}


def pluralize(word: str) -> str:
    if not word:
        raise ValueError("empty word (nothing to pluralize)")
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith("s"):
        return word + "es"
    return word + "s"


def stamp(word: str) -> str:
    return f"{word}@{time.time()}"


class Counter:
    def __init__(self, start: int = 0) -> None:
        self.count = start

    def add(self, n: int) -> int:
        if n < 0:
            raise ValueError(f"negative: {n}")
        self.count += n
        return self.count
'''


@pytest.mark.parametrize("framework", ["pytest", "unittest"])
def test_written_suite_passes_and_covers_every_branch_of_pluralize(
    tmp_path: Path, framework: str
) -> None:
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    module = project / "words.py"
    module.write_text(SAMPLE, encoding="utf-8")
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    found = search(
        project, module, info, mine_constants(SAMPLE), python=PY, sandbox=box, budget=20.0
    )
    source = write_module(info.name, found.kept, framework)
    test_file = project / "tests" / "test_words_builtin.py"
    test_file.write_text(source, encoding="utf-8")

    assert "def test_pluralize_returns_children(" in source
    assert "def test_pluralize_raises_value_error(" in source
    assert ("import pytest" in source) is (framework == "pytest")
    assert "re.escape('empty word (nothing to pluralize)')" in source
    # its value varies from run to run: only its type is asserted
    typed = {
        "pytest": "assert isinstance(result, str)",
        "unittest": "assertIsInstance(result, str)",
    }
    assert "result = stamp(" in source and typed[framework] in source
    assert found.stopped == "coverage stopped rising"
    for _ in range(2):
        run = run_pytest(project, python=PY, sandbox=box, timeout=60, coverage_source=["words"])
        assert run.outcomes and {o.outcome for o in run.outcomes} == {"passed"}, run.output
    assert run.coverage is not None
    words = run.coverage.file("words.py")
    assert words is not None
    assert (words.missing_lines, words.missing_branches) == ((), ()), words
    lint = subprocess.run(
        # ruff's default rules plus warnings, import order and bugbear; line length is left to
        # the formatter
        [str(RUFF), "check", "--isolated", "--select", "E4,E7,E9,F,W,I,B", str(test_file)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout


def generated_and_run(
    tmp_path: Path, name: str, sample: str, runs: int = 1, files: dict[str, str] | None = None
) -> Suite:
    """The builtin generator's suite for the module ``name`` (``sample``), written into
    a project in ``tmp_path`` (with ``files``, relative path -> text, beside it) and run
    ``runs`` times under coverage, each run green."""
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    path = f"{name.replace('.', '/')}.py"  # a module of a package: ``graphs.algo``
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(sample, encoding="utf-8")
    for rel, text in (files or {}).items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    test_path = f"tests/test_{name.replace('.', '_')}.py"
    target = CoverTarget(project, path, name, sample, "pytest", test_path, "", "")
    source = BuiltinSuiteGenerator(TddforgeSettings(), PY, budget=15.0).generate(target).code
    (project / test_path).write_text(source, encoding="utf-8")
    box = Sandbox(project, LIMITS)
    for _ in range(runs):
        run = run_pytest(project, python=PY, sandbox=box, timeout=60, coverage_source=[name])
        assert run.outcomes and {o.outcome for o in run.outcomes} == {"passed"}, run.output
    assert run.coverage is not None
    covered = run.coverage.file(path)
    assert covered is not None
    return Suite(source, covered.missing_lines, covered.missing_branches)


class Suite(NamedTuple):
    """A generated suite's source, and what its run left uncovered."""

    source: str
    missing_lines: tuple[int, ...]
    missing_branches: tuple[tuple[int, int], ...]


CACHE = '''\
"""A cache that keeps the two keys stored last."""


class BoundedCache:
    def __init__(self) -> None:
        self.size = 2
        self._items: dict[str, int] = {}
        self.evicted: list[str] = []

    def put(self, key: str, value: int) -> None:
        if key not in self._items and len(self._items) >= self.size:
            oldest = next(iter(self._items))
            del self._items[oldest]
            self.evicted.append(oldest)
        self._items[key] = value

    def get(self, key: str) -> int:
        if key in self._items:
            return self._items[key]
        return -1
'''


def test_a_stateful_class_is_tested_through_call_sequences(tmp_path: Path) -> None:
    """Eviction needs a third key stored on one instance: only a sequence of calls
    reaches it, and ``get`` finds a key only after a ``put``."""
    suite = generated_and_run(tmp_path, "cache", CACHE, runs=2)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source
    assert "_after_put_" in suite.source  # ``test_bounded_cache_put_after_put_returns_none``


RANKING = '''\
"""Scores kept in a binary heap, lowest first."""


class Ranking:
    def __init__(self) -> None:
        self._heap: list[tuple[float, str]] = []

    def add(self, name: str, score: float) -> None:
        self._heap.append((score, name))
        i = len(self._heap) - 1
        while i and self._heap[(i - 1) // 2][0] > self._heap[i][0]:
            parent = (i - 1) // 2
            self._heap[i], self._heap[parent] = self._heap[parent], self._heap[i]
            i = parent

    def pop(self) -> str:
        score, name = self._heap[0]
        last = self._heap.pop()
        if self._heap:
            self._heap[0] = last
            i = 0
            while 2 * i + 1 < len(self._heap):
                child = 2 * i + 1
                if child + 1 < len(self._heap) and self._heap[child + 1][0] < self._heap[child][0]:
                    child += 1
                if self._heap[i][0] <= self._heap[child][0]:
                    break
                self._heap[i], self._heap[child] = self._heap[child], self._heap[i]
                i = child
        return name
'''


def test_steps_that_store_one_priority_are_also_run_with_distinct_ones(tmp_path: Path) -> None:
    """Every ``add`` seen returning stores score 1, and a heap fed one score never moves
    an entry: the same steps with scores rising and falling move entries up on ``add``
    and down, past the smaller child, on ``pop``."""
    suite = generated_and_run(tmp_path, "ranking", RANKING)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


SORTED_BAG = '''\
"""Keys kept in order in a binary search tree that never rebalances."""


class _Node:
    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None


class SortedBag:
    def __init__(self):
        self.root = None

    def add(self, key: int) -> None:
        if self.root is None:
            self.root = _Node(key)
            return
        node = self.root
        while True:
            if key < node.key:
                if node.left is None:
                    node.left = _Node(key)
                    return
                node = node.left
            else:
                if node.right is None:
                    node.right = _Node(key)
                    return
                node = node.right

    def remove(self, key: int) -> None:
        parent, node = None, self.root
        while node is not None and node.key != key:
            parent, node = node, (node.left if key < node.key else node.right)
        if node is None:
            raise KeyError(key)
        if node.left is not None and node.right is not None:
            heir_parent, heir = node, node.right
            while heir.left is not None:
                heir_parent, heir = heir, heir.left
            node.key = heir.key
            if heir_parent is node:
                heir_parent.right = heir.right
            else:
                heir_parent.left = heir.right
            return
        child = node.left if node.left is not None else node.right
        if parent is None:
            self.root = child
        elif parent.left is node:
            parent.left = child
        else:
            parent.right = child

    def height(self):
        def depth(node):
            return 0 if node is None else 1 + max(depth(node.left), depth(node.right))

        return depth(self.root)

    def lopsided(self):
        return self.height() > 5
'''


def test_a_container_is_filled_and_drained_on_one_instance(tmp_path: Path) -> None:
    """A tree is lopsided only after six keys in a row, and removing a key whose heir
    sits below the right child needs a tree of five keys in the right order, then the
    removal: neither fits in a few steps; eight keys rising, and ten in a balanced
    order with some taken out again, reach both."""
    suite = generated_and_run(tmp_path, "bag", SORTED_BAG)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


MEDIA = '''\
"""Media ranges: ``type/subtype; q=0.5``."""


def parse_range(text: str) -> tuple[str, str, float]:
    full, _, params = text.partition(";")
    kind, slash, subtype = full.strip().partition("/")
    if not slash or not kind or not subtype:
        raise ValueError("not a media range: " + text)
    quality = 1.0
    for param in params.split(";"):
        key, eq, value = param.strip().partition("=")
        if eq and key == "q":
            quality = float(value)
            if not 0 <= quality <= 1:
                quality = 1.0
    return kind, subtype, quality
'''

MEDIA_TESTS = """\
import json
import os
import unittest

from media import parse_range

HERE = os.path.dirname(__file__)


class RangeTest(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(HERE, "ranges.json")) as f:
            self.cases = json.load(f)

    def test_ranges(self):
        for text, expected in self.cases:
            self.assertEqual(tuple(expected), parse_range(text))
"""

RANGES = '[["text/html;q=0.5", ["text", "html", 0.5]], ["image/*; q=2", ["image", "*", 1.0]]]'


def test_inputs_the_projects_tests_load_from_a_data_file_are_tried(tmp_path: Path) -> None:
    """A range parses only in its ``type/subtype; q=…`` shape, which no search of short
    strings composes; the project's tests keep theirs in ``ranges.json``."""
    files = {"tests/test_ranges.py": MEDIA_TESTS, "tests/ranges.json": RANGES}
    suite = generated_and_run(tmp_path, "media", MEDIA, files=files)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


ALGO = '''\
"""Reachability on a directed graph of the package."""

__all__ = ["reachable", "is_chain"]


def reachable(graph, start):
    seen = set()
    todo = [start]
    while todo:
        node = todo.pop()
        for following in graph.successors(node):
            if following not in seen:
                seen.add(following)
                todo.append(following)
    return seen


def is_chain(graph):
    for _, targets in graph.adj.items():
        if len(targets) > 1:
            return False
    return True
'''

GRAPH = """\
class Graph:
    def __init__(self, edges=()):
        self.adj = {}
        for a, b in edges:
            self.adj.setdefault(a, []).append(b)
            self.adj.setdefault(b, [])

    def successors(self, node):
        return self.adj[node]
"""

REACH_TESTS = """\
import graphs as gr


def test_reachable():
    g = gr.Graph([(1, 2), (2, 3), (1, 3)])
    assert gr.reachable(g, 1) == {2, 3}


def test_chain():
    assert gr.is_chain(gr.Graph([(1, 2), (2, 3)]))
"""


def test_objects_the_projects_tests_build_with_the_rest_of_the_package_are_passed(
    tmp_path: Path,
) -> None:
    """A graph algorithm takes a graph the package's other module builds, which no value
    of a literal kind is: the project's tests build theirs with ``gr.Graph([...])``."""
    files = {
        "graphs/__init__.py": "from .core import Graph\nfrom .algo import *\n",
        "graphs/core.py": GRAPH,
        "tests/test_reach.py": REACH_TESTS,
    }
    suite = generated_and_run(tmp_path, "graphs.algo", ALGO, files=files)
    assert "import graphs\n" in suite.source and "graphs.Graph([" in suite.source, suite.source
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


EXPR_TOKENS = '''\
"""Tokens of a small expression language, made by its parser only."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .parser import Parser


class Token:
    symbol = ""

    def __init__(self, parser: Parser, value: int | None = None) -> None:
        self.parser = parser
        self.value = value
        self.items: list[Token] = []

    def source(self) -> str:
        if not self.items:
            return str(self.value)
        if len(self.items) == 1:
            return f"{self.symbol}{self.items[0].source()}"
        return f"{self.items[0].source()} {self.symbol} {self.items[1].source()}"

    def describe(self, verbose: bool = False) -> str:
        kind = "operator" if self.items else "literal"
        if verbose:
            return f"{kind} {self.symbol or self.value!r}"
        return kind
'''

EXPR_PARSER = """\
from .tokens import Token


class Parser:
    def __init__(self, strict=False):
        self.strict = strict

    def parse(self, text):
        parts = text.split()
        if len(parts) == 1:
            return Token(self, int(parts[0]))
        operator = Token(self)
        operator.symbol = parts[-2]
        operator.items = [Token(self, int(part)) for part in parts if part.isdigit()]
        return operator
"""

EXPR_TESTS = """\
import unittest

from exprs.parser import Parser


class TokenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.parser = Parser(strict=True)

    def test_source(self):
        self.assertEqual(self.parser.parse("1 + 2").source(), "1 + 2")
        self.assertEqual(self.parser.parse("- 3").source(), "-3")
        self.assertEqual(self.parser.parse("7").source(), "7")
"""


def test_a_class_only_another_modules_parser_makes_is_tested_on_what_it_made(
    tmp_path: Path,
) -> None:
    """elementpath's tokens: the module's class needs the package's parser, which nothing
    builds from literals; the project's tests make tokens with ``parser.parse(...)`` (the
    parser stored by ``setUpClass``), and the method they never call is called on those."""
    files = {
        "exprs/__init__.py": "from . import tokens, parser\n",
        "exprs/parser.py": EXPR_PARSER,
        "tests/test_tokens.py": EXPR_TESTS,
    }
    suite = generated_and_run(tmp_path, "exprs.tokens", EXPR_TOKENS, files=files)
    assert "exprs.parser.Parser(strict=True).parse(" in suite.source, suite.source
    assert ".describe(" in suite.source, suite.source
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


NUMBERS = '''\
"""Numbers written in words, in the language a parser is given."""

from .lang import Language


class Parser:
    def __init__(self, lang: Language) -> None:
        self.lang = lang

    def known(self) -> str:
        if not self.lang.WORDS:
            return "none"
        return ", ".join(sorted(self.lang.WORDS))
'''

LANGUAGES = {
    "wordnum/__init__.py": "",
    "wordnum/lang/__init__.py": (
        "from .base import Language\nfrom .english import English\nfrom .silent import Silent\n"
    ),
    "wordnum/lang/base.py": "class Language:\n    WORDS: dict\n",
    "wordnum/lang/english.py": (
        "from .base import Language\n\n\nclass English(Language):\n    WORDS = {'one': 1}\n"
    ),
    "wordnum/lang/silent.py": (
        "from .base import Language\n\n\nclass Silent(Language):\n    WORDS = {}\n"
    ),
}


def test_a_parameter_hinted_with_an_interface_is_given_an_implementation(tmp_path: Path) -> None:
    """``Language`` only declares the table its languages set: a parser given
    ``Language()`` fails, one given ``English()`` or ``Silent()`` reads its table."""
    suite = generated_and_run(tmp_path, "wordnum.words", NUMBERS, files=LANGUAGES)
    assert "wordnum.lang.English()" in suite.source, suite.source
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


MIX = '''\
"""Paints mixed by kind, the kinds an enumeration of a sibling module."""

from paints.kinds import Kind as K


def mix(a: K, b: K) -> str:
    if a is K.RED and b is K.BLUE:
        return "purple"
    if a is K.GREEN:
        return "greenish"
    return "mud"
'''

KINDS = {
    "paints/__init__.py": "",
    "paints/kinds.py": (
        "from enum import Enum\n\n\nclass Kind(Enum):\n"
        "    RED = 'red'\n    GREEN = 'green'\n    BLUE = 'blue'\n"
    ),
}


def test_a_parameter_hinted_with_an_enumeration_is_given_its_members(tmp_path: Path) -> None:
    """No literal is a ``Kind``: the members, named as the module binds the class."""
    suite = generated_and_run(tmp_path, "paints.mix", MIX, files=KINDS)
    assert "from paints.mix import K, mix" in suite.source, suite.source
    assert "mix(K.RED, K.BLUE)" in suite.source, suite.source
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


FRAMES = '''\
"""Fixed-size frames, their sizes named in a sibling module."""

from frames import sizes
from frames.sizes import TAG_LEN


def pack(payload: bytes) -> bytes:
    if len(payload) != sizes.BODY_LEN:
        raise ValueError("a body has to be exactly BODY_LEN bytes")
    return payload[:2] + payload[2:]


def tag(text: str) -> str:
    if len(text) != TAG_LEN:
        raise ValueError("a tag has to be exactly TAG_LEN characters")
    return text.upper()
'''


def test_inputs_of_the_length_a_module_checks_are_tried(tmp_path: Path) -> None:
    """Every input but one of an exact length is refused, and that length is a sum of
    constants of a sibling module: no search of short strings reaches past the check."""
    files = {
        "frames/__init__.py": "",
        "frames/sizes.py": "HEAD_LEN = 3\nTAIL_LEN = 9\nBODY_LEN = HEAD_LEN + TAIL_LEN\nTAG_LEN = 5\n",
    }
    suite = generated_and_run(tmp_path, "frames.codec", FRAMES, files=files)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


SETTINGS = '''\
"""Settings read as attributes, and the entries a parser returns."""


class Settings(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        if name.startswith("_"):
            raise AttributeError("private: " + name)
        self[name] = value

    def __delattr__(self, name):
        if name not in self:
            raise AttributeError(name)
        del self[name]

    def __getstate__(self):
        return dict(self)

    def __setstate__(self, state):
        self.update(state)


class _Origin:
    def __init__(self, text):
        self.text = text


class Entry:
    def __init__(self, key: str, value: str, origin: _Origin) -> None:
        self.key = key
        self.value = value
        self._origin = origin

    def __repr__(self):
        return f"Entry({self.key!r}, {self.value!r})"

    @property
    def source(self):
        return self._origin.text


def parse(text: str) -> Entry:
    key, _, value = text.partition("=")
    return Entry(key.strip(), value.strip(), _Origin(text))
'''


def test_attribute_syntax_pickling_and_returned_instances_are_tested(tmp_path: Path) -> None:
    """``settings.a = 1``, ``del settings.a``, a pickle round trip, and the entry ``parse``
    returns (whose constructor needs an object no literal builds): each reaches code no
    call on a fresh instance of a constructor's reaches."""
    suite = generated_and_run(tmp_path, "settings", SETTINGS)
    # __setattr__ both ways, __delattr__ both ways, the pickling pair, Entry's repr and property
    for line in (13, 14, 18, 19, 22, 25, 39, 43):
        assert line not in suite.missing_lines, (line, suite.source)
    assert "import pickle" in suite.source
    assert "pickle.loads(pickle.dumps(settings))" in suite.source
    assert "    entry = parse(" in suite.source


PAIRS = '''\
"""Key-value files, with a hook."""


def loads(text, hook=None):
    pairs = {}
    for line in text.splitlines():
        if "=" not in line:
            continue
        key, _, value = line.partition("=")
        if hook is not None:
            kept = hook(len(pairs), key, value)
            if kept is None:
                continue
            key, value = kept
        pairs[key] = value
    return pairs


def load(fp, hook=None):
    text = fp.read()
    if not text:
        return {}
    return loads(text, hook=hook)
'''


def test_a_file_argument_gets_an_in_memory_file_and_a_callback_a_lambda_of_its_arity(
    tmp_path: Path,
) -> None:
    """``load(fp)`` reads ``fp``: it is given ``io.StringIO`` holding a text ``loads``
    parses; ``hook`` is called with three arguments: it is given lambdas of three, one
    of which returns None (the line skipped)."""
    suite = generated_and_run(tmp_path, "pairs", PAIRS)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source
    assert "import io\n" in suite.source and "load(io.StringIO(" in suite.source
    assert "hook=lambda a, b, c: None" in suite.source


TABLE = '''\
"""A table drawn once it has a header and rows."""


class Table:
    def __init__(self) -> None:
        self._header: list = []
        self._rows: list = []

    def header(self, names: list) -> None:
        if not names:
            raise ValueError("no names")
        self._header = list(names)

    def add_row(self, row: list) -> None:
        if not self._header:
            raise ValueError("set the header first")
        if len(row) != len(self._header):
            raise ValueError("wrong width")
        self._rows.append(list(row))

    def draw(self) -> str:
        if not self._rows:
            return ""
        lines = [" | ".join(map(str, self._header))]
        for row in self._rows:
            lines.append(" | ".join(map(str, row)))
        return "\\n".join(lines)
'''


def test_a_step_that_works_only_after_another_starts_later_sequences(tmp_path: Path) -> None:
    """``add_row`` raises on a fresh table and works after ``header``: once seen working,
    that chain is a prefix, and ``draw`` after it reaches the rows."""
    suite = generated_and_run(tmp_path, "table", TABLE)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source
    assert "def test_table_draw_after_header_add_row_" in suite.source


WALKER = '''\
"""A walk that reports to a callback below a depth."""


class Walker:
    def __init__(self, depth: int = 0, callback=None) -> None:
        self.depth = depth
        self.callback = callback

    def walk(self, tree: dict) -> list:
        found = []
        for key in tree:
            if self.depth and self.callback is not None:
                found.append(self.callback(key))
            found.append(key)
        return found
'''


def test_options_that_act_only_together_are_given_together(tmp_path: Path) -> None:
    """The callback runs only when a depth is set too: each option alone changes
    nothing, and an instance built with both reaches it. (The search before pairs
    reached this too on so small a module, a round later, by adding one keyword to a
    neighbour; pairs are planned from the first round.)"""
    suite = generated_and_run(tmp_path, "walker", WALKER)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source


FILTERS = '''\
"""Filters over records: a field compared gives a check, checks combine with & and ~
and are called on a record."""


class Field:
    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, value):
        def test(record):
            return record.get(self.name) == value

        return Check(test, f"{self.name} == {value!r}")

    __hash__ = None


class Check:
    def __init__(self, test, text: str) -> None:
        self._test = test
        self.text = text

    def __call__(self, record: dict) -> bool:
        if not isinstance(record, dict):
            raise TypeError("a record is a dict")
        return bool(self._test(record))

    def __and__(self, other: "Check") -> "Check":
        def both(record):
            return self(record) and other(record)

        return Check(both, f"{self.text} and {other.text}")

    def __invert__(self) -> "Check":
        def negated(record):
            return not self(record)

        return Check(negated, f"not {self.text}")


def field(name: str) -> Field:
    if not name:
        raise ValueError("a field has a name")
    return Field(name)
'''


def test_an_instance_returned_by_an_operator_is_called_and_combined(tmp_path: Path) -> None:
    """``field('a') == 1`` gives a check only calling it runs: its test (line 11) runs
    when the check returned by a call on another instance is itself called, and the
    combined checks' tests (30, 36) when what ``&`` and ``~`` return is called in turn."""
    suite = generated_and_run(tmp_path, "filters", FILTERS)
    for line in (11, 26, 30, 36):
        assert line not in suite.missing_lines, (line, suite.source)
    assert "__call__" not in suite.source and "__and__" not in suite.source


COLOURS = '''\
"""Colour codes for a terminal, unless the environment says otherwise."""

import os


def can_colour(tty: bool) -> bool:
    if "NO_COLOR" in os.environ:
        return False
    if os.environ.get("FORCE_COLOR", "").lower() in ("yes", "always"):
        return True
    if os.getenv("TERM") == "dumb":
        return False
    return tty


def paint(text: str, code: int, tty: bool = True) -> str:
    if not can_colour(tty):
        return text
    return f"\\033[{code}m{text}\\033[0m"
'''


def test_branches_on_environment_variables_are_tested_with_monkeypatch(tmp_path: Path) -> None:
    """Each variable read at run time is set (``NO_COLOR`` to anything, ``FORCE_COLOR`` to
    a value it is compared with, ``TERM`` to ``dumb``) by ``monkeypatch`` in the test, so
    the branches behind them (lines 8, 10, 12) run; the suite passes run after run."""
    suite = generated_and_run(tmp_path, "colours", COLOURS, runs=2)
    for line in (8, 10, 12):
        assert line not in suite.missing_lines, (line, suite.source)
    assert "monkeypatch: pytest.MonkeyPatch" in suite.source
    assert 'monkeypatch.setenv("TERM", "dumb")' in suite.source
    # each test pins every variable its calls read: it passes whatever the shell has set
    shell = {"NO_COLOR": "1", "FORCE_COLOR": "always", "TERM": "dumb"}
    box = Sandbox(tmp_path / "proj", LIMITS, env=shell)
    run = run_pytest(tmp_path / "proj", python=PY, sandbox=box, timeout=60)
    assert run.outcomes and {o.outcome for o in run.outcomes} == {"passed"}, run.output


def test_generators_raising_late_or_never_ending_get_tests_that_pass_and_end(
    tmp_path: Path,
) -> None:
    """A generator raises as it is consumed, so its test consumes it inside
    ``pytest.raises``; an endless one is taken only as far as the run took it."""
    from tests.integration.builtin.test_explore import GENERATORS

    suite = generated_and_run(tmp_path, "gens", GENERATORS, runs=2)
    assert "itertools.islice(naturals(" in suite.source
    assert "list(pairs(" in suite.source and "odd" in suite.source
    assert 13 not in suite.missing_lines, suite.source  # raise ValueError("odd")


GREETINGS = '''\
"""Greeting lines, with a greeting word set for the whole module."""

import argparse
import sys

__all__ = ["configure", "greet", "main"]

GREETING = "Hello"


def configure(word: str) -> None:
    global GREETING
    GREETING = word


def greet(name: str) -> str:
    if not name:
        return GREETING + "!"
    return f"{GREETING}, {name}!"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or sys.stdin.read().split()
    with sys.stdout as out:
        for name in names:
            out.write(greet(name) + "\\n")
    return len(names)
'''


def test_a_global_rebound_is_put_back_and_a_command_line_entry_runs_as_explored(
    tmp_path: Path,
) -> None:
    """``configure`` rebinds ``GREETING`` for every test after its own, and ``main``
    parses ``sys.argv``, reads stdin and closes stdout: under pytest those are pytest's
    command line and capture. Each test puts the global back and runs ``main`` with the
    command line and streams the runner gave it, so the suite passes twice and reaches
    ``configure``'s and ``main``'s lines."""
    suite = generated_and_run(tmp_path, "greetings", GREETINGS, runs=2)
    for line in (13, 24, 25, 26, 27, 30):
        assert line not in suite.missing_lines, (line, suite.source)
    assert 'monkeypatch.setattr("greetings.GREETING", GREETING)' in suite.source
    assert 'monkeypatch.setattr("sys.argv", ["greetings"])' in suite.source


WORLD = '''\
"""Things kept in the module itself, numbered from a counter it keeps."""

from itertools import count as _count

_ids = _count(start=1)
_things: dict[int, list[object]] = {}


def create(*parts: object) -> int:
    ident = next(_ids)
    _things[ident] = list(parts)
    return ident


def part(ident: int, kind: type) -> object:
    for value in _things[ident]:
        if isinstance(value, kind):
            return value
    raise LookupError(f"no {kind.__name__} in {ident}")


def remove(ident: int) -> None:
    del _things[ident]
'''


def test_functions_reading_the_modules_own_state_run_after_those_that_change_it(
    tmp_path: Path,
) -> None:
    """``part`` finds nothing in a fresh module: only after ``create`` stored parts does
    it return one (given the number ``create`` returned, and a type stored) or find
    none of a type. Each test builds the counter afresh, so the numbers a test reads
    back hold in any order, run after run."""
    suite = generated_and_run(tmp_path, "world", WORLD, runs=2)
    for line in (18, 19, 20):  # the match, its value, and a thing with no such part
        assert line not in suite.missing_lines, (line, suite.source)
    assert "monkeypatch.setattr('world._ids', _count(start=1))" in suite.source.replace('"', "'")
    assert re.search(r"def test_part_after_create_", suite.source), suite.source


TOKENS = '''\
"""Random tokens of a chosen size."""

import secrets


def token(size: int = 8) -> str:
    if size <= 0:
        raise ValueError("size must be positive")
    if size > 64:
        size = 64
    return secrets.token_hex(size)
'''


def test_a_random_value_is_tested_through_its_type(tmp_path: Path) -> None:
    """``token`` returns a new string each run: its tests assert the type, so the lines
    only a random result reaches (10, 11) are covered, and the suite passes twice."""
    suite = generated_and_run(tmp_path, "tokens", TOKENS, runs=2)
    assert 10 not in suite.missing_lines and 11 not in suite.missing_lines, suite.source
    assert "assert isinstance(result, str)" in suite.source


LOOKUP = '''\
"""Country codes, offered through one object, as iso3166 offers ``countries``."""

import re
from typing import NamedTuple


class Country(NamedTuple):
    name: str
    alpha2: str
    numeric: str


_RECORDS = [Country("Afghanistan", "AF", "004"), Country("Chad", "TD", "148")]
_BY_ALPHA2 = {c.alpha2: c for c in _RECORDS}
_BY_NUMERIC = {c.numeric: c for c in _RECORDS}
_BY_NAME = {c.name.upper(): c for c in _RECORDS}


class _Lookup:
    def get(self, key, default=None):
        if isinstance(key, int):
            found = _BY_NUMERIC.get(f"{key:03d}")
        else:
            k = key.upper()
            if len(k) == 2:
                found = _BY_ALPHA2.get(k)
            elif re.match(r"[0-9]{3}$", k):
                found = _BY_NUMERIC.get(k)
            else:
                found = _BY_NAME.get(k)
        if found is None:
            if default is not None:
                return default
            raise KeyError(key)
        return found

    __getitem__ = get

    def __len__(self):
        return len(_RECORDS)

    def __contains__(self, key):
        try:
            self.get(key)
        except KeyError:
            return False
        return True


countries = _Lookup()
'''


def test_a_private_class_offered_through_a_module_level_instance_is_called_on_it(
    tmp_path: Path,
) -> None:
    """The module's API is ``countries``: its methods run on that object, written as a
    person uses it, and the private class is never built nor imported."""
    suite = generated_and_run(tmp_path, "lookup", LOOKUP)
    text = LOOKUP.splitlines()
    for needle in ("found = _BY_ALPHA2", "raise KeyError", "return len(", "return False"):
        line = next(i for i, t in enumerate(text, 1) if needle in t)
        assert line not in suite.missing_lines, (needle, suite.source)
    assert "countries.get(" in suite.source and "_Lookup" not in suite.source
    assert "len(countries)" in suite.source and " in countries" in suite.source


HOMES = '''\
"""Per-user paths, as platformdirs builds them."""

import os


def cache_dir(app=None):
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
    return os.path.join(base, app) if app else base
'''


def test_a_value_taken_from_the_environment_is_asserted_with_the_environment_set(
    tmp_path: Path,
) -> None:
    """``expanduser`` reads ``HOME`` in the standard library, where the module names no
    variable: the value observed in the sandbox holds only with the sandbox's ``HOME``,
    so each test sets what its call read, and passes with any ``HOME``."""
    suite = generated_and_run(tmp_path, "homes", HOMES)
    assert 'monkeypatch.setenv("HOME", ' in suite.source
    assert 'monkeypatch.delenv("XDG_CACHE_HOME", raising=False)' in suite.source
    project = tmp_path / "proj"
    elsewhere = Sandbox(project, LIMITS, env={"HOME": str(tmp_path / "someone-else")})
    run = run_pytest(project, python=PY, sandbox=elsewhere, timeout=60)
    assert run.outcomes and {o.outcome for o in run.outcomes} == {"passed"}, run.output


RETRYING = '''\
"""Calls a function again while it raises, as the retry package does."""


def _attempt(f, tries):
    remaining = tries
    while remaining:
        try:
            return f()
        except Exception:
            remaining -= 1
            if not remaining:
                raise
    return None


def call_again(f, tries=-1):
    return _attempt(f, tries)
'''


def test_a_call_that_never_ends_is_tried_with_its_loop_bounded(tmp_path: Path) -> None:
    """``call_again(f)`` with an ``f`` that raises loops for ever: the timeout is the sign,
    and ``tries`` (passed on to the loop's bound) set small makes the retry path end."""
    suite = generated_and_run(tmp_path, "retrying", RETRYING)
    text = RETRYING.splitlines()
    for needle in ("remaining -= 1", "raise"):
        line = next(i for i, t in enumerate(text, 1) if t.strip() == needle)
        assert line not in suite.missing_lines, (needle, suite.source)
    assert "tries=2" in suite.source or "tries=1" in suite.source


SESSIONS = '''\
"""Scratch files and sessions, each used through ``with``."""

import contextlib
import os


@contextlib.contextmanager
def scratch(name: str):
    if not name:
        raise ValueError("a scratch file needs a name")
    path = name + ".tmp"
    handle = open(path, "w")
    try:
        yield handle.name
    finally:
        handle.close()
        os.remove(path)


class Session:
    def __init__(self, user: str) -> None:
        self.user = user

    def begin(self) -> "_Transaction":
        return _Transaction(self.user)


class _Transaction:
    def __init__(self, user: str) -> None:
        self.user = user

    def __enter__(self) -> str:
        if not self.user:
            raise PermissionError("a transaction needs a user")
        return self.user.upper()

    def __exit__(self, *exc: object) -> bool:
        return False
'''


def test_a_context_manager_a_call_returns_is_entered_and_what_it_gives_asserted(
    tmp_path: Path,
) -> None:
    """``scratch`` runs its body only inside a ``with``, and ``begin``'s transaction
    checks its user as it is entered: their tests enter them (``with ... as result``)
    and assert what the ``with`` gave, or what entering raised."""
    suite = generated_and_run(tmp_path, "sessions", SESSIONS, runs=2)
    for line in (12, 13, 14, 15, 17, 18, 35, 36, 37):
        assert line not in suite.missing_lines, (line, suite.source)
    assert re.search(r'with scratch\("[^"]+"\) as result:\n        pass\n', suite.source)
    assert re.search(r'assert result == "[^"]*\.tmp"', suite.source)
    assert re.search(r"\(PermissionError, .*\n        with session\.begin\(\):", suite.source)
    assert "list(scratch(" not in suite.source  # a generator function's wrapper, not iterated
    lint = subprocess.run(
        [str(RUFF), "check", "--isolated", "--select", "E,F,W,B", "-"],
        input=suite.source,
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout


TALLY = '''\
"""Running sums that merge, and pairs that feed two of them."""


class Tally:
    def __init__(self, iterable=()):
        self.count = 0
        self.low = None
        for value in iterable:
            self.push(value)

    def push(self, value):
        self.count += 1
        self.low = value if self.low is None else min(self.low, value)

    def __add__(self, that):
        merged = Tally()
        merged.count = self.count + that.count
        if self.count == 0:
            merged.low = that.low
        elif that.count != 0:
            merged.low = min(self.low, that.low)
        else:
            merged.low = self.low
        return merged


class Pairs:
    def __init__(self, iterable=()):
        self.xs = Tally()
        self.ys = Tally()
        for x, y in iterable:
            self.xs.push(x)
            self.ys.push(y)
'''


def test_merging_meets_instances_built_with_data_and_pairs_feed_a_pair_loop(
    tmp_path: Path,
) -> None:
    """``Tally() + Tally([1, 2, 3])`` and two filled ones: an instance built with data is
    among those handed to ``that``; ``Pairs`` iterates two names, so it is given pairs."""
    suite = generated_and_run(tmp_path, "tally", TALLY)
    assert (suite.missing_lines, suite.missing_branches) == ((), ()), suite.source
