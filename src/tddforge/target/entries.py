"""Which entries of a module's dicts each test reads, and which entries a data mutant changes.

A mutant in a module's table (``SIGNATURES = {abs: ..., map: ...}``, a registry
filled at import) is switched on by ``rebind``, and every test that can reach the
table can see it: the static analysis cannot tell the entries apart, since which
entry a test reads is known only as it runs. A survivor there runs them all.

So, once per run, a child of the collector runs those tests with each of the
module's dicts replaced by a ``TracedDict`` (everywhere a reference to it is
held: module namespaces, defaults, cells), which notes the keys each test looks
up, whether it looked up a missing key, and whether it read the dict whole
(iterating it, its length, comparing it). If any test's outcome differs there,
nothing is narrowed.

A rebound mutant's child snapshots the module before ``rebind`` and compares it
after (``tddforge.target.sameness``). When the only differences are entries of
traced dicts, only the tests that read those entries (or a missing key, when
the mutant adds one, or the whole dict) can see the mutant; the others need not
run. Anything else changed, or not known: every test runs, as before.
"""

from __future__ import annotations

import gc
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Iterable

from .hosting import run_protocol
from .sameness import same

WHOLE = -1  # in a test's reads of a dict: it read the dict whole


@dataclass
class Reads:
    """What the running test read (dict name -> positions, ``WHOLE`` among them) and the
    dicts it looked a missing key up in."""

    current: dict[str, set[int]] = field(default_factory=dict)
    missed: set[str] = field(default_factory=set)

    def take(self) -> tuple[dict[str, list[int]], list[str]]:
        """What was read since the last ``take``; starts afresh."""
        found = {name: sorted(positions) for name, positions in self.current.items()}
        missed = sorted(self.missed)
        self.current, self.missed = {}, set()
        return found, missed


class _Note:
    """Where a traced dict notes what the running test reads."""

    def __init__(self, name: str, index: dict[Any, int], reads: Reads):
        self.name = name
        self.index = index  # key -> its position among the dict's keys when traced
        self.reads = reads

    def key(self, key: Any) -> None:
        position = self.index.get(key)
        if position is not None:
            self.reads.current.setdefault(self.name, set()).add(position)

    def miss(self) -> None:
        self.reads.missed.add(self.name)

    def whole(self) -> None:
        self.reads.current.setdefault(self.name, set()).add(WHOLE)


class TracedDict(dict):  # type: ignore[type-arg]
    """A dict that notes its reads (``_Note``); it pickles and copies as a plain dict.
    The methods that read it whole are added below (``_WHOLE_READS``)."""

    _note = _Note("", {}, Reads())  # one made otherwise than by ``trace_dicts``: kept by none

    def __getitem__(self, key: Any) -> Any:
        try:
            value = dict.__getitem__(self, key)
        except KeyError:
            self._note.miss()
            raise
        self._note.key(key)
        return value

    def __contains__(self, key: Any) -> bool:
        found = dict.__contains__(self, key)
        self._note.key(key) if found else self._note.miss()
        return found

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.__getitem__(self, key) if key in self else default

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return dict.__getitem__(self, key) if key in self else dict.setdefault(self, key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        key in self  # noqa: B015  (notes the read)
        return dict.pop(self, key, *default)

    __hash__ = None

    def copy(self) -> dict[Any, Any]:
        self._note.whole()
        return dict(dict.items(self))

    def __or__(self, other: Any) -> Any:
        return self.copy() | other

    def __ror__(self, other: Any) -> Any:
        return other | self.copy()

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (dict, (self.copy(),))

    def __reduce__(self) -> Any:
        return self.__reduce_ex__(2)


# dict's methods that read the whole dict, noted as such on a traced one
_WHOLE_READS = (
    "__iter__", "__reversed__", "keys", "values", "items", "__len__", "__eq__", "__ne__",
    "__repr__", "popitem",
)  # fmt: skip


def _reading_whole(name: str) -> Any:
    method = getattr(dict, name)

    def read(self: TracedDict, *args: Any) -> Any:
        self._note.whole()
        return method(self, *args)

    read.__name__ = read.__qualname__ = name
    return read


for _name in _WHOLE_READS:
    setattr(TracedDict, _name, _reading_whole(_name))


def dict_names(module: types.ModuleType) -> list[str]:
    """The module's globals that are plain dicts (not dunders)."""
    return [
        name
        for name, value in vars(module).items()
        if type(value) is dict and not name.startswith("__")
    ]


def trace_dicts(modules: dict[str, types.ModuleType], reads: Reads) -> dict[str, int]:
    """Replace each plain dict global of ``modules`` (target -> module) by a ``TracedDict``
    wherever it is referred to; the traced ones (``target::name`` -> size). A dict some
    other object refers to (a list, an instance) is left as it is: a read through that
    reference would go unnoticed. Only in a child that ends after its tests."""
    gc.unfreeze()  # a frozen heap's referrers are not listed
    namespaces = {id(vars(m)) for m in list(sys.modules.values()) if _has_dict(m)}
    traced: dict[str, int] = {}
    for target, module in modules.items():
        for name in dict_names(module):
            original = vars(module)[name]
            key = f"{target}::{name}"
            holders = _holders(original, namespaces)
            if holders is None:
                continue
            copy = TracedDict(original)
            copy._note = _Note(key, {k: i for i, k in enumerate(original)}, reads)
            for holder in holders:
                _swap(holder, original, copy)
            traced[key] = len(original)
    return traced


def _has_dict(module: Any) -> bool:
    try:
        return isinstance(vars(module), dict)
    except TypeError:
        return False


def _holders(value: dict[Any, Any], namespaces: set[int]) -> list[Any] | None:
    """The places that refer to ``value``: modules' namespaces, cells, functions (through
    their defaults); None when one of them is something else. This function makes no
    closure, so none of its own cells shows among them."""
    holders: list[Any] = []
    referrers = gc.get_referrers(value)
    for referrer in referrers:
        if isinstance(referrer, types.FrameType):
            continue  # a running function's local: gone when the tests run
        if isinstance(referrer, types.CellType) or (
            isinstance(referrer, dict) and id(referrer) in namespaces
        ):
            holders.append(referrer)
        elif isinstance(referrer, (tuple, dict)):
            functions = _defaults_of(referrer, referrers)
            if functions is None:
                return None
            holders += functions
        else:
            return None
    return holders


def _defaults_of(defaults: Any, listing: list[Any]) -> list[types.FunctionType] | None:
    """The functions whose ``__defaults__`` or ``__kwdefaults__`` is ``defaults``; None when
    something else holds it (but ``listing``, the referrers being looked through, and
    frames)."""
    functions = []
    for holder in gc.get_referrers(defaults):
        if isinstance(holder, types.FunctionType) and defaults in (
            holder.__defaults__,
            holder.__kwdefaults__,
        ):
            functions.append(holder)
        elif holder is not listing and not isinstance(holder, types.FrameType):
            return None
    return functions or None


def _swap(holder: Any, old: Any, new: Any) -> None:
    """Make ``holder`` refer to ``new`` where it referred to ``old``."""
    if isinstance(holder, types.CellType):
        holder.cell_contents = new
    elif isinstance(holder, types.FunctionType):
        holder.__defaults__ = _swapped_tuple(holder.__defaults__, old, new)
        if holder.__kwdefaults__ is not None:
            holder.__kwdefaults__ = {
                k: new if v is old else v for k, v in holder.__kwdefaults__.items()
            }
    else:
        for name in [n for n, v in holder.items() if v is old]:
            holder[name] = new


def _swapped_tuple(values: tuple[Any, ...] | None, old: Any, new: Any) -> tuple[Any, ...] | None:
    return None if values is None else tuple(new if v is old else v for v in values)


@dataclass
class EntryReads:
    """Per traced dict (``target::name``): its size, the tests that read each of its
    entries (by position), read it whole, or looked a missing key up in it."""

    sizes: dict[str, int]
    entries: dict[str, dict[int, set[str]]] = field(default_factory=dict)
    whole: dict[str, set[str]] = field(default_factory=dict)
    missed: dict[str, set[str]] = field(default_factory=dict)
    tests: set[str] = field(default_factory=set)  # every test the traced run ran

    def add(self, nodeid: str, read: dict[str, list[int]], missed: Iterable[str]) -> None:
        """What one test read."""
        self.tests.add(nodeid)
        for name, positions in read.items():
            for position in positions:
                if position == WHOLE:
                    self.whole.setdefault(name, set()).add(nodeid)
                else:
                    self.entries.setdefault(name, {}).setdefault(position, set()).add(nodeid)
        for name in missed:
            self.missed.setdefault(name, set()).add(nodeid)

    def to_data(self) -> dict[str, Any]:
        """As JSON data (a child's verdict)."""
        return {
            "sizes": self.sizes,
            "entries": {
                name: {str(p): sorted(t) for p, t in by.items()}
                for name, by in self.entries.items()
            },
            "whole": {name: sorted(t) for name, t in self.whole.items()},
            "missed": {name: sorted(t) for name, t in self.missed.items()},
            "tests": sorted(self.tests),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> EntryReads:
        """From ``to_data``."""
        return cls(
            sizes=dict(data["sizes"]),
            entries={
                name: {int(p): set(t) for p, t in by.items()}
                for name, by in data["entries"].items()
            },
            whole={name: set(t) for name, t in data["whole"].items()},
            missed={name: set(t) for name, t in data["missed"].items()},
            tests=set(data["tests"]),
        )

    def read_at_all(self, name: str) -> bool:
        """Whether any test read the dict ``name`` (an entry, a missing key, or whole)."""
        return bool(self.entries.get(name) or self.whole.get(name) or self.missed.get(name))


class Snapshot:
    """A module's globals before ``rebind``: values, containers' items, functions' parts."""

    def __init__(self, namespace: dict[str, Any]):
        self.values = dict(namespace)
        self.items: dict[str, Any] = {}
        self.parts: dict[str, tuple[Any, ...]] = {}
        for name, value in self.values.items():
            if name == "__builtins__":
                continue
            if type(value) is dict:
                self.items[name] = dict(value)
            elif type(value) in (list, set):
                self.items[name] = type(value)(value)
            elif type(value) is types.FunctionType:
                self.parts[name] = _parts(value)


def _parts(function: types.FunctionType) -> tuple[Any, ...]:
    return (function.__code__, function.__defaults__, function.__kwdefaults__)


def readers(
    snapshot: Snapshot,
    namespace: dict[str, Any],
    target: str,
    reads: EntryReads,
    lines: tuple[int, int] = (0, 1 << 30),
) -> set[str] | None:
    """The tests that can see what changed in ``namespace`` since ``snapshot``: the readers
    of the traced entries that changed; None when something else changed (every test can).
    ``lines``: the mutant's. A module function's code is compared only when its source
    meets them: elsewhere it is the unchanged text compiled again, and comparing code a
    process ran with code it did not is unreliable (Python 3.11 rewrites some
    instructions of code it runs)."""
    seeing: set[str] = set()
    if set(namespace) != set(snapshot.values):
        return None
    for name, old in snapshot.values.items():
        new = namespace[name]
        traced = f"{target}::{name}"
        if name in snapshot.items and traced in reads.sizes and new is old:
            before = snapshot.items[name]
            if len(before) != reads.sizes[traced]:
                return None
            seeing |= _dict_readers(before, new, traced, reads)
        elif not _unchanged(snapshot, name, new, lines):
            return None
    return seeing


def _unchanged(snapshot: Snapshot, name: str, new: Any, lines: tuple[int, int]) -> bool:
    """Whether the global ``name`` is what it was (``readers``), as code reading it sees."""
    old = snapshot.values[name]
    if name == "__builtins__":
        return new is old
    if name in snapshot.items:
        return new is old and same(snapshot.items[name], type(new)(new))
    if name in snapshot.parts:
        code, defaults, keywords = snapshot.parts[name]
        if new is not old or not same((defaults, keywords), _parts(new)[1:]):
            return False
        changeable = _meets(code, lines) or _meets(new.__code__, lines)
        return not changeable or same(code, new.__code__)
    return new is old or same(old, new)


def _meets(code: types.CodeType, lines: tuple[int, int]) -> bool:
    """Whether any line of ``code`` (or of the code it holds) is within ``lines``."""
    import dis

    found = [line for _, line in dis.findlinestarts(code) if line is not None]
    first, last = min(found, default=code.co_firstlineno), max(found, default=0)
    first = min(first, code.co_firstlineno)
    if first <= lines[1] and lines[0] <= last:
        return True
    return any(_meets(c, lines) for c in code.co_consts if isinstance(c, types.CodeType))


def _dict_readers(
    before: dict[Any, Any], after: dict[Any, Any], name: str, reads: EntryReads
) -> set[str]:
    """The tests that can see how a traced dict changed (compared entry by entry, only
    where a test could see a difference)."""
    if not reads.read_at_all(name):
        return set()
    seeing: set[str] = set()
    by_entry = reads.entries.get(name, {})
    keys = list(before)
    for position, tests in by_entry.items():
        if tests <= seeing:
            continue
        key = keys[position]
        if key not in after or not same(before[key], dict.__getitem__(after, key)):
            seeing |= tests
    added = any(key not in before for key in dict.keys(after))
    if added:
        seeing |= reads.missed.get(name, set())
    whole = reads.whole.get(name, set())
    if whole and not whole <= seeing and (added or not same(before, dict(dict.items(after)))):
        seeing |= whole
    return seeing


def traced_run(
    items: list[Any], modules: dict[str, types.ModuleType], passing: set[str]
) -> dict[str, Any]:
    """In a child of the collector: run ``items`` in order with the modules' dicts traced;
    what each test read (``EntryReads.to_data``), or why nothing can be narrowed."""
    reads = Reads()
    sizes = trace_dicts(modules, reads)
    if not sizes:
        return {"verdict": "entries", "detail": "no dict can be traced"}
    found = EntryReads(sizes=sizes)
    reads.take()
    for index, item in enumerate(items):
        nextitem = items[index + 1] if index + 1 < len(items) else None
        if run_protocol(item, nextitem) and item.nodeid in passing:
            return {"verdict": "entries", "detail": f"{item.nodeid} failed with dicts traced"}
        found.add(item.nodeid, *reads.take())
    return {"verdict": "entries", "reads": found.to_data()}
