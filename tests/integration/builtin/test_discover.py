"""Discovery for real: the probe imports sample modules under a real interpreter in the sandbox."""

from __future__ import annotations

import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from tddforge.builtin.discover import CallableInfo, ModuleInfo, discover
from tddforge.errors import InputError
from tddforge.sandbox import Limits, Sandbox

pytestmark = pytest.mark.integration

LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=20)

SHAPES = '''\
"""Shapes and helpers.

>>> area(2, 3)
6
"""
from __future__ import annotations

import re
from os.path import join

PATTERN = re.compile(r"^[a-z]+$")


def area(width: int, height: int = 1) -> int:
    """Width times height.

    >>> area(4)
    4
    """
    return width * height


def label(name, *parts, sep: str = "-", flags=re.I, **extra) -> str:
    return sep.join([name, *parts])


def only_pos(a, /, b, *, c=None):
    return (a, b, c)


async def fetch(url: str) -> bytes:
    return b""


def count(n: int):
    yield from range(n)


def _private():
    return 1


class Box:
    """A box."""

    kind = "box"

    def __init__(self, size: float, tags: list[str] | None = None, limits=(1, 2)) -> None:
        self.size = size

    def grow(self, by: float = 1.0) -> float:
        """Grow it."""
        return self.size + by

    @staticmethod
    def unit() -> Box:
        return Box(1.0)

    @classmethod
    def of(cls, size: float) -> Box:
        return cls(size)

    @property
    def double(self) -> float:
        return self.size * 2

    def _hidden(self):
        return None


class Plain:
    pass


class Oops(ValueError):
    pass
'''


def project_with(tmp_path: Path, files: dict[str, str]) -> Path:
    project = tmp_path / "proj"
    for rel, text in files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return project


def run_discover(
    project: Path, module: str, python: str = sys.executable, timeout: float = 15.0
) -> ModuleInfo:
    box = Sandbox(project, LIMITS)
    return discover(project, project / module, python=Path(python), sandbox=box, timeout=timeout)


def by_name(info: ModuleInfo) -> dict[str, CallableInfo]:
    return {c.qualname: c for c in info.callables()}


def test_flat_module_functions_classes_and_methods(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"shapes.py": SHAPES})
    info = run_discover(project, "shapes.py")
    assert info.name == "shapes"
    assert [f.name for f in info.functions] == ["area", "count", "fetch", "label", "only_pos"]
    assert [c.name for c in info.classes] == ["Box", "Oops", "Plain"]
    found = by_name(info)
    assert set(found) == {
        "area",
        "count",
        "fetch",
        "label",
        "only_pos",
        "Box",
        "Box.grow",
        "Box.unit",
        "Box.of",
    }
    assert [ex.source for ex in info.doctests] == ["area(2, 3)\n"]
    assert found["fetch"].is_async and found["count"].is_generator
    assert not found["area"].is_async and not found["area"].is_generator
    assert not list(project.rglob("__pycache__"))  # importing wrote no bytecode into the project
    assert not (project / ".tddforge").exists()  # the probe's files are removed, and its dirs


def test_parameters_kinds_defaults_and_hints(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"shapes.py": SHAPES})
    found = by_name(run_discover(project, "shapes.py"))
    area = found["area"]
    assert [(p.name, p.annotation, p.default) for p in area.parameters] == [
        ("width", "int", None),
        ("height", "int", "1"),
    ]
    assert area.returns == "int"
    assert area.docstring is not None and area.docstring.startswith("Width times height.")
    assert [(d.source, d.want) for d in area.doctests] == [("area(4)\n", "4\n")]
    label = {p.name: p for p in found["label"].parameters}
    assert [p.kind for p in label.values()] == [
        "positional_or_keyword",
        "var_positional",
        "keyword_only",
        "keyword_only",
        "var_keyword",
    ]
    assert label["sep"].default == "'-'" and label["sep"].default_is_literal
    # re.I is a default, but not a literal: it is known to exist, not written out
    assert label["flags"].has_default and label["flags"].default is None
    assert not label["flags"].default_is_literal
    kinds = [p.kind for p in found["only_pos"].parameters]
    assert kinds == ["positional_only", "positional_or_keyword", "keyword_only"]


def test_class_constructor_methods_and_properties(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"shapes.py": SHAPES})
    info = run_discover(project, "shapes.py")
    box = next(c for c in info.classes if c.name == "Box")
    assert box.constructor is not None and box.constructor.kind == "constructor"
    ctor = [(p.name, p.annotation, p.default) for p in box.constructor.parameters]
    assert ctor == [
        ("size", "float", None),
        ("tags", "list[str] | None", "None"),
        ("limits", None, "(1, 2)"),
    ]
    assert [(m.name, m.kind) for m in box.methods] == [
        ("grow", "method"),
        ("unit", "staticmethod"),
        ("of", "classmethod"),
    ]
    grow = box.methods[0]
    assert [p.name for p in grow.parameters] == ["by"]  # bound: no self
    assert box.properties == ("double",)
    assert grow.lines is not None and grow.lines[0] < grow.lines[1]
    classes = {c.name: c for c in info.classes}
    assert classes["Plain"].constructor is None  # object's own constructor: nothing to call with
    assert classes["Oops"].is_exception and not classes["Box"].is_exception


def test_package_module_and_all(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/mod.py": """
            from .helpers import helper
            __all__ = ["visible", "helper"]

            def visible(x):
                return helper(x)

            def not_listed(x):
                return x

            def _private(x):
                return x
            """,
        "pkg/helpers.py": "def helper(x):\n    return x\n",
    }
    info = run_discover(project_with(tmp_path, files), "pkg/mod.py")
    assert info.name == "pkg.mod"
    # __all__'s names first, then the module's other unprefixed ones; a re-exported name
    # defined elsewhere is not this module's
    assert [f.name for f in info.functions] == ["visible", "not_listed"]


def test_a_class_of_the_package_a_hint_names_is_described_by_its_constructor(
    tmp_path: Path,
) -> None:
    # pyrate-limiter's ``Limiter(*rates: RequestRate)``: ``RequestRate`` comes from a
    # sibling module, and nothing built one, so the limiter was never made
    files = {
        "pkg/__init__.py": "",
        "pkg/rate.py": """
            import enum

            class Rate:
                def __init__(self, limit: int, interval: int):
                    self.limit = limit

                def describe(self):
                    return str(self.limit)

            class Unused:
                pass

            class Kind(enum.Enum):
                FIXED = 1

            class Full(Exception):
                pass
            """,
        "pkg/limiter.py": """
            from collections import OrderedDict
            from .rate import Full, Kind, Rate, Unused

            class Limiter:
                def __init__(self, *rates: Rate, kind: Kind = Kind.FIXED, table: OrderedDict = None):
                    self.rates = rates

                def check(self, error: Full = None):
                    return len(self.rates)
            """,
    }
    info = run_discover(project_with(tmp_path, files), "pkg/limiter.py")
    assert [c.name for c in info.classes] == ["Limiter"]
    # only the package's plain class a hint names: not the unnamed one, the enum, the
    # exception or the stdlib's class
    assert [c.name for c in info.imported] == ["Rate"]
    (rate,) = info.imported
    assert rate.constructor is not None
    assert [p.name for p in rate.constructor.parameters] == ["limit", "interval"]
    assert rate.methods == () and rate.properties == ()


def test_the_implementations_of_a_class_a_hint_names_are_described(tmp_path: Path) -> None:
    # text2num's ``WordStreamValueParser(lang: Language)``: ``Language`` only declares the
    # tables its languages set, so ``Language()`` builds and every parser method fails on it
    files = {
        "pkg/__init__.py": "",
        "pkg/lang/__init__.py": """
            from .base import Language, Sealed
            from .english import English
            from .french import French
            from .german import German
            """,
        "pkg/lang/base.py": """
            import abc

            class Language:
                WORDS: dict

                def ordinal(self, word):
                    return NotImplemented

            class _Draft(Language):
                WORDS = {}

            class Partial(Language, abc.ABC):
                @abc.abstractmethod
                def extra(self): ...

            class Sealed(abc.ABC):
                @abc.abstractmethod
                def seal(self): ...

            class Wax(Sealed):
                def seal(self):
                    return 1
            """,
        "pkg/lang/english.py": """
            from .base import Language

            class English(Language):
                WORDS = {"one": 1}
            """,
        "pkg/lang/french.py": """
            from .base import Language

            class French(Language):
                WORDS = {"un": 1}

            class Quebec(French):
                pass
            """,
        "pkg/lang/german.py": """
            from .base import Language

            class German(Language):
                WORDS = {"eins": 1}

                def __init__(self, strict: bool):
                    self.strict = strict
            """,
        "pkg/parsers.py": """
            from .lang import Language, Sealed

            class Parser:
                def __init__(self, lang: Language):
                    self.lang = lang

                def seal(self, with_: Sealed):
                    return with_.seal()

            class GermanParser(Parser):
                pass
            """,
    }
    info = run_discover(project_with(tmp_path, files), "pkg/parsers.py")
    (language,) = [c for c in info.imported if c.name == "Language"]
    assert language.interface
    paths = [i.path for i in language.implementations]
    # the one the module's source names first, then the nearest; three at most, public,
    # concrete, each named from where the package offers it
    assert paths == ["pkg.lang.German", "pkg.lang.English", "pkg.lang.French"]
    german = language.implementations[0]
    assert german.constructor is not None
    assert [p.name for p in german.constructor.parameters] == ["strict"]
    # an abstract class is described when it has an implementation to build instead
    (sealed,) = [c for c in info.imported if c.name == "Sealed"]
    assert sealed.is_abstract and [i.path for i in sealed.implementations] == ["pkg.lang.base.Wax"]
    assert not sealed.interface


def test_the_modules_own_abstract_class_is_described_with_its_implementations(
    tmp_path: Path,
) -> None:
    # pykka's ``Actor``: abstract, no hint names it, built only as ``ThreadingActor`` of
    # another module of the package
    files = {
        "pkg/__init__.py": "from .actor import Actor\nfrom .threads import ThreadingActor\n",
        "pkg/actor.py": """
            import abc

            class Actor(abc.ABC):
                @abc.abstractmethod
                def _start_loop(self): ...

                def on_receive(self, message):
                    return message
            """,
        "pkg/threads.py": """
            from .actor import Actor

            class ThreadingActor(Actor):
                def _start_loop(self):
                    return None
            """,
    }
    info = run_discover(project_with(tmp_path, files), "pkg/actor.py")
    (actor,) = info.classes
    assert actor.is_abstract
    assert [i.path for i in actor.implementations] == ["pkg.ThreadingActor"]


def test_objects_a_package_says_live_elsewhere_are_still_the_modules(tmp_path: Path) -> None:
    # cbor2 5.9.0's package sets ``__module__ = "cbor2"`` on what it re-exports from
    # ``cbor2._decoder``: the decoder module then seemed to define nothing, and cover wrote
    # no test at all
    files = {
        "pkg/__init__.py": """
            from ._impl import Decoder, loads
            from .helpers import helper

            for _value in (Decoder, loads):
                _value.__module__ = __name__
            """,
        "pkg/_impl.py": """
            from .helpers import helper

            class Decoder:
                def decode(self, data):
                    return data

            def loads(data):
                return Decoder().decode(data)
            """,
        "pkg/helpers.py": "def helper(x):\n    return x\n",
    }
    info = run_discover(project_with(tmp_path, files), "pkg/_impl.py")
    assert [f.name for f in info.functions] == ["loads"]  # not the imported helper
    assert [c.name for c in info.classes] == ["Decoder"]


def test_a_module_with_only_private_names_offers_those(tmp_path: Path) -> None:
    # click 8.5's parser.py: ``_OptionParser``, ``_split_opt``, nothing public
    files = {
        "cli/__init__.py": "",
        "cli/parser.py": """
            from os.path import join as _join

            class _Parser:
                def parse(self, args):
                    return list(args)

            def _split(opt):
                return opt[:1], opt[1:]

            def __getattr__(name):
                raise AttributeError(name)
            """,
    }
    info = run_discover(project_with(tmp_path, files), "cli/parser.py")
    assert [f.name for f in info.functions] == ["_split"]  # not the imported _join, no dunder
    assert [c.name for c in info.classes] == ["_Parser"]
    assert [m.name for m in info.classes[0].methods] == ["parse"]


def test_src_layout(tmp_path: Path) -> None:
    files = {
        "src/lib/__init__.py": "from .core import double\n",
        "src/lib/core.py": "def double(x: int) -> int:\n    return 2 * x\n",
    }
    info = run_discover(project_with(tmp_path, files), "src/lib/core.py")
    assert info.name == "lib.core"
    assert [f.qualname for f in info.functions] == ["double"]


@pytest.mark.parametrize(
    "python", ["/usr/bin/python3", *sorted(Path.home().glob(".pyenv/versions/3.8*/bin/python"))]
)
def test_probe_needs_only_the_stdlib_of_the_target_interpreter(
    tmp_path: Path, python: object
) -> None:
    if not Path(str(python)).exists():
        pytest.skip(f"{python} is not installed")
    project = project_with(tmp_path, {"shapes.py": SHAPES})
    info = run_discover(project, "shapes.py", python=str(python))
    assert "Box.grow" in by_name(info)


def failing(tmp_path: Path, source: str, timeout: float = 15.0) -> str:
    project = project_with(tmp_path, {"target.py": source})
    with pytest.raises(InputError) as caught:
        run_discover(project, "target.py", timeout=timeout)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_syntax_error_is_one_input_error_line(tmp_path: Path) -> None:
    message = failing(tmp_path, "def broken(:\n    pass\n")
    assert message.startswith("cannot import target safely (target.py, line 1): SyntaxError")


def test_missing_dependency(tmp_path: Path) -> None:
    message = failing(tmp_path, "import numpy_not_installed_anywhere\n")
    assert "ModuleNotFoundError" in message and "numpy_not_installed_anywhere" in message
    assert "dependency is missing" in message


@pytest.mark.needs_sandbox("no_network")
def test_network_access_at_import_time(tmp_path: Path) -> None:
    source = """
        import socket
        socket.create_connection(("192.0.2.1", 80), timeout=5)
        """
    message = failing(tmp_path, source)
    assert "(target.py, line 3)" in message
    assert "network" in message


@pytest.mark.needs_sandbox("read_only_root")
def test_writing_outside_the_work_dir_at_import_time(tmp_path: Path) -> None:
    outside = Path("/var/tmp") / f"tddforge-discovery-{uuid.uuid4().hex}"
    try:
        message = failing(tmp_path, f"open({str(outside)!r}, 'w').write('x')\n")
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)
    assert "OSError" in message and "(target.py, line 1)" in message


def test_exit_at_import_time(tmp_path: Path) -> None:
    message = failing(tmp_path, "import sys\nsys.exit(3)\n")
    assert "SystemExit: 3" in message and "exits at import time" in message


def test_hanging_import_times_out(tmp_path: Path) -> None:
    message = failing(tmp_path, "while True:\n    pass\n", timeout=1.5)
    assert message == "cannot import target: importing it took longer than 1.5 s"


def test_module_shadowed_by_another_on_the_path(tmp_path: Path) -> None:
    # ``json`` resolves to the stdlib first: describing it would describe the wrong code
    project = project_with(tmp_path, {"src/json.py": "def f():\n    return 1\n"})
    (project / "src" / "mark").mkdir()  # a src/ layout
    message = failing_at(project, "src/json.py")
    assert "importing json loaded" in message


def failing_at(project: Path, module: str) -> str:
    with pytest.raises(InputError) as caught:
        run_discover(project, module)
    return str(caught.value)


def test_a_class_offers_what_it_inherits_from_the_module_not_from_the_builtins(
    tmp_path: Path,
) -> None:
    source = textwrap.dedent(
        """\
        class Base:
            def add(self, x):
                self.x = x

            def __eq__(self, other):
                return self.x == other.x

            @property
            def twice(self):
                return self.x * 2

        class Sub(Base, dict):
            def add(self, x):
                super().add(x + 1)

            def __setattr__(self, name, value):
                self[name] = value
        """
    )
    info = run_discover(project_with(tmp_path, {"kin.py": source}), "kin.py")
    sub = next(c for c in info.classes if c.name == "Sub")
    assert [m.qualname for m in sub.methods] == ["Sub.add", "Sub.__setattr__", "Sub.__eq__"]
    assert sub.methods[0].lines == (13, 14)  # its own ``add``, not the base's
    assert sub.properties == ("twice",)
