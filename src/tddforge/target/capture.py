"""Calls of the module seen while other code runs: what its package's API passes it.

A module is often driven by another one of its package: ``hjson.loads(text)`` builds
``HjsonDecoder()`` and calls its ``decode(text)``. The project's tests then call the
package's function, never the module's own. The call runner (``calls.py``, with
``capture`` in its config) runs each such *driver* call in a forked child with a
profile hook that records the calls entering the module's public functions,
constructors and methods, with their arguments, when every one is a literal, or an
object of the package that a constructor call without arguments makes again. A method
call is kept when its instance was built, during the same driver, by a constructor
whose arguments were literals too, or when its class takes no arguments at all (no
``__init__`` but ``object``'s): then it is called on an instance of that class, even
where the driver's instance was of a subclass defined elsewhere in the package. Arguments left at their default are left out.
One JSON line per captured call, at most ``MAX_PER_TARGET`` per target.

Stdlib only; keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import io
import json
import sys
from typing import Any, Callable, Tuple

from .implementations import is_abstract, public_path
from .probe import is_literal
from .processes import in_fork
from .sourcecache import LEARNING

MAX_PER_TARGET = 24
MAX_REPR = 2000
_EMPTY = inspect.Parameter.empty

Entry = Tuple[str, str, Any]  # qualname, kind ("function", "constructor", "method"), callable


def bare(module: Any) -> frozenset[str]:
    """The module's public classes that are built with no arguments at all: no
    ``__init__`` or ``__new__`` of their own or their bases but ``object``'s."""
    return frozenset(
        name
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and not name.startswith("_")
        and getattr(value, "__module__", None) == module.__name__
        and value.__init__ is object.__init__
        and value.__new__ is object.__new__
        and not inspect.isabstract(value)
    )


def entries(module: Any) -> dict[Any, Entry]:
    """The module's own public callables, by code object."""
    found: dict[Any, Entry] = {}
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            found[value.__code__] = (name, "function", value)
        elif inspect.isclass(value):
            init = value.__dict__.get("__init__")
            if inspect.isfunction(init):
                found[init.__code__] = (name, "constructor", init)
            for attr, member in value.__dict__.items():
                if attr.startswith("_") or not inspect.isfunction(member):
                    continue  # static and class methods are left to the direct calls
                found[member.__code__] = (f"{name}.{attr}", "method", member)
    return found


def arguments(
    function: Any,
    values: dict[str, Any],
    skip_first: bool,
    source: Callable[[Any], str | None] | None = None,
) -> list[Any] | None:
    """``[args, kwargs]`` (as sources) that call ``function`` with ``values`` (its frame's
    locals on entry), leaving out those equal to their default; None when one cannot be
    written (``source``: a literal's repr, by default)."""
    write = source or literal_source
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    args: list[str] = []
    kwargs: list[list[str]] = []
    by_keyword = False  # once a positional one is left out, the rest go by name
    for p in parameters[1:] if skip_first else parameters:
        if p.name not in values:
            return None
        value = values[p.name]
        if p.kind == p.VAR_KEYWORD:
            given = {k: write(v) for k, v in value.items()}
            kwargs += [[k, v] for k, v in given.items() if v is not None]
            if None in given.values():
                return None
        elif p.kind == p.VAR_POSITIONAL:
            texts = [write(v) for v in value]
            if None in texts or (by_keyword and texts):
                return None
            args += texts  # type: ignore[arg-type]
        elif p.default is not _EMPTY and _same(value, p.default):
            by_keyword = True
        elif not _place(p, write(value), by_keyword, args, kwargs):
            return None
    return [args, kwargs]


def _place(
    p: inspect.Parameter,
    text: str | None,
    by_keyword: bool,
    args: list[str],
    kwargs: list[list[str]],
) -> bool:
    """Put one parameter's source where a call passes it; False when it cannot be passed."""
    if text is None:
        return False
    if p.kind == p.KEYWORD_ONLY or (by_keyword and p.kind == p.POSITIONAL_OR_KEYWORD):
        kwargs.append([p.name, text])
    elif by_keyword:  # a positional-only one after one left out
        return False
    else:
        args.append(text)
    return True


def _same(value: Any, default: Any) -> bool:
    if value is default:
        return True
    try:
        return type(value) is type(default) and is_literal(value) and bool(value == default)
    except Exception:  # an __eq__ that raises or returns something odd
        return False


def literal_source(value: Any) -> str | None:
    if not is_literal(value):
        return None
    text = repr(value)
    return text if len(text) <= MAX_REPR else None


class Rebuilt:
    """An argument's source: a literal's repr, or the constructor call that makes the
    object again, when it is an instance of a class of the module's package that a call
    without arguments builds in the same state (text2num's ``text2num(text, "de")``
    hands its parser the package's ``German()``), named as a test names it."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.package = module.__name__.split(".")[0]
        self.fresh: dict[type, Any] = {}  # class -> (its path, a fresh instance's state)

    def __call__(self, value: Any) -> str | None:
        text = literal_source(value)
        if text is not None:
            return text
        cls = type(value)
        if (getattr(cls, "__module__", None) or "").split(".")[0] != self.package:
            return None
        if cls not in self.fresh:
            self.fresh[cls] = self._fresh(cls)
        known = self.fresh[cls]
        if known is None:
            return None
        path, state = known
        try:
            same = _state(value) == state
        except Exception:  # an __eq__ that raises
            return None
        return f"{path}()" if same is True else None

    def _fresh(self, cls: type) -> tuple[str, Any] | None:
        path = public_path(cls, self.module)
        if path is None or is_abstract(cls):
            return None
        try:
            return path, _state(cls())
        except Exception:  # it needs arguments, or refuses to be built here
            return None


def _state(obj: Any) -> Any:
    """What an instance holds: its ``__dict__`` and its slots' values."""
    slots = []
    for klass in type(obj).__mro__:
        declared = klass.__dict__.get("__slots__") or ()
        slots += [declared] if isinstance(declared, str) else list(declared)  # ``"size"``
    held = [(name, getattr(obj, name, _EMPTY)) for name in slots if isinstance(name, str)]
    return (getattr(obj, "__dict__", None), held)


class Recorder:
    """The profile hook: records the module's calls while a driver runs."""

    def __init__(
        self,
        known: dict[Any, Entry],
        bare: frozenset[str] = frozenset(),
        source: Callable[[Any], str | None] = literal_source,
    ):
        self.known = known
        self.bare = bare  # classes whose instance needs no constructor call seen
        self.source = source  # an argument's source (``Rebuilt``), None: not written
        self.inits: dict[int, list[Any]] = {}  # id(instance) -> its constructor's [args, kwargs]
        self.seen: dict[str, list[str]] = {}  # qualname -> the captured calls, as JSON
        self.full = False

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call" or self.full:
            return
        entry = self.known.get(frame.f_code)
        if entry is None:
            return
        with contextlib.suppress(Exception):  # a repr or signature that fails: not captured
            self.record(entry, frame)

    def record(self, entry: Entry, frame: Any) -> None:
        qualname, kind, function = entry
        values = dict(frame.f_locals)
        found = arguments(function, values, kind != "function", self.source)
        if kind == "constructor":
            instance = values.get(frame.f_code.co_varnames[0])
            if found is not None and instance is not None:
                self.inits.setdefault(id(instance), found)
            row = (
                None
                if found is None
                else {"target": qualname, "args": found[0], "kwargs": found[1]}
            )
        elif kind == "method":
            init = self.inits.get(id(values.get(frame.f_code.co_varnames[0])))
            if init is None and qualname.split(".")[0] in self.bare:
                # no constructor ran: the class has none (an instance of a subclass defined
                # elsewhere in the package comes here too, and is called on the class itself)
                init = [[], {}]
            row = None
            if found is not None and init is not None:
                row = {"target": qualname, "args": found[0], "kwargs": found[1]}
                row.update(init_args=init[0], init_kwargs=init[1])
        else:
            row = (
                None
                if found is None
                else {"target": qualname, "args": found[0], "kwargs": found[1]}
            )
        if row is None:
            return
        text = json.dumps(row, sort_keys=True)
        calls = self.seen.setdefault(qualname, [])
        if text not in calls and len(calls) < MAX_PER_TARGET:
            calls.append(text)


def resolve_driver(path: str) -> Callable[..., Any]:
    """``pkg.mod.func`` (or ``pkg.Class``): the longest importable prefix, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            owner = getattr(owner, attr)
        return owner  # type: ignore[no-any-return]
    raise ImportError(path)


def capture_one(
    module: Any, driver: dict[str, Any], literal: Callable[[str], Any]
) -> dict[str, Any]:
    """In a child: run one driver call under the recorder; the captured calls, under
    ``rows``."""
    recorder = Recorder(entries(module), bare(module), Rebuilt(module))
    function = resolve_driver(driver["path"])
    args = [literal(a) for a in driver["args"]]
    kwargs = {k: literal(v) for k, v in driver["kwargs"]}
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(), io.StringIO(), io.StringIO()
    sys.setprofile(recorder)
    try:
        result = function(*args, **kwargs)
        if inspect.isgenerator(result):  # a lazy parser does its work as it is consumed
            for _ in zip(range(1000), result):
                pass
    except BaseException:  # what the driver raises is not ours to judge
        pass
    finally:
        sys.setprofile(None)
    return {"rows": [json.loads(t) for calls in recorder.seen.values() for t in calls]}


def capture(
    module: Any,
    drivers: list[dict[str, Any]],
    timeout: float,
    literal: Callable[[str], Any],
    out: Any,
) -> None:
    """Each driver in a child of its own; one JSON line per captured call, each once.
    What a child imported is compiled once for the children after (``LEARNING``)."""
    written = set()
    for driver in drivers:
        work = LEARNING.reporting(functools.partial(capture_one, module, driver, literal))
        data, _ = in_fork(work, lambda exc: b"{}", timeout)
        try:
            rows = LEARNING.learn(json.loads(data)).get("rows", []) if data else []
        except ValueError:
            rows = []
        for row in rows:
            text = json.dumps(row, sort_keys=True)
            if text not in written:
                written.add(text)
                out.write(text + "\n")
        out.flush()
