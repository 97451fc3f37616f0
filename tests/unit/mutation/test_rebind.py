"""Switching on a module-level data mutant in a live, collected process (target.rebind)."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from tddforge.mutation.import_calls import bare_calls, calls_into
from tddforge.target.protocol import Replay
from tddforge.target.rebind import data_lines, drifted_targets, rebind

SOURCE = """\
import re
__all__ = ["plural"]

RULES = [("ox", "oxen"), ("mouse", "mice")]
LIMIT = 3
WORDS = {"a": 1}
PATTERN = re.compile(r"^[a-z]+$")


def plural(word, limit=LIMIT):
    for single, many in RULES:
        if word == single:
            return many
    return word + "s" * min(limit, 1)


class Box:
    SIZE = 2

    def size(self):
        return self.SIZE * LIMIT


_register = RULES.append(("child", "children"))


def _irregular(single, many):
    RULES.insert(0, (single, many))


_irregular("person", "people")
"""


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    monkeypatch.chdir(tmp_path)  # the worker runs in the project: its modules are rebound
    (tmp_path / "rebind_target.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "rebind_user.py").write_text("from rebind_target import LIMIT, RULES, plural\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("rebind_target")
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("rebind_target", "rebind_user"):
            sys.modules.pop(name, None)


def test_data_lines_are_simple_top_level_statements_with_their_readers() -> None:
    found = data_lines(SOURCE)
    # not __all__ (line 2): star imports used it; _irregular's lines: it only runs at import
    assert set(found) == {4, 5, 6, 7, 24, 27, 28, 31}
    plural_body, size_body = {10, 11, 12, 13, 14}, {20, 21}
    irregular_body = {27, 28}
    assert found[4] == plural_body | irregular_body  # RULES: read by plural, filled by _irregular
    assert found[5] == plural_body | size_body  # LIMIT: plural's default and Box.size
    assert found[7] == set()  # PATTERN: nobody reads it
    assert found[24] == plural_body | irregular_body  # the call appends to RULES
    assert found[27] == found[28] == found[31] == plural_body  # what _irregular fills


@pytest.mark.parametrize(
    ("statement", "rebound"),
    [
        ("RULES.append(1)", True),  # a method of the module's own data
        ("WORDS['a'].update(b=2)", True),  # of an item of it (toolz's signature tables)
        ("re.cache['x'].clear()", False),
        ("_irregular('a', 'b')", True),  # the module's own function
        ("functoolz._sigs.create_signature_registry()", False),  # done elsewhere: fresh
        ("register(RULES)", False),  # an imported function
        ("re.purge()", False),
    ],
)
def test_bare_calls_of_other_modules_are_not_data(statement: str, rebound: bool) -> None:
    line = SOURCE.count("\n") + 1
    assert (line in data_lines(SOURCE + statement + "\n")) is rebound


def test_rebind_switches_data_on_and_keeps_identities(target: types.ModuleType) -> None:
    user = importlib.import_module("rebind_user")
    plural, box, rules = target.plural, target.Box, target.RULES
    assert plural("mouse") == "mice" and plural("child") == "children"
    mutated = SOURCE.replace('("mouse", "mice")', '("mouse", "")').replace("LIMIT = 3", "LIMIT = 0")
    rebind(mutated, target.__file__, SOURCE)  # its data is what its source makes: no drift
    assert target.plural is plural and target.Box is box and target.RULES is rules
    assert plural("mouse") == "" and user.plural("mouse") == ""  # held references see it
    assert user.RULES is rules and rules[-1] == ("child", "children") and len(rules) == 4
    assert plural("cat") == "cat"  # the default re-evaluated: limit=LIMIT is now 0
    assert user.LIMIT == 0 and box().size() == 0  # rebound where it was imported by name


def test_rebind_switches_on_a_function_the_module_calls_while_importing(
    target: types.ModuleType,
) -> None:
    irregular, rules = target._irregular, target.RULES
    assert rules[0] == ("person", "people") and target.plural("person") == "people"
    rebind(SOURCE.replace("RULES.insert(0, ", "RULES.insert(1, "), target.__file__)
    assert target._irregular is irregular and target.RULES is rules  # identities kept
    assert rules[:2] == [("ox", "oxen"), ("person", "people")]  # filled by the mutated body
    irregular("cat", "kittens")  # and later calls run it too
    assert rules[1] == ("cat", "kittens")


def test_rebind_needs_the_module_imported(tmp_path: Path) -> None:
    with pytest.raises(LookupError):
        rebind(SOURCE, str(tmp_path / "never_imported.py"))


PACKAGE = "from .sub import X\nfrom . import sub as other\nVALUE = X + 1\ndel sub\n"


def test_a_package_that_deletes_its_submodule_runs_again(tmp_path: Path) -> None:
    """Importing ``pkg.sub`` binds ``sub`` in the package the first time only; a package
    ending with ``del sub`` (toolz.curried) still runs again, and is not taken for
    drifted, as the submodule is bound back first."""
    package = tmp_path / "delpkg"
    package.mkdir()
    (package / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    (package / "sub.py").write_text("X = 1\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("delpkg")
        target = str(package / "__init__.py")
        assert drifted_targets({target: PACKAGE}) == []
        rebind(PACKAGE.replace("X + 1", "X + 2"), target, PACKAGE)
        assert module.VALUE == 3 and "sub" not in vars(module)
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("delpkg", "delpkg.sub"):
            sys.modules.pop(name, None)


GUARDED = """\
LIMIT = 3


def make(n):
    return lambda: n


class Sized:
    CAP = LIMIT * 2

    @property
    def cap(self):
        return self.CAP
"""
CLOSURE = GUARDED + "ADDER = make(LIMIT)\n"
INSTANCE = GUARDED + "DEFAULT = Sized()\n"


@pytest.mark.parametrize(
    ("original", "mutated", "refused"),
    [
        (GUARDED, GUARDED.replace("LIMIT = 3", "LIMIT = 4"), "class Sized changed: CAP"),
        (CLOSURE, CLOSURE.replace("make(LIMIT)", "make(LIMIT + 1)"), "<lambda> is a closure"),
        (INSTANCE, INSTANCE.replace("Sized()", "Sized()\nDEFAULT.n = 1"), "DEFAULT is an instance"),
        (INSTANCE, INSTANCE.replace("LIMIT = 3", "LIMIT = 3  # same"), None),  # made again equal
        (GUARDED, GUARDED + "DEFAULT = Sized()\n", None),  # a new name: nothing held the old one
    ],
)
def test_rebind_refuses_what_it_cannot_switch_on_faithfully(
    tmp_path: Path, original: str, mutated: str, refused: str | None
) -> None:
    (tmp_path / "guarded_target.py").write_text(original, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("guarded_target")
        if refused is None:
            rebind(mutated, module.__file__)
            assert module.Sized().cap == 6
        else:
            with pytest.raises(LookupError, match=refused):
                rebind(mutated, module.__file__)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("guarded_target", None)


HELD = """\
import datetime

SIZE = 3
ZERO = datetime.timedelta(0)


def make_marker(name):
    class Marker:
        def __init__(self):
            self.name = name

    return Marker()


class cached:
    def __init__(self, func):
        self.func = func

    def __get__(self, obj, owner=None):
        return self if obj is None else self.func(obj)


class Box(dict):
    @cached
    def side(self):
        return SIZE


class Holder:
    __slots__ = ("n", "offset")

    def __init__(self, n, offset=ZERO):
        self.n = n
        self.offset = offset


MISSING = make_marker("missing")
HOLDER = Holder(SIZE)
TABLE = Box(a=1)
INDEX = {"missing": MISSING}


def get(key, default=MISSING):
    return TABLE.get(key, default)
"""


@pytest.mark.parametrize(
    ("mutated", "refused"),
    [
        (HELD.replace("TABLE = Box(a=1)", "TABLE = Box(a=2)"), None),
        (HELD.replace("SIZE = 3", "SIZE = 4"), "HOLDER is an instance"),
        (HELD.replace('make_marker("missing")', 'make_marker("")'), "MISSING is an instance"),
        (HELD.replace("offset=ZERO", "offset=None"), "HOLDER is an instance"),  # its class
    ],
)
def test_the_modules_own_objects_made_again_equal_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutated: str, refused: str | None
) -> None:
    """Objects of the module's classes (a sentinel made by a function, a decorator's object
    in a class body, an instance with slots, a dict subclass) are what tests hold: when the
    mutated run makes them again equal they stay, and a dict subclass's items change in
    place; one made different cannot be switched on."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "held_target.py").write_text(HELD, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module = importlib.import_module("held_target")
        held = (module.MISSING, module.HOLDER, module.TABLE, module.Box, module.INDEX)
        if refused is not None:
            with pytest.raises(LookupError, match=refused):
                rebind(mutated, module.__file__, HELD)
            return
        rebind(mutated, module.__file__, HELD)
        now = (module.MISSING, module.HOLDER, module.TABLE, module.Box, module.INDEX)
        assert all(a is b for a, b in zip(held, now, strict=True))
        assert module.TABLE == {"a": 2} and module.TABLE.side == 3
        assert module.get("zz") is module.MISSING and module.INDEX["missing"] is module.MISSING
    finally:
        sys.modules.pop("held_target", None)


REGISTRY = """\
TABLE = {"abs": 1, "len": 2}
SIGNATURES = {}
NAME = "registry"
STAMP = None


def fill():
    for key, value in TABLE.items():
        SIGNATURES[key] = value
"""


@pytest.mark.parametrize(
    ("after_import", "drift"),
    [
        ("registry_target.fill()", "SIGNATURES changed after the module was imported"),
        ("registry_target.NAME = 'other'", "NAME changed"),
        ("registry_target.TABLE['x'] = 3", "TABLE changed"),
        ("registry_target.STAMP = None", None),
        ("registry_target.fill = print", None),  # a function replaced: not data
    ],
)
def test_rebind_refuses_data_changed_after_the_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after_import: str, drift: str | None
) -> None:
    """Like toolz: its __init__ fills _signatures.signatures from _signatures.module_info;
    running the module again would empty the registry, a fresh import would refill it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "registry_target.py").write_text(REGISTRY, encoding="utf-8")
    (tmp_path / "registry_user.py").write_text(f"import registry_target\n{after_import}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("registry_user")
        target = sys.modules["registry_target"]
        mutated = REGISTRY.replace('"abs": 1', '"abs": 0')
        if drift is None:
            rebind(mutated, target.__file__, REGISTRY)
            assert target.TABLE["abs"] == 0
        else:
            with pytest.raises(LookupError, match=drift):
                rebind(mutated, target.__file__, REGISTRY)
            assert target.TABLE["abs"] == 1  # nothing was switched on
    finally:
        for name in ("registry_target", "registry_user"):
            sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("after_import", "refused"),
    [
        ("registry_target.fill()", True),
        ("registry_target.TABLE['x'] = 3", True),
        ("registry_target.STAMP = None", False),
        ("pass", False),
    ],
)
def test_drift_is_checked_once_in_a_child_that_leaves_the_module_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after_import: str, refused: bool
) -> None:
    """The worker asks once per module, right after collection, instead of once per mutant;
    running the source again to compare must not change the live process."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "registry_target.py").write_text(REGISTRY, encoding="utf-8")
    (tmp_path / "registry_user.py").write_text(f"import registry_target\n{after_import}\n")
    (tmp_path / "never_imported.py").write_text("X = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("registry_user")
        target = sys.modules["registry_target"]
        filled = dict(target.SIGNATURES)
        path = str(target.__file__)
        absent = str(tmp_path / "never_imported.py")
        found = drifted_targets({path: REGISTRY, absent: "X = 1\n"})
        assert found == sorted([absent, *([path] if refused else [])])
        assert filled == target.SIGNATURES and target.NAME == "registry"  # left as it was
    finally:
        for name in ("registry_target", "registry_user"):
            sys.modules.pop(name, None)


DEFAULTS = """\
CACHE = {}
LIMIT = 2


def remember(key, value, cache=CACHE):
    cache[key] = value
    return len(cache) <= LIMIT
"""


def test_a_default_that_is_the_modules_container_stays_that_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in a fresh import, a default argument bound to the module's dict is the module's
    dict after a rebind, not a second dict the function writes to alone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "defaults_target.py").write_text(DEFAULTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        target = importlib.import_module("defaults_target")
        rebind(DEFAULTS.replace("LIMIT = 2", "LIMIT = 1"), str(target.__file__), DEFAULTS)
        assert target.remember.__defaults__[0] is target.CACHE
        assert target.remember("a", 1) is True
        assert target.CACHE == {"a": 1}  # what the function wrote is what the module holds
    finally:
        sys.modules.pop("defaults_target", None)


def _replays(user: Path, text: str) -> list[Replay]:
    """What the host finds in ``user`` for the registry module (``import_calls``)."""
    calls = {user.resolve(): bare_calls(text)}
    return calls_into(calls, Path("registry_target.py").resolve(), REGISTRY)


@pytest.mark.parametrize(
    ("after_import", "mutated", "expected"),
    [
        # the registry refilled from the mutated table, as a fresh import would
        ("registry_target.fill()", ('"abs": 1', '"abs": 0'), {"abs": 0, "len": 2}),
        # a mutant in the function the other file calls: the call runs the mutated body
        (
            "registry_target.fill()",
            ("SIGNATURES[key] = value", "SIGNATURES[key] = None"),
            {"abs": None, "len": None},
        ),
        # the called name is not the registry's function there: not run again
        ("fill = print\nfill()", ('"abs": 1', '"abs": 0'), {}),
    ],
)
def test_rebind_runs_again_the_calls_other_files_made_into_the_module(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    after_import: str,
    mutated: tuple[str, str],
    expected: dict[str, object],
) -> None:
    """toolz's __init__ fills _signatures.signatures with a bare call; with that call run
    again after the rebind, the module's data is what a fresh import makes of the mutant."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "registry_target.py").write_text(REGISTRY, encoding="utf-8")
    text = f"import registry_target\n{after_import}\n"
    (tmp_path / "registry_user.py").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("registry_user")
        target = sys.modules["registry_target"]
        signatures = target.SIGNATURES
        replays = _replays(tmp_path / "registry_user.py", text)
        assert [r["name"] for r in replays] == ["fill"]
        path = str(target.__file__)
        assert drifted_targets({path: REGISTRY}, {path: replays}) == []
        rebind(REGISTRY.replace(*mutated), path, REGISTRY, replays)
        assert target.SIGNATURES is signatures and signatures == expected
    finally:
        for name in ("registry_target", "registry_user"):
            sys.modules.pop(name, None)


def test_a_replayed_call_that_fails_is_the_mutant_breaking_the_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "registry_target.py").write_text(REGISTRY, encoding="utf-8")
    text = "import registry_target\nregistry_target.fill()\n"
    (tmp_path / "registry_user.py").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("registry_user")
        path = str(sys.modules["registry_target"].__file__)
        replays = _replays(tmp_path / "registry_user.py", text)
        broken = REGISTRY.replace("TABLE.items()", "TABLE.items(1)")
        with pytest.raises(TypeError):
            rebind(broken, path, REGISTRY, replays)
    finally:
        for name in ("registry_target", "registry_user"):
            sys.modules.pop(name, None)


def test_the_lines_of_a_function_another_file_calls_at_import_are_data() -> None:
    assert 7 not in data_lines(REGISTRY)  # fill's body: no line of the module calls it
    found = data_lines(REGISTRY, frozenset({"fill", "absent"}))
    assert found[7] == found[8] == set()  # nothing else in the module reads what it does
    assert 1 in found and 2 in found


@pytest.mark.parametrize(
    ("source", "user", "mutated", "refused"),
    [
        # a fresh import would fail where a test took Y from the module
        (
            "X = 1\nY = 2\nif X == 2:\n    del Y\n",
            "from gone_target import Y\n",
            ("X = 1", "X = 2"),
            "no longer binds Y",
        ),
        # the user took OrderedDict from collections: a fresh import leaves it alone
        (
            "from collections import OrderedDict\nOMD = OrderedDict\n",
            "from collections import OrderedDict as OMD\n",
            ("OMD = OrderedDict", "OMD = None"),
            "OMD is OrderedDict, held elsewhere too",
        ),
        ("X = 1\nY = 2\n", "from gone_target import Y\n", ("Y = 2", "Y = 3"), None),
    ],
)
def test_rebind_refuses_what_modules_holding_the_old_value_would_see_otherwise(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    user: str,
    mutated: tuple[str, str],
    refused: str | None,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gone_target.py").write_text(source, encoding="utf-8")
    (tmp_path / "gone_user.py").write_text(f"import gone_target\n{user}")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        holder = importlib.import_module("gone_user")
        module = sys.modules["gone_target"]
        if refused is None:
            rebind(source.replace(*mutated), module.__file__, source)
            assert holder.Y == 3
        else:
            with pytest.raises(LookupError, match=refused):
                rebind(source.replace(*mutated), module.__file__, source)
    finally:
        for name in ("gone_target", "gone_user"):
            sys.modules.pop(name, None)
