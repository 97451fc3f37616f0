"""Exploration for real: calls run under a real interpreter in the sandbox, traced, twice."""

from __future__ import annotations

import ast
import itertools
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from tddforge.builtin import search as search_module
from tddforge.builtin.constants import mine_constants, with_texts
from tddforge.builtin.discover import ModuleInfo, discover
from tddforge.builtin.explore import (
    Call,
    CallResult,
    Step,
    capture_calls,
    confirm_calls,
    explore,
    run_against_mutants,
    run_calls,
)
from tddforge.builtin.file_headers import composed_headers
from tddforge.builtin.from_tests import calls_from_tests, project_test_sources, read_tests
from tddforge.builtin.search import Guard, SearchResult, search
from tddforge.builtin.texts import composed_texts
from tddforge.sandbox import Limits, Sandbox
from tddforge.sandbox.backend import READ_ONLY_ROOT

pytestmark = pytest.mark.integration

LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=30)
PY = Path(sys.executable)

SAMPLE = """\
import os
import random
import time


def classify(n: int) -> str:
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    if n > 100:
        return "big"
    return "small"


def boom(x):
    raise ValueError(f"bad {x}")


def now():
    return time.time()


def pick():
    return random.random()


def order():
    return list({"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"})


def spin():
    while True:
        pass


def die():
    os._exit(3)


def count(n: int):
    yield from range(n)


class Box:
    def __init__(self, size: float) -> None:
        self.size = size
        self._secret = object()

    def grow(self, by: float = 1.0) -> float:
        return self.size + by
"""


def sample(tmp_path: Path, name: str, source: str) -> tuple[Path, Path]:
    """A project in ``tmp_path`` holding the module ``name`` (``source``); both paths."""
    project = tmp_path / "proj"
    project.mkdir()
    module = project / name
    module.write_text(source, encoding="utf-8")
    return project, module


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    (path / "sample.py").write_text(SAMPLE, encoding="utf-8")
    return path


def run(project: Path, *calls: Call) -> list[CallResult]:
    box = Sandbox(project, LIMITS)
    return run_calls(
        project, project / "sample.py", calls, python=PY, sandbox=box, call_timeout=0.5
    )


def test_outcomes_values_exceptions_timeouts_crashes(project: Path) -> None:
    results = run(
        project,
        Call("classify", ("-5",)),
        Call("boom", ("'x'",)),
        Call("spin"),
        Call("die"),
        Call("count", ("3",), consume=True),
        Call("Box.grow", kwargs=(("by", "2.5"),), init_args=("1.0",)),
    )
    got = [(r.outcome.kind, r.outcome.repr or r.outcome.message, r.deterministic) for r in results]
    assert got == [
        ("return", "'negative'", True),
        ("raise", "bad x", True),
        ("timeout", "", False),
        ("crash", "", False),
        ("return", "[0, 1, 2]", True),
        ("return", "3.5", True),
    ]
    assert results[1].outcome.type == "ValueError" and results[1].outcome.type_module == "builtins"
    assert results[0].outcome.literal


FORKS = """\
import os


def spawn_in(path):
    pid = os.fork()
    if pid == 0:
        os.chdir(path)  # fails outside any handler: the child unwinds into the runner
        os._exit(0)
    return os.waitpid(pid, 0)[1] != 0


def double(x):
    return 2 * x
"""


def test_a_copy_that_a_call_forks_and_that_returns_into_the_runner_ends_there(
    tmp_path: Path,
) -> None:
    project, module = sample(tmp_path, "forks.py", FORKS)
    box = Sandbox(project, LIMITS)
    calls = [Call("spawn_in", ("''",)), Call("double", ("3",))]
    results = run_calls(project, module, calls, python=PY, sandbox=box, call_timeout=2.0)
    got = [(r.outcome.kind, r.outcome.repr, r.deterministic) for r in results]
    assert got == [("return", "True", True), ("return", "6", True)]


def test_arcs_follow_the_branch_taken(project: Path) -> None:
    negative, zero, small = run(
        project, Call("classify", ("-1",)), Call("classify", ("0",)), Call("classify", ("5",))
    )
    assert (7, 8) in negative.arcs and (7, 8) not in zero.arcs  # if n < 0: return
    assert (9, 10) in zero.arcs and (9, 10) not in small.arcs
    assert (-6, 7) in small.arcs  # entry arc, as coverage.py writes it
    assert not zero.arcs <= negative.arcs


def test_the_arcs_of_building_the_instance_are_kept_apart(project: Path) -> None:
    """A method's test builds its instance (``Box(1.0)``, or the expression ``via``)
    before the call: those arcs are not the call's, but what they do (a registry
    written to) is known of its test."""
    built, via, plain = run(
        project,
        Call("Box.grow", init_args=("1.0",)),
        Call("Box.grow", via="Box(2.0)"),
        Call("classify", ("1",)),
    )
    init = 48  # ``self.size = size``
    for result in (built, via):
        assert any(init in arc for arc in result.setup)
        assert not any(init in arc for arc in result.arcs)
    assert (built.outcome.repr, via.outcome.repr) == ("2.0", "3.0")
    assert plain.setup == frozenset() and plain.arcs


def test_values_that_vary_are_kept_as_their_type(project: Path) -> None:
    """A clock, a random number and a set's order differ between the two runs: what
    stays is the type, which is what their tests assert."""
    results = run(project, Call("now"), Call("pick"), Call("order"), Call("classify", ("1",)))
    assert [r.deterministic for r in results] == [True, True, True, True]
    assert [(r.outcome.type, r.outcome.varies) for r in results] == [
        ("float", True),
        ("float", True),
        ("list", True),
        ("str", False),
    ]
    assert results[0].outcome.repr == "" and not results[0].outcome.literal


def test_a_batch_run_once_is_split_and_confirmed_later(project: Path) -> None:
    box = Sandbox(project, LIMITS)
    calls = [
        Call("now"),
        Call("pick"),
        Call("order"),
        Call("spin"),
        *(Call("classify", (str(n),)) for n in range(-20, 40)),
    ]
    once = run_calls(
        project,
        project / "sample.py",
        calls,
        python=PY,
        sandbox=box,
        call_timeout=0.5,
        confirm=False,
    )
    assert [r.call for r in once] == calls  # both halves answered, in the calls' order
    assert not any(r.confirmed for r in once)
    assert [r.deterministic for r in once[:4]] == [True, True, True, False]  # presumed
    sure = confirm_calls(
        project,
        project / "sample.py",
        [*once[:3], once[-1]],
        python=PY,
        sandbox=box,
        call_timeout=0.5,
    )
    # confirmed: the clock, the random number and the set's order are kept as their type
    assert [(r.confirmed, r.deterministic, r.outcome.varies) for r in sure] == [
        (True, True, True),
        (True, True, True),
        (True, True, True),
        (True, True, False),
    ]
    assert sure[3].outcome.repr == "'small'" and sure[3].arcs == once[-1].arcs


def test_objects_compare_by_type_and_public_literal_state(project: Path) -> None:
    (built,) = run(project, Call("Box", ("2.0",)))
    assert built.outcome.kind == "return" and not built.outcome.literal
    assert " at 0x" in built.outcome.repr
    assert built.outcome.state == (("size", "2.0"),)  # _secret is private, object() no literal
    assert built.deterministic


def test_explore_keeps_one_call_per_new_branch(project: Path) -> None:
    box = Sandbox(project, LIMITS)
    module = project / "sample.py"
    info = discover(project, module, python=PY, sandbox=box)
    mined = mine_constants(module.read_text(encoding="utf-8"))
    kept = explore(project, module, info, mined, python=PY, sandbox=box)
    classify = {r.outcome.repr for r in kept if r.call.target == "classify"}
    assert classify == {"'negative'", "'zero'", "'big'", "'small'"}
    assert len([r for r in kept if r.call.target == "classify"]) == 4  # nothing redundant kept
    assert {r.call.target for r in kept} >= {"boom", "count", "Box", "Box.grow"}
    assert not {r.call.target for r in kept} & {"spin", "die"}  # a timeout, a crash
    varying = {r.call.target for r in kept if r.outcome.varies}
    assert varying <= {"now", "pick", "order"} and "now" in varying
    assert not list(project.rglob("__pycache__"))


LOADS = """\
import sys


def loaded(name):
    return name in sys.modules
"""


def test_the_modules_an_argument_may_name_are_loaded_before_the_children_fork(
    tmp_path: Path,
) -> None:
    # loaded in each child instead, they cost several times a call (``uuid`` imports
    # ``platform``); nothing the module imports loads them here
    project, module = sample(tmp_path, "loads.py", LOADS)
    calls = [Call("loaded", (repr(name),)) for name in ("fractions", "uuid", "decimal")]
    box = Sandbox(project, LIMITS)
    results = run_calls(project, module, calls, python=PY, sandbox=box)
    assert [r.outcome.repr for r in results] == ["True", "True", "True"]


OLD_PYTHONS = sorted(Path.home().glob(".pyenv/versions/3.8*/bin/python"))


@pytest.mark.skipif(not OLD_PYTHONS, reason="no Python 3.8 here")
def test_runner_needs_only_the_stdlib_of_an_old_target_interpreter(project: Path) -> None:
    box = Sandbox(project, LIMITS)
    calls = [
        Call("classify", ("0",)),
        Call("boom", ("1",)),
        Call("Box.grow", ("1.0",), init_args=("2.0",), before=(Step("grow", ("5.0",)),)),
    ]
    results = run_calls(project, project / "sample.py", calls, python=OLD_PYTHONS[0], sandbox=box)
    assert [(r.outcome.kind, r.deterministic) for r in results] == [
        ("return", True),
        ("raise", True),
        ("return", True),  # after a step on the same instance
    ]
    assert (9, 10) in results[0].arcs


SEARCHED = """\
import time


def f(n: int) -> str:
    if n == 8:
        return "eight"
    return "other"


def slow(n: int) -> int:
    time.sleep(0.4)
    return n


def k(s: str) -> str:
    if len(s) > 2:
        if s.startswith("xyxy"):
            return "double"
        return "long"
    return "short"


def part(doc: dict) -> str:
    if isinstance(doc, dict):
        return "mapping"
    if hasattr(doc, "__getitem__"):
        return "indexable"
    return "plain"
"""


def searched(tmp_path: Path) -> tuple[Path, Path, Sandbox, ModuleInfo]:
    project, module = sample(tmp_path, "searched.py", SEARCHED)
    box = Sandbox(project, LIMITS)
    return project, module, box, discover(project, module, python=PY, sandbox=box)


def test_search_reaches_a_branch_through_a_neighbour_then_stops(tmp_path: Path) -> None:
    project, module, box, info = searched(tmp_path)
    found = search(project, module, info, {}, python=PY, sandbox=box, first=[Call("f", ("7",))])
    assert [(r.call.args, r.outcome.repr) for r in found.kept if r.call.target == "f"] == [
        (("7",), "'other'"),
        (("8",), "'eight'"),  # 7 + 1, in round 1
    ]
    # the text f(7) returned is handed to k, which takes text: in round 1 too
    assert next(r.call.args for r in found.kept if r.call.target == "k") == ("f(7)",)
    # round 1 ran 7's mutations (8, 6, -7, 0), the other int candidates (1, -1, 100) and
    # k(f(7)); round 2 the neighbours of 8 and of k's call not yet run; rounds 3 and 4
    # widen to the neighbours of every call run, round 5 gives the kept calls values of
    # other types than the hint, round 6 the neighbours of what that found; then nothing
    # new is left, and the search stops
    assert (found.rounds, found.stopped) == (6, "coverage stopped rising")


def test_search_ends_with_values_of_other_types_than_the_hint(tmp_path: Path) -> None:
    project, module, box, info = searched(tmp_path)
    found = search(project, module, info, {}, python=PY, sandbox=box, first=[Call("part", ("{}",))])
    assert [(r.call.args, r.outcome.repr) for r in found.kept if r.call.target == "part"] == [
        (("{}",), "'mapping'"),
        (("None",), "'plain'"),  # the hint says dict: only the last rounds try others
        (("''",), "'indexable'"),
    ]


def test_search_widens_to_the_neighbours_of_calls_it_did_not_keep(tmp_path: Path) -> None:
    project, module, box, info = searched(tmp_path)
    first = [Call("k", ("'abc'",)), Call("k", ("'a'",)), Call("k", ("'xy'",))]
    found = search(project, module, info, {}, python=PY, sandbox=box, first=first)
    # 'xy' reaches nothing 'a' did not, so it is not kept and its neighbours wait for a
    # widening: there 'xy' doubled reaches the branch no kept call is one step from
    assert [(r.call.args, r.outcome.repr) for r in found.kept] == [
        (("'abc'",), "'long'"),
        (("'a'",), "'short'"),
        (("'xyxy'",), "'double'"),
        (("None",), ""),  # the last round: len(None) raises, a new way out of k
    ]
    assert found.kept[-1].outcome.type == "TypeError"
    assert found.stopped == "coverage stopped rising"  # None's neighbours all ran already


def clocked_search(
    tmp_path: Path, budget: float, first: Call, ticks: Iterable[float]
) -> SearchResult:
    """A search of ``SEARCHED`` from ``first`` whose clock reads ``ticks`` in turn."""
    project, module, box, info = searched(tmp_path)
    clock = iter(ticks)
    return search(
        project,
        module,
        info,
        {},
        python=PY,
        sandbox=box,
        budget=budget,
        first=[first],
        clock=lambda: next(clock),
    )


def test_search_respects_the_budget(tmp_path: Path) -> None:
    # start, before round 0; from round 1 on (and while confirming): past the budget
    ticks = itertools.chain([0.0, 0.0], itertools.repeat(5.0))
    found = clocked_search(tmp_path, 2.0, Call("slow", ("1",)), ticks)
    assert (found.rounds, found.stopped) == (1, "budget spent")
    assert [r.call for r in found.kept] == [Call("slow", ("1",))]


def test_the_search_stops_in_time_to_confirm_what_it_kept(tmp_path: Path) -> None:
    # start, then round 1 (before it, as it begins, as it ends): 6 of 10 s, with 7's
    # neighbours still to try. Confirming the kept call may take what round 1 took,
    # which leaves nothing; without that reserve, round 2 would run with 4 s left.
    ticks = itertools.chain([0.0, 0.0, 0.0], itertools.repeat(6.0))
    found = clocked_search(tmp_path, 10.0, Call("f", ("7",)), ticks)
    assert (found.rounds, found.stopped) == (1, "budget spent")
    assert [r.call for r in found.kept] == [Call("f", ("7",))]


def test_a_failing_step_of_the_search_is_noted_and_stepped_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, module, box, info = searched(tmp_path)

    def broken(*args: object, **kwargs: object) -> list[Call]:
        raise IndexError("list index out of range")

    # a bug of ours in one step, as on a module never seen: neighbours cannot be made
    monkeypatch.setattr(search_module, "all_neighbours", broken)
    found = search(project, module, info, {}, python=PY, sandbox=box, first=[Call("k", ("'a'",))])
    assert [r.call for r in found.kept] == [Call("k", ("'a'",))]
    assert any("neighbour inputs failed (IndexError" in note for note in found.notes)


SECTIONS = """\
def parse(text):
    lines = text.splitlines()
    if not lines or lines[0] != "Args:":
        return None
    entries = {}
    for line in lines[1:]:
        if line.startswith("    ") and ":" in line:
            name, _, about = line.strip().partition(":")
            entries[name] = about.strip()
    return entries
"""
HUMAN_TEST = """\
from sections import parse


def test_args_section():
    assert parse("Args:\\n    x: the x\\n    y: the y") == {"x": "the x", "y": "the y"}
"""


def test_inputs_from_the_projects_tests_reach_what_the_search_alone_does_not(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    module = project / "sections.py"
    module.write_text(SECTIONS, encoding="utf-8")
    (project / "tests" / "test_sections.py").write_text(HUMAN_TEST, encoding="utf-8")
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    mined = mine_constants(SECTIONS)
    alone = search(project, module, info, mined, python=PY, sandbox=box, budget=10.0)
    seeded = calls_from_tests("sections", info, project_test_sources(project))
    helped = search(
        project, module, info, mined, python=PY, sandbox=box, budget=10.0, seeded=seeded
    )
    assert seeded == [Call("parse", ("'Args:\\n    x: the x\\n    y: the y'",))]
    assert len(helped.covered) > len(alone.covered)
    assert seeded[0] in [r.call for r in helped.kept]


def test_texts_composed_from_the_parser_reach_its_entries_without_any_test(
    tmp_path: Path,
) -> None:
    project, module = sample(tmp_path, "sections.py", SECTIONS)
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    mined = mine_constants(SECTIONS)
    plain = search(project, module, info, mined, python=PY, sandbox=box, budget=10.0)
    texts = with_texts(mined, composed_texts(SECTIONS))
    shaped = search(project, module, info, texts, python=PY, sandbox=box, budget=10.0)
    assert len(shaped.covered) > len(plain.covered)
    kept_inputs = [ast.literal_eval(r.call.args[0]) for r in shaped.kept if r.call.args]
    assert any("\n    " in text for text in kept_inputs if isinstance(text, str))


SNIFFER = """\
import struct
from typing import BinaryIO


def _format(head):
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "webp"
    return "unknown"


def size(stream: BinaryIO):
    head = stream.read(32)
    kind = _format(head)
    if kind == "gif":
        return struct.unpack("<HH", head[6:10])
    if kind == "webp":
        return struct.unpack("<HH", head[12:16])
    return -1, -1


def kind(data: bytes) -> str:
    return _format(data)
"""


def test_headers_composed_from_the_signatures_reach_each_format_without_any_test(
    tmp_path: Path,
) -> None:
    # imagesize: the formats are told apart by their first bytes, in a private helper;
    # no mutated short constant reaches the code that reads a GIF's or a WebP's size
    project, module = sample(tmp_path, "sniffer.py", SNIFFER)
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    mined = mine_constants(SNIFFER)
    plain = search(project, module, info, mined, python=PY, sandbox=box, budget=10.0)
    headers = with_texts(mined, composed_headers(SNIFFER))
    shaped = search(project, module, info, headers, python=PY, sandbox=box, budget=10.0)
    assert len(shaped.covered) > len(plain.covered)
    returned = {(r.call.target, r.outcome.repr) for r in shaped.kept if r.outcome.kind == "return"}
    assert {("size", "(0, 0)"), ("kind", "'gif'"), ("kind", "'webp'")} <= returned


FORMATS = """\
import os
from typing import BinaryIO, Protocol, Union, runtime_checkable


@runtime_checkable
class Readable(Protocol):
    def read(self, size: int = -1) -> bytes: ...


Source = Union[str, bytes, os.PathLike, BinaryIO, Readable]


def _format(head):
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head.startswith(b"\\x89PNG\\r\\n\\x1a\\n"):
        return "png"
    if head[:2] == b"BM":
        return "bmp"
    if head[:4] in (b"MM\\x00*", b"II*\\x00"):
        return "tiff"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "webp"
    if head[4:8] == b"ftyp":
        return "heif"
    if head[:2] == b"\\xff\\xd8":
        return "jpeg"
    if head[:2] in (b"P1", b"P4"):
        return "pnm"
    return "unknown"


def kind(source: Source) -> str:
    if isinstance(source, (str, bytes, os.PathLike)):
        with open(source, "rb") as handle:
            return _format(handle.read(32))
    return _format(source.read(32))
"""


def test_a_file_in_a_union_gets_every_header_and_a_protocol_is_never_built(
    tmp_path: Path,
) -> None:
    # imagesize's get(filepath: Union[str, bytes, PathLike, BinaryIO, ReadSeekBinary]):
    # five types shared the parameter's few candidates, and a file held 3 of 14 headers;
    # two more went to building the Protocol, which cannot be instantiated
    project, module = sample(tmp_path, "formats.py", FORMATS)
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    assert [c.is_abstract for c in info.classes if c.name == "Readable"] == [True]
    headers = with_texts(mine_constants(FORMATS), composed_headers(FORMATS))
    found = search(project, module, info, headers, python=PY, sandbox=box, budget=10.0)
    returned = {r.outcome.repr for r in found.kept if r.outcome.kind == "return"}
    formats = {"gif", "png", "bmp", "tiff", "webp", "heif", "jpeg", "pnm"}
    assert {repr(f) for f in formats} <= returned
    assert not [r for r in found.kept if "Readable(" in repr(r.call)]


PACKAGE_INIT = """\
from pkg.decoder import Decoder


def loads(text, strict=True):
    return Decoder(strict=strict).decode(text)
"""
DECODER = """\
import re

NUMBER = re.compile(r"-?[0-9]+")


def scan(text, end=0, match=NUMBER.match):
    found = match(text, end)
    return int(found.group()) if found else None


class Decoder:
    def __init__(self, strict=True, hook=None):
        self.strict = strict
        self.hook = hook

    def decode(self, text):
        text = text.strip()
        if text.startswith("["):
            return [scan(part) for part in text[1:-1].split(",")]
        value = scan(text)
        if value is None and self.strict:
            raise ValueError(f"not a number: {text!r}")
        return value

    def _private(self):
        return 1
"""
API_TEST = """\
import pkg as p


def test_loads():
    for text in ["[1,2]", " 7 ", "x"]:
        p.loads(text, strict=False)
"""


def _package(tmp_path: Path, module: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A project holding ``files`` (path → text), and its module ``pkg/<module>``."""
    project = tmp_path / "proj"
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text, encoding="utf-8")
    return project, project / "pkg" / module


def _captured(
    tmp_path: Path, name: str, files: dict[str, str]
) -> tuple[Path, Path, Sandbox, list[Call]]:
    """The calls the tests' drivers make of ``pkg.<name>``, in a project of ``files``."""
    project, module = _package(tmp_path, f"{name}.py", files)
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    read = read_tests(f"pkg.{name}", info, project_test_sources(project))
    return (
        project,
        module,
        box,
        capture_calls(project, module, read.drivers, python=PY, sandbox=box),
    )


def test_the_calls_the_packages_api_makes_of_the_module_are_captured(tmp_path: Path) -> None:
    project, module = _package(
        tmp_path,
        "decoder.py",
        {"pkg/__init__.py": PACKAGE_INIT, "pkg/decoder.py": DECODER, "tests/test_api.py": API_TEST},
    )
    box = Sandbox(project, LIMITS)
    info = discover(project, module, python=PY, sandbox=box)
    read = read_tests("pkg.decoder", info, project_test_sources(project))
    assert read.calls == []  # the tests never call the module's own names
    assert [d.target for d in read.drivers] == ["pkg.loads"] * 3
    captured = capture_calls(project, module, read.drivers, python=PY, sandbox=box)
    lenient = ("False",)  # as the frame holds it: positionally
    # a default left at its value is left out (``end=0``, ``match=NUMBER.match``, ``hook``)
    assert Call("scan", ("'1'",)) in captured and Call("scan", ("'7'",)) in captured
    assert Call("Decoder", lenient) in captured
    assert Call("Decoder.decode", ("'[1,2]'",), (), lenient) in captured
    assert Call("Decoder.decode", ("'x'",), (), lenient) in captured
    assert not [c for c in captured if "_private" in c.target or c.target == "loads"]
    # each captured call runs as the search runs it, with the outcome the API saw
    outcomes = {
        r.call: r.outcome for r in run_calls(project, module, captured, python=PY, sandbox=box)
    }
    assert outcomes[Call("Decoder.decode", ("'[1,2]'",), (), lenient)].repr == "[1, 2]"


LANG = """\
class Language:
    WORDS: dict


class German(Language):
    WORDS = {"eins": 1, "zwei": 2}


class Counted(Language):
    WORDS = {"one": 1}

    def __init__(self, base):
        self.base = base


LANG = {"de": German(), "strict": German(), "en": Counted(10)}
LANG["strict"].strict = True  # no longer what ``German()`` builds
"""
WORDS = """\
class Parser:
    def __init__(self, lang):
        self.lang = lang

    def parse(self, text):
        return sum(self.lang.WORDS[word] for word in text.split())
"""
WORDS_INIT = """\
from pkg.lang import LANG
from pkg.words import Parser


def to_number(text, lang):
    return Parser(LANG[lang]).parse(text)
"""
WORDS_TEST = """\
import pkg


def test_to_number():
    assert pkg.to_number("eins zwei", "de") == 3
    assert pkg.to_number("zwei", "strict") == 2
    assert pkg.to_number("one", "en") == 1
"""


def test_an_object_of_the_package_a_plain_constructor_makes_again_is_captured(
    tmp_path: Path,
) -> None:
    """text2num's ``text2num(text, "de")`` hands its parser the package's ``German()``,
    which no literal is: the call is captured with the constructor call that makes it."""
    files = {
        "pkg/__init__.py": WORDS_INIT,
        "pkg/lang.py": LANG,
        "pkg/words.py": WORDS,
        "tests/test_api.py": WORDS_TEST,
    }
    project, module, box, captured = _captured(tmp_path, "words", files)
    german = ("pkg.lang.German()",)
    assert Call("Parser", german) in captured
    assert Call("Parser.parse", ("'eins zwei'",), (), german) in captured
    # neither the one whose state differs nor the one built with an argument is written
    assert Call("Parser.parse", ("'zwei'",), (), german) not in captured
    assert not [c for c in captured if "'one'" in c.args]
    outcomes = {
        r.call: r.outcome for r in run_calls(project, module, captured, python=PY, sandbox=box)
    }
    assert outcomes[Call("Parser.parse", ("'eins zwei'",), (), german)].repr == "3"


# a module the target imports on first use; compiling its source warns (an invalid
# escape), which a call that turns warnings into errors sees only if it compiles it
LAZY = 'VALUE = len("\\d")\n'
ON_FIRST_USE = """\
import warnings


def load():
    from pkg import lazy

    return lazy.VALUE


def strict_load():
    warnings.simplefilter("error")
    from pkg import lazy

    return lazy.VALUE


def scan(text):
    return text
"""
LAZY_API = """\
import warnings

from pkg.loader import scan


def plain():
    from pkg import lazy

    return scan(str(lazy.VALUE))


def strict():
    warnings.simplefilter("error")
    from pkg import lazy

    return scan("strict")
"""


def _on_first_use(tmp_path: Path) -> tuple[Path, Path]:
    files = {"pkg/__init__.py": "", "pkg/lazy.py": LAZY, "pkg/loader.py": ON_FIRST_USE}
    files["pkg/api.py"] = LAZY_API
    return _package(tmp_path, "loader.py", files)


def test_a_module_a_call_imports_is_compiled_once_for_the_calls_after(tmp_path: Path) -> None:
    # the runner's parent compiles what a child imported from source, and the children
    # after it get that code: ``strict_load`` then imports ``lazy`` without compiling it
    project, module = _on_first_use(tmp_path)
    box = Sandbox(project, LIMITS)
    calls = [Call("load"), Call("strict_load")]
    found = {
        r.call.target: r.outcome for r in run_calls(project, module, calls, python=PY, sandbox=box)
    }
    assert (found["load"].kind, found["load"].repr) == ("return", "2")
    assert (found["strict_load"].kind, found["strict_load"].repr) == ("return", "2")
    # alone, the strict call compiles it, and the warning is an error
    (alone,) = run_calls(project, module, [Call("strict_load")], python=PY, sandbox=box)
    assert (alone.outcome.kind, alone.outcome.type) == ("raise", "SyntaxError")
    # so do the mutant-directed phase's children (mutants 0 and 2 share a process)
    mutants = [("a", ON_FIRST_USE, [0]), ("b", ON_FIRST_USE, [0]), ("c", ON_FIRST_USE, [1])]
    outcomes = run_against_mutants(project, module, calls, mutants, python=PY, sandbox=box)
    assert (outcomes["c"][1].kind, outcomes["c"][1].repr) == ("return", "2")
    # and the children capturing the calls the package's API makes
    drivers = [Call("pkg.api.plain"), Call("pkg.api.strict")]
    captured = capture_calls(project, module, drivers, python=PY, sandbox=box)
    assert Call("scan", ("'2'",)) in captured and Call("scan", ("'strict'",)) in captured
    assert not list(project.rglob("__pycache__"))


SPLITTER = """\
class Splitter:
    marks = "."

    def split(self, text):
        return [part.strip() for part in text.split(self.marks) if part.strip()]
"""
ENGLISH = """\
from pkg.base import Splitter


class English(Splitter):
    marks = "!"
"""
SPLIT_INIT = """\
from pkg.english import English


def split(text):
    return English().split(text)
"""
SPLIT_TEST = """\
from pkg import split


def test_split():
    assert split("a! b") == ["a", "b"]
"""


def test_a_method_reached_through_a_subclass_elsewhere_is_captured_on_its_own_class(
    tmp_path: Path,
) -> None:
    """sentencex's ``segment("en", text)`` calls ``EnglishLanguage().segment(text)``: no
    constructor of ``base.Language`` runs (it has none), and the instance's class is in
    another module; the call is kept, on ``Language()``."""
    files = {
        "pkg/__init__.py": SPLIT_INIT,
        "pkg/english.py": ENGLISH,
        "pkg/base.py": SPLITTER,
        "tests/test_split.py": SPLIT_TEST,
    }
    project, module, box, captured = _captured(tmp_path, "base", files)
    assert captured == [Call("Splitter.split", ("'a! b'",), (), ())]
    (result,) = run_calls(project, module, captured, python=PY, sandbox=box)
    assert result.outcome.repr == "['a! b']"  # run on the class itself, whose mark is "."


def test_the_guard_returns_the_fallback_and_keeps_the_note() -> None:
    guard = Guard()
    assert guard("step one", lambda: 1, 0) == 1
    assert guard("step two", lambda: [][0], -1) == -1
    assert guard.notes == [
        "step two failed (IndexError: list index out of range); went on without it"
    ]


MUTATED = """\
def inc(x):
    return x + 1


def _table(n):
    return [i * 2 for i in range(n)]


TABLE = _table(3)


def stop(x):
    while x:
        pass
    return x
"""


def test_calls_run_against_mutants_in_the_sandbox(tmp_path: Path) -> None:
    project, module = sample(tmp_path, "mutated.py", MUTATED)
    calls = [
        Call("inc", ("1",)),
        Call("inc", ("-1",)),
        Call("stop", ("0",)),
        Call("stop", ("1",)),
        Call("TABLE", attribute=True),
    ]
    mutants = [
        ("minus", MUTATED.replace("x + 1", "x - 1"), [0, 1]),
        ("import-breaks", MUTATED + "raise RuntimeError('at import')\n", [0]),
        ("hangs", MUTATED.replace("while x:", "while not x:"), [2]),
        ("table", MUTATED.replace("i * 2", "i * 3"), [4]),  # data built at import, read
    ]
    found = run_against_mutants(
        project,
        module,
        calls,
        mutants,
        python=PY,
        sandbox=Sandbox(project, LIMITS),
        call_timeout=0.5,
    )
    assert {
        k: {i: (o.kind, o.repr or o.message) for i, o in v.items()} for k, v in found.items()
    } == {
        "minus": {0: ("return", "0"), 1: ("return", "-2")},
        "import-breaks": {0: ("raise", "at import")},
        "hangs": {2: ("timeout", "")},
        "table": {4: ("return", "[0, 3, 6]")},
    }
    assert module.read_text(encoding="utf-8") == MUTATED  # the mutants never touched the file
    (read,) = run_calls(project, module, [calls[4]], python=PY, sandbox=Sandbox(project, LIMITS))
    assert (read.outcome.repr, read.deterministic, read.arcs) == ("[0, 2, 4]", True, frozenset())


VECTORS = """\
class V:
    def __init__(self, x=0):
        self.x = x

    def __add__(self, other):
        if not isinstance(other, V):
            return NotImplemented
        return V(self.x + other.x)

    def __repr__(self):
        return f"V({self.x})"

    def __setitem__(self, index, value):
        if index != 0:
            raise IndexError(index)
        self.x = value

    def __delitem__(self, index):
        self.x = 0
"""


def test_special_methods_run_as_operators(tmp_path: Path) -> None:
    project, module = sample(tmp_path, "vectors.py", VECTORS)
    calls = [
        Call("V.__add__", ("V(2)",), init_args=("1",)),
        Call("V.__add__", ("3",), init_args=()),
        Call("V.__setitem__", ("0", "7"), init_args=("1",)),
        Call("V.__setitem__", ("1", "7"), init_args=("1",)),
        Call("V.__delitem__", ("0",), init_args=("5",)),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    added, refused, stored, out_of_range, deleted = (r.outcome for r in results)
    assert (added.kind, added.repr, added.state) == ("return", "V(3)", (("x", "3"),))
    assert results[0].readable_repr  # stable in both runs, no address: asserted by repr too
    # V.__add__(3) returns NotImplemented; ``V() + 3``, as a test writes it, raises
    assert (refused.kind, refused.type) == ("raise", "TypeError")
    # ``v[0] = 7`` and ``del v[0]`` run as statements: None, and the state they leave
    assert (stored.kind, stored.repr, stored.after) == ("return", "None", (("x", "7"),))
    assert (out_of_range.kind, out_of_range.type) == ("raise", "IndexError")
    assert (deleted.repr, deleted.after) == ("None", (("x", "0"),))


BAGS = """\
class Bag:
    def __init__(self, name=None):
        self.name = name
        self.items = []

    def __eq__(self, other):
        return isinstance(other, Bag) and self.name == other.name

    def __iadd__(self, other):
        if self == other:
            self.items.append("merged")
            return self
        outer = Bag("outer")
        outer.items = [self.name, other]
        return outer
"""


def test_an_in_place_operator_is_a_statement_whose_name_follows_what_it_returns(
    tmp_path: Path,
) -> None:
    """junitparser's ``suite += other`` merges into ``suite`` when the two are equal, and
    otherwise gives a new object that ``suite`` then names: what the test reads after."""
    project, module = sample(tmp_path, "bags.py", BAGS)
    info = discover(project, module, python=PY, sandbox=Sandbox(project, LIMITS))
    (bag,) = info.classes
    assert "__iadd__" in {m.name for m in bag.methods}
    calls = [
        Call("Bag.__iadd__", ("Bag()",), init_args=()),
        Call("Bag.__iadd__", ("Bag('b')",), init_args=()),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    merged, nested = (r.outcome for r in results)
    assert (merged.kind, merged.repr) == ("return", "None")
    assert dict(merged.after) == {"items": "['merged']", "name": "None"}
    assert dict(nested.after)["name"] == "'outer'"


QUERIES = """\
class Q:
    def __init__(self, key):
        self.key = key

    def __call__(self, doc, default=False):
        return self.key in doc or default

    def __and__(self, other):
        return Both(self, other)

    def __invert__(self):
        return Not(self)


class Both(Q):
    def __init__(self, left, right):
        self.left, self.right = left, right

    def __call__(self, doc):
        return self.left(doc) and self.right(doc)


class Not(Q):
    def __init__(self, inner):
        self.inner = inner

    def __call__(self, doc):
        return not self.inner(doc)
"""


def test_calling_an_instance_and_bitwise_operators_run_as_a_test_writes_them(
    tmp_path: Path,
) -> None:
    project, module = sample(tmp_path, "queries.py", QUERIES)
    info = discover(project, module, python=PY, sandbox=Sandbox(project, LIMITS))
    (q,) = [c for c in info.classes if c.name == "Q"]
    assert {"__call__", "__and__", "__invert__"} <= {m.name for m in q.methods}
    calls = [
        Call("Q.__call__", ("{'a': 1}",), init_args=("'a'",)),
        Call("Q.__call__", ("{}",), (("default", "True"),), init_args=("'a'",)),
        Call("Q.__and__", ("Q('b')",), init_args=("'a'",)),
        Call("Q.__invert__", (), init_args=("'a'",)),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    called, defaulted, both, negated = (r.outcome for r in results)
    assert (called.kind, called.repr) == ("return", "True")
    assert (defaulted.kind, defaulted.repr) == ("return", "True")
    assert (both.kind, both.type, negated.type) == ("return", "Both", "Not")


STACK = """\
class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("empty")
        return self.items.pop()

    def __setitem__(self, index, value):
        self.items[index] = value
"""


def test_a_sequence_runs_its_steps_on_the_same_instance_first(tmp_path: Path) -> None:
    project, module = sample(tmp_path, "stack.py", STACK)
    empty = ("IndexError", "builtins")
    push = (Step("push", ("1",)), Step("push", ("2",)))
    calls = [
        Call("Stack.pop", init_args=(), before=push),
        Call("Stack.pop", init_args=(), before=(push[0], Step("__setitem__", ("0", "9")))),
        Call("Stack.pop", init_args=()),
        Call("Stack.pop", init_args=(), before=(Step("pop"),)),  # the step itself raises
        # ... as its test expects: the stack is still usable after
        Call("Stack.pop", init_args=(), before=(Step("pop", raises=empty), push[0])),
        Call("Stack.pop", init_args=(), before=(Step("pop", raises=("KeyError", "builtins")),)),
        Call("Stack.pop", init_args=(), before=(Step("push", ("3",), raises=empty),)),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    second, stored, fresh, broken, expected, other, returned = results
    assert (second.outcome.repr, second.outcome.after, second.deterministic) == (
        "2",
        (("items", "[1]"),),
        True,
    )
    assert stored.outcome.repr == "9"  # ``stack[0] = 9`` ran as a statement, on that stack
    assert (fresh.outcome.kind, fresh.outcome.type) == ("raise", "IndexError")
    assert (broken.outcome.kind, broken.outcome.message) == ("step_failed", "pop: IndexError")
    assert not broken.deterministic  # never asserted on
    assert (expected.outcome.repr, expected.deterministic) == ("1", True)
    assert (other.outcome.message, returned.outcome.message) == (
        "pop: IndexError",
        "push: returned",
    )
    # the steps' arcs are the call's: ``push`` ran, and ``pop`` took the non-empty way
    assert (-5, 6) in second.arcs and (9, 11) in second.arcs
    assert (-5, 6) not in fresh.arcs and (9, 10) in fresh.arcs


RECORDS = """\
class Record(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        del self[name]

    def __getstate__(self):
        return dict(self)

    def __setstate__(self, state):
        self.update(state)
        self["restored"] = True

    def __copy__(self):
        return Record(self, copied=True)

    @property
    def size(self):
        return len(self)


def load(text):
    key, _, value = text.partition("=")
    return Record({key: value})
"""


def test_attribute_syntax_round_trips_and_returned_instances_run_as_a_test_runs_them(
    tmp_path: Path,
) -> None:
    project, module = sample(tmp_path, "records.py", RECORDS)
    stored = Step("__setattr__", ("'a'", "1"))
    calls = [
        Call("Record.__getattr__", ("'a'",), init_args=(), before=(stored,)),
        Call("Record.__getattr__", ("'missing'",), init_args=()),
        Call("Record.__delattr__", ("'a'",), init_args=(), before=(stored,)),
        Call("Record.__getstate__", init_args=("{'a': 1}",)),
        Call("Record.__copy__", init_args=("{'a': 1}",)),
        Call("Record.size", attribute=True, via="load('k=v')"),
        Call("Record.__getattr__", ("'k'",), via="load('k=v')"),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    read, missing, deleted, pickled, copied, size, returned = (r.outcome for r in results)
    assert (read.kind, read.repr) == ("return", "1")  # ``record.a = 1`` then ``record.a``
    assert (missing.kind, missing.type, missing.message) == ("raise", "AttributeError", "missing")
    assert (deleted.kind, deleted.repr) == ("return", "None")
    assert pickled.repr == "{'a': 1, 'restored': True}"  # __getstate__, then __setstate__
    assert copied.repr == "{'a': 1, 'copied': True}"
    assert (size.repr, returned.repr) == ("1", "'v'")  # on what ``load('k=v')`` returned
    assert all(r.deterministic for r in results)
    assert (-24, 26) in results[5].arcs  # the property ran, traced


def test_an_attribute_set_is_read_back_when_the_instance_keeps_it_elsewhere(
    tmp_path: Path,
) -> None:
    """``record.a = 1`` stores an item, not an attribute: ``vars(record)`` is empty, so
    only reading ``record.a`` back tells what the statement did."""
    project, module = sample(tmp_path, "records.py", RECORDS)
    calls = [
        Call("Record.__setattr__", ("'a'", "1"), init_args=()),
        Call("Record.__setattr__", ("'b'", "Record()"), init_args=()),  # not a literal
        Call("Record.__setattr__", ("'_c'", "1"), init_args=()),  # private
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    stored, an_object, private = (r.outcome for r in results)
    assert (stored.kind, stored.after) == ("return", (("a", "1"),))
    assert an_object.after == () and private.after == ()


SLOTS = """\
class Slots:
    def __init__(self):
        self._items = [None, None]

    def __setitem__(self, index, value):
        self._items[index] = value

    def __getitem__(self, index):
        return self._items[index]
"""


def test_an_item_set_is_read_back_by_its_key(tmp_path: Path) -> None:
    """``slots[0] = 5`` changes no attribute: only ``slots[0]`` read back tells what the
    statement did (svg.path's ``path[0] = None`` was a test asserting nothing)."""
    project, module = sample(tmp_path, "slots.py", SLOTS)
    calls = [
        Call("Slots.__setitem__", ("0", "5"), init_args=()),
        Call("Slots.__setitem__", ("1", "Slots()"), init_args=()),  # not a literal
        Call("Slots.__setitem__", ("slice(0, 1)", "[7]"), init_args=()),  # a slice
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    stored, an_object, sliced = (r.outcome for r in results)
    assert (stored.kind, stored.after) == ("return", (("[0]", "5"),))
    assert an_object.after == () and sliced.after == ()


GENERATORS = """\
import itertools


def naturals(start):
    yield from itertools.count(start)


def pairs(items):
    if not items:
        raise ValueError("no items")
    for i in range(0, len(items), 2):
        if i + 1 == len(items):
            raise ValueError("odd")
        yield items[i], items[i + 1]
"""


def test_an_endless_generator_is_taken_up_to_the_cap_and_one_raising_late_raises(
    tmp_path: Path,
) -> None:
    project, module = sample(tmp_path, "gens.py", GENERATORS)
    calls = [
        Call("naturals", ("5",), consume=True),
        Call("pairs", ("[1, 2, 3]",), consume=True),  # raises at its second item
        Call("pairs", ("[1, 2]",), consume=True),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    endless, odd, even = (r.outcome for r in results)
    assert endless.taken == 1000 and endless.repr.startswith("[5, 6, 7,")
    assert (odd.kind, odd.type, odd.message) == ("raise", "ValueError", "odd")
    assert (even.repr, even.taken) == ("[(1, 2)]", 0)  # it ended: all of it


TABLES = """\
class Table:
    def __init__(self, rows=None):
        self._rows = dict(rows or {})

    def __setitem__(self, key, value):
        self._rows[key] = value

    def __getitem__(self, key):
        return self._rows[key]

    def __repr__(self):
        return f"Table({self._rows!r})"


class Bag:
    def __init__(self):
        self._items = set()

    def add(self, item):
        self._items.add(item)

    def __repr__(self):
        return f"Bag({self._items!r})"
"""


def test_what_a_call_changed_in_an_object_is_seen_through_its_repr(tmp_path: Path) -> None:
    """A mapping keeping its rows in a private attribute has no public state: its repr
    shows what ``t["a"] = 1`` did (and ``t["a"]`` read back). A read leaves the repr as it was, and a set's repr,
    whose order the two runs' hash seeds may change, is not kept unless they agree."""
    project, module = sample(tmp_path, "tables.py", TABLES)
    calls = [
        Call("Table.__setitem__", ("'a'", "1"), init_args=()),
        Call("Table.__getitem__", ("'k'",), init_args=("{'k': 2}",)),
        Call("Bag.add", ("'x'",), init_args=()),
        Call("Bag.add", ("'y'",), init_args=(), before=(Step("add", ("'x'",)),)),
    ]
    results = run_calls(project, module, calls, python=PY, sandbox=Sandbox(project, LIMITS))
    stored, read, added, two = (r.outcome for r in results)
    assert (stored.after, stored.after_repr) == ((("['a']", "1"),), "Table({'a': 1})")
    assert (read.repr, read.after_repr) == ("2", "")
    assert added.after_repr == "Bag({'x'})"  # one item: the same in every hash order
    assert two.after_repr == ""  # two strings: their order is the hash seed's
    assert all(r.deterministic for r in results)


LOCKS = """\
import os


class Lock:
    def __init__(self, path):
        self.path = path

    def acquire(self):
        try:
            handle = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return "busy"
        os.close(handle)
        return "mine"


def reads(path):
    with open(path) as handle:
        return handle.read()


def save(name, data):
    from io import FileIO  # as PyPDF2's merger writes, never through open

    with FileIO(name, "wb") as out:
        return out.write(data)
"""


def test_a_call_that_writes_where_it_runs_runs_in_a_directory_of_its_own(tmp_path: Path) -> None:
    """filelock's lock files: run in the project, the first run's lock would make the
    second run (side by side) and every later call find it taken, and the user's project
    would keep it. The call runs again in an empty directory, as its test will, and leaves
    nothing; a call that only reads the project's files runs there, as before."""
    project, module = sample(tmp_path, "locks.py", LOCKS)
    (project / "data.txt").write_text("kept", encoding="utf-8")
    calls = [
        Call("Lock.acquire", init_args=("'a.lock'",)),
        Call("Lock.acquire", init_args=("'a.lock'",), before=(Step("acquire"),)),
        Call("reads", ("'data.txt'",)),
        Call("save", ("'out.pdf'", "b'%PDF'")),
    ]
    box = Sandbox(project, LIMITS)
    first, again, read, saved = run_calls(project, module, calls, python=PY, sandbox=box)
    found = [(r.outcome.repr, r.deterministic, r.call.workdir) for r in (first, again, read, saved)]
    assert found == [
        ("'mine'", True, True),
        ("'busy'", True, True),
        ("'kept'", True, False),
        ("4", True, True),
    ]
    assert sorted(p.name for p in project.iterdir()) == ["data.txt", "locks.py"]
    mutant = LOCKS.replace('return "mine"', 'return "ours"')
    found = run_against_mutants(
        project, module, [first.call], [("m", mutant, [0])], python=PY, sandbox=box
    )
    assert found["m"][0].repr == "'ours'"
    assert sorted(p.name for p in project.iterdir()) == ["data.txt", "locks.py"]


HOSTS = """\
import os


class UnableToWrite(Exception):
    pass


class Hosts:
    def __init__(self, path="/etc/tddforge-sample-hosts"):
        self.path = path

    def write(self, entries):
        try:
            with open(self.path, "w") as out:
                out.write("\\n".join(entries))
        except OSError:
            raise UnableToWrite(self.path)
        return len(entries)

    def write_fd(self, entries):
        try:
            handle = os.open(self.path, os.O_WRONLY | os.O_CREAT)
        except OSError:
            raise UnableToWrite(self.path)
        os.close(handle)
        return len(entries)
"""


def test_a_call_that_writes_a_file_of_the_machines_is_never_written(tmp_path: Path) -> None:
    """python-hosts' ``Hosts().write()`` writes ``/etc/hosts``: the sandbox refuses, the
    module raises its own error, and a test asserting that error overwrote the file when
    the suite ran as root. Such a call is not deterministic (what it does depends on
    who runs it, where); a write in the directory it runs in, or below the temporary
    directory, is the call's own."""
    project, module = sample(tmp_path, "hosts.py", HOSTS)
    calls = [
        Call("Hosts.write", ("['127.0.0.1 a']",), init_args=()),
        Call("Hosts.write_fd", ("['127.0.0.1 a']",), init_args=()),
        Call("Hosts.write", ("['127.0.0.1 a']",), init_args=("'hosts.txt'",)),
        Call("Hosts.write", ("['127.0.0.1 a']",), init_args=("'/tmp/hosts.txt'",)),
    ]
    box = Sandbox(project, LIMITS)
    results = run_calls(project, module, calls, python=PY, sandbox=box)
    found = [(r.outcome.kind, r.deterministic, r.outside) for r in results]
    assert found == [
        ("raise", False, True),
        ("raise", False, True),
        ("return", True, False),
        ("return", True, False),
    ]
    assert not Path("/etc/tddforge-sample-hosts").exists()


REMOVER = """\
import os
import shutil


def remove(path, recursive=False):
    if recursive:
        shutil.rmtree(path)
    else:
        os.remove(path)
    return "removed"
"""


def test_a_call_cannot_remove_or_change_the_projects_own_files(tmp_path: Path) -> None:
    """fsspec's ``LocalFileSystem().rm("fsspec", recursive=True)``, given the package's
    own name, removed the package it was testing, and ``cover`` ended in a traceback.
    The project's files are read-only to the calls: the removal is refused, a refusal is
    no behaviour to assert, and everything is still there; a file the call made itself
    in the project's directory can still be removed (it runs in a directory of its own)."""
    project, module = sample(tmp_path, "remover.py", REMOVER)
    (project / "pkg").mkdir()
    (project / "pkg" / "data.txt").write_text("kept", encoding="utf-8")
    calls = [
        Call("remove", ("'pkg'",), (("recursive", "True"),)),
        Call("remove", ("'remover.py'",)),
        Call("remove", ("'pkg/data.txt'",)),
    ]
    box = Sandbox(project, LIMITS)
    if box.backend not in READ_ONLY_ROOT:
        pytest.skip(f"the {box.backend} backend cannot keep paths read-only")
    results = run_calls(project, module, calls, python=PY, sandbox=box)
    assert [r.outcome.kind for r in results] == ["raise"] * 3
    assert all(r.outcome.denied or r.call.workdir for r in results), results
    assert sorted(p.name for p in project.iterdir()) == ["pkg", "remover.py"]
    assert (project / "pkg" / "data.txt").read_text(encoding="utf-8") == "kept"
    assert (project / "remover.py").read_text(encoding="utf-8") == REMOVER


CLOCKED = """\
import time
from time import time as now


def year():
    return time.strftime("%Y")


def stamp():
    return int(now()) // 3600


def waited(limit):
    start = time.time()
    return time.time() - start > limit
"""


def test_the_second_runs_later_clock_tells_a_value_of_the_moment_from_a_duration(
    tmp_path: Path,
) -> None:
    """Both runs fall in the same year and hour: only the second run's later clock
    (``target/clock.py``) shows that those values hold now only; a duration does not
    change with it, and is asserted."""
    project, module = sample(tmp_path, "clocked.py", CLOCKED)
    calls = [Call("year"), Call("stamp"), Call("waited", ("5",))]
    box = Sandbox(project, LIMITS)
    results = run_calls(project, module, calls, python=PY, sandbox=box)
    assert [(r.deterministic, r.outcome.repr, r.outcome.varies) for r in results] == [
        (True, "", True),  # a str each time: its type
        (True, "", True),
        (True, "False", False),
    ]
