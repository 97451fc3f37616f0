"""The call runner: runs calls of the target module under the TARGET's interpreter, stdlib only.

Shipped in the target package with the discovery probe and started as its
``calls`` entry (``CONFIG.json OUT.jsonl PATH...``). It imports the module
once, then forks one child per call, so every call starts from the state the
import left (as a test in a fresh process would) and a call that hangs or
kills its process costs only its child. In the child a ``sys.settrace``
tracer records the arcs (line → line, with ``-first_line`` for entry and
exit, as coverage.py writes them) executed in the module's file; the call's
outcome (its value's repr, or the exception) goes back through a pipe. One
JSON line per call is written to ``OUT.jsonl``. A method call may carry
``before``: method calls run first on the same instance, traced as part of
the call; when one of them raises, the outcome is ``step_failed``.

With ``capture`` in the config, the listed calls of other code (the package's API)
run instead, each in a child, and the module's calls they make are written
(``capture.py``).

With ``mutants`` in the config (the mutant-directed phase), each mutant
instead gets one forked child that re-runs the mutated module's source in the
imported module's namespace and runs that mutant's calls untraced; one JSON
line per mutant gives each call's outcome.

Determinism is judged by the caller, which runs the same calls in a second
process with another hash seed; each child reseeds ``random`` from the OS,
so values that depend on randomness, time or set order differ between runs.
Keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import functools
import importlib
import io
import itertools
import json
import keyword
import os
import pickle
import random
import signal
import sys
import threading
import time
from typing import Any

from .capture import capture
from .class_cell import binds_class_cell
from .clock import install_clock
from .descriptors import descriptors_borrowed, install_descriptors
from .environ_reads import (
    identity_read,
    install_identity,
    install_network,
    network_used,
    watching,
)
from .probe import OPERATORS, STATEMENTS, is_literal
from .processes import in_fork
from .sourcecache import LEARNING
from .workdir import install_writes, own_directory, set_baseline, writes_noticed, writes_outside

MAX_REPR = 2000
STDLIB_MODULES = (
    "datetime",
    "decimal",
    "fractions",
    "io",
    "logging",
    "uuid",
)  # as values.STDLIB_MODULES
MAX_ITEMS = 1000  # a generator is consumed up to this many items


class CallTimeout(BaseException):
    """Raised in a call by the alarm; a BaseException so ``except Exception`` cannot eat it."""


def literal(source: str, module: Any = None) -> Any:
    """An argument, given as the source of a literal, or of an expression tddforge wrote:
    a builtin or lambda (a callable), or a call of the module's own constructor."""
    try:
        return ast.literal_eval(source)
    except ValueError:  # see values.CALLABLES and explore's object candidates
        namespace = dict(vars(module)) if module is not None else {}
        namespace["__builtins__"] = builtins
        for name in STDLIB_MODULES:  # datetime.date(...): the module, whatever the target binds
            namespace[name] = importlib.import_module(name)
        top = getattr(module, "__name__", "").split(".")[0]
        if top and top not in namespace:  # networkx.DiGraph(...): the module's own package
            namespace[top] = importlib.import_module(top)
        return eval(source, namespace)


def preload() -> None:
    """Import the modules a written argument may name (``literal``) before the children
    fork. Imported in each child instead, they cost more than the call: toolz's calls
    took 16 ms a child, 3 ms with them imported once (``uuid`` alone imports
    ``platform``). Under pytest, a test finds all of them but ``fractions`` loaded."""
    for name in STDLIB_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def resolve(module: Any, call: dict[str, Any]) -> tuple[Any, Any]:
    """The callable a call names (a function, a class, or a method of a fresh instance,
    built by the class or by the expression ``via``), and that instance (None for
    functions, classes and static or class methods)."""
    parts = call["target"].split(".")
    obj = getattr(module, parts[0])
    if len(parts) == 1:
        return obj, None
    init = call.get("init")
    if call.get("via"):  # an instance another call returns (``parse(text).method()``)
        instance = literal(call["via"], module)
    elif init is None:
        return getattr(obj, parts[1]), None
    else:  # an instance method: build the instance first
        instance = obj(
            *(literal(a, module) for a in init["args"]),
            **{k: literal(v, module) for k, v in init["kwargs"].items()},
        )
    if call.get("attribute"):  # a property: read when the call runs, traced
        return lambda: getattr(instance, parts[1]), instance
    return bound(instance, parts[1]), instance


def bound(instance: Any, name: str) -> Any:
    """The method ``name`` of ``instance``; a special method spelled as a test spells it:
    ``a + b``, ``len(a)``, ``a[0] = 1``."""
    if name not in OPERATORS:
        return getattr(instance, name)
    template = OPERATORS[name]
    run = exec if name in STATEMENTS else eval  # a statement gives None

    def operate(*args: Any) -> Any:
        names = {_arg(i): a for i, a in enumerate(args)}
        # copy and pickle: the round trips (``copy.copy(box)``) call them
        scope = {"_self": instance, "copy": copy, "pickle": pickle, **names}
        try:
            return run(template.format(*names, self="_self"), scope)
        finally:  # ``suite += other`` may bind ``suite`` to another object: its test reads that
            operate.rebound = scope["_self"]  # type: ignore[attr-defined]

    return operate


class StepFailed(Exception):
    """A method run before the call raised: the sequence says nothing about the call."""


def run_before(module: Any, instance: Any, steps: Any) -> None:
    """The method calls a sequence runs on the instance before the call, in order (on the
    module itself, for a function of the module: its functions)."""
    for step in steps:
        method = bound(instance, step["method"])
        args = [literal(a, module) for a in step["args"]]
        kwargs = {k: literal(v, module) for k, v in step["kwargs"].items()}
        expected = step.get("raises") or []  # a step that raises, as its test expects
        try:
            method(*args, **kwargs)
        except CallTimeout:
            raise
        except BaseException as exc:
            kind = type(exc)
            if [kind.__qualname__, kind.__module__] != expected:
                raise StepFailed(step["method"] + ": " + kind.__name__) from exc
        else:
            if expected:
                raise StepFailed(step["method"] + ": returned")


def _arg(index: int) -> str:
    return "_arg" + str(index)


class Tracer:
    """Records arcs executed in one file."""

    def __init__(self, filename: str):
        self.filename = filename
        self.arcs: set[tuple[int, int]] = set()
        self.last: dict[Any, int] = {}

    def __call__(self, frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.filename or binds_class_cell(frame.f_code):
            return None  # a class body binding ``__class__`` runs untraced (``tracing``)
        self.last[frame] = -frame.f_code.co_firstlineno
        return self.local

    def local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            self.arcs.add((self.last.get(frame, 0), frame.f_lineno))
            self.last[frame] = frame.f_lineno
        elif event == "return":
            self.arcs.add((self.last.pop(frame, 0), -frame.f_code.co_firstlineno))
        return self.local


def describe_value(value: Any) -> dict[str, Any]:
    """A returned value: its type, repr, and whether the repr is a literal equal to it."""
    try:
        text = repr(value)
    except Exception as exc:  # a broken __repr__ is the module's bug, not ours
        text = "<repr failed: " + type(exc).__name__ + ">"
    exact = is_literal(value) and len(text) <= MAX_REPR
    found = {
        "kind": "return",
        "type": type(value).__qualname__,
        "type_module": type(value).__module__,
        "repr": text[:MAX_REPR],
        "literal": exact,
        "state": {} if exact else public_state(value),
    }
    if not exact and hasattr(type(value), "__enter__") and hasattr(type(value), "__exit__"):
        found["context"] = True  # what a ``with`` enters: its entering runs more code
    return found


def public_state(value: Any) -> dict[str, str]:
    """An object's public attributes whose values are literals, as reprs, each at most
    ``MAX_REPR`` long: py65's ``MPU().memory`` is 65536 zeros, which a test asserting
    it in full would spell over 65536 lines (and 217 such tests could not be parsed)."""
    try:
        attributes = vars(value)
    except TypeError:  # no __dict__
        return {}
    public = sorted((name, item) for name, item in attributes.items() if not name.startswith("_"))
    texts = ((name, _literal_text(item)) for name, item in public)
    return {name: text for name, text in texts if text is not None}


def _literal_text(value: Any) -> str | None:
    """``value``'s repr when it is a literal at most ``MAX_REPR`` long, else None."""
    if not is_literal(value):
        return None
    text = repr(value)
    return text if len(text) <= MAX_REPR else None


def shown_state(instance: Any) -> str:
    """What an object shows of itself when its class says how (its own ``__repr__``, or a
    builtin container's): a repr with no address in it and not too long, else ``""``. A
    mapping keeping its entries in a private attribute (``self._data``) has no public
    state, but its repr shows what ``d["a"] = 1`` did to it."""
    if getattr(type(instance), "__repr__", None) is object.__repr__:
        return ""
    try:
        if hash_ordered(vars(instance) if hasattr(instance, "__dict__") else instance):
            return ""
        text = repr(instance)
    except Exception:
        return ""
    return text if len(text) <= MAX_REPR and "0x" not in text else ""


def hash_ordered(value: Any, depth: int = 3) -> bool:
    """Whether ``value`` holds a set whose order another process may not repeat: two or
    more items, not all numbers (strings hash by a per-process seed, objects by address)."""
    if isinstance(value, (set, frozenset)):
        plain = all(isinstance(item, (int, float, type(None))) for item in value)
        return len(value) > 1 and not plain
    if depth <= 0:
        return False
    if isinstance(value, dict):
        return any(hash_ordered(item, depth - 1) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(hash_ordered(item, depth - 1) for item in value[:100])
    return False


def untraced(function: Any, *args: Any) -> Any:
    """``function(*args)`` with the tracer off: what the runner looks at is not the call's."""
    tracer = sys.gettrace()
    sys.settrace(None)
    try:
        return function(*args)
    finally:
        sys.settrace(tracer)


def read_back(module: Any, instance: Any, call: dict[str, Any]) -> dict[str, str]:
    """After ``box.size = 3``: the attribute read back, when its value is a literal. An
    object keeping its attributes elsewhere than in its ``__dict__`` (a mapping read
    through ``__getattr__``) shows nothing in ``public_state``. After ``box[0] = 3``: the
    item read back (named ``[0]``, for a literal key, not a slice), which no attribute
    shows."""
    target, args = call["target"], call["args"]
    try:
        if target.endswith(".__setitem__") and len(args) == 2:
            key = literal(args[0], module)
            if isinstance(key, slice) or not is_literal(key):
                return {}
            name, value = "[" + args[0] + "]", instance[key]
        elif target.endswith(".__setattr__") and args:
            name = literal(args[0], module)
            if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
                return {}
            if name.startswith("_"):  # private: not asserted on
                return {}
            value = getattr(instance, name)
        else:
            return {}
    except Exception:
        return {}
    text = _literal_text(value)
    return {} if text is None else {name: text}


#: What the file system answered a write the sandbox keeps out (read-only, not
#: permitted): ``errno.EROFS``, ``EACCES``, ``EPERM`` (the same numbers on Linux and macOS).
DENIED = (30, 13, 1)


def describe_error(exc: BaseException) -> dict[str, Any]:
    """A raised exception: its type and first message line; ``denied`` when the system
    refused a file operation (``DENIED``): that says where it ran, not what the code does."""
    message = str(exc)
    found: dict[str, Any] = {
        "kind": "raise",
        "type": type(exc).__qualname__,
        "type_module": type(exc).__module__,
        "message": message[:MAX_REPR],
    }
    if isinstance(exc, OSError) and exc.errno in DENIED:
        found["denied"] = True
    return found


def run_call(
    module: Any, call: dict[str, Any], timeout: float, trace: bool = True
) -> dict[str, Any]:
    """Run one call (in a child), returning the arcs it executed (when traced) and its outcome."""
    random.seed()
    sys.stdout = sys.stderr = io.StringIO()  # the call's prints must not flood the sandbox
    tracer = Tracer(module.__file__)
    setup = Tracer(module.__file__)  # building the instance: what its test does first

    def alarm(signum: int, frame: Any) -> None:
        raise CallTimeout

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    saved = set_environment(call.get("env") or ())
    # in a directory of its own when it writes where it runs (``workdir.py``)
    place = own_directory() if call.get("workdir") else writes_noticed()
    running = {t.ident for t in threading.enumerate()}
    with place as wrote, writes_outside() as machine_files:
        outcome, read = _outcome(module, call, tracer if trace else None, setup)
        set_environment(saved)
    found: dict[str, Any] = {"arcs": sorted(tracer.arcs), "outcome": outcome, **read}
    if setup.arcs:
        found["setup"] = sorted(setup.arcs)
    if wrote[0]:
        found["writes"] = True
    if threads_left(running):
        found["threads"] = True
    if machine_files[0]:
        found["outside"] = True
    return found


#: How long the threads a call started get to end before they count as left running.
THREAD_GRACE = 0.2


def threads_left(running: set[int | None]) -> bool:
    """Whether a thread the call started (not among ``running``, the idents before it) is
    still running, and not a daemon: pytest waits for such a thread as it ends, so a test
    of the call never ends (pykka's ``ThreadingActor().start()`` waits for messages)."""
    deadline = time.monotonic() + THREAD_GRACE
    for thread in threading.enumerate():
        if thread.ident in running or thread.daemon:
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            return True
    return False


def _outcome(
    module: Any, call: dict[str, Any], tracer: Tracer | None, setup: Tracer | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Make the call and describe what it did, and what it read of the machine: the
    environment variables (with the values found), whether it asked who runs it,
    whether it reached for the network, and whether it opened a file descriptor it did
    not make (each only when it did)."""
    environ: dict[str, Any] = {}
    identity, network, lent = [False], [False], [False]
    try:
        with contextlib.ExitStack() as noticing:
            environ = noticing.enter_context(watching())
            identity = noticing.enter_context(identity_read())
            network = noticing.enter_context(network_used())
            lent = noticing.enter_context(descriptors_borrowed())
            value, taken, instance, shown = _called(module, call, tracer, setup)
        outcome = describe_value(value)
        if taken:  # a test must take as many, or never end
            outcome["taken"] = taken
        if instance is not None:  # what the method left in the object
            outcome["after"] = {**public_state(instance), **read_back(module, instance, call)}
            after = shown_state(instance)
            if after and after != shown:  # the call changed what the object shows
                outcome["after_repr"] = after
    except CallTimeout:
        outcome = {"kind": "timeout"}
    except StepFailed as exc:  # never asserted on (only returns and raises are)
        outcome = {"kind": "step_failed", "message": str(exc)}
    except BaseException as exc:
        outcome = describe_error(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    read: dict[str, Any] = {"environ": dict(environ)} if environ else {}
    flags = (("identity", identity), ("network", network), ("descriptor", lent))
    read.update((name, True) for name, flag in flags if flag[0])
    return outcome, read


def _called(
    module: Any, call: dict[str, Any], tracer: Tracer | None, setup: Tracer | None = None
) -> tuple[Any, int, Any, str]:
    """Make the call (traced by ``tracer`` when given): its value, how many items were
    taken of a generator cut short (0: all), the instance and what it showed before.
    Building the instance is traced by ``setup`` (when given, with ``tracer``): its
    arcs are not the call's, yet its test runs them (a registry written to)."""
    if tracer is not None and setup is not None:
        sys.settrace(setup)
    try:
        func, instance = resolve(module, call)
    finally:
        sys.settrace(None)
    args = [literal(a, module) for a in call["args"]]
    kwargs = {k: literal(v, module) for k, v in call["kwargs"].items()}
    if tracer is not None:
        sys.settrace(tracer)
    try:
        # a function's steps are the module's functions (``create_entity(1)``)
        steps = call.get("before") or ()
        run_before(module, module if instance is None else instance, steps)
        shown = untraced(shown_state, instance) if instance is not None else ""
        if call.get("attribute"):  # data is the value; an instance's property is read
            value = func() if instance is not None else func
        else:
            value = func(*args, **kwargs)
            instance = getattr(func, "rebound", instance)  # in place: what the name holds
        taken = 0
        if call.get("consume"):  # one item past the cap tells an endless generator
            value = list(itertools.islice(value, MAX_ITEMS + 1))
            if len(value) > MAX_ITEMS:
                value, taken = value[:MAX_ITEMS], MAX_ITEMS
        if call.get("enter"):  # a context manager: what its ``with`` gives, once left
            with value as entered:
                pass
            value = entered
    finally:
        sys.settrace(None)
    return value, taken, instance, shown


def set_environment(pairs: Any) -> list[list[Any]]:
    """Set each ``[name, value]`` in ``os.environ`` (a value of None unsets it), as a test's
    ``monkeypatch`` does; returns the pairs that put back what was there."""
    saved = []
    for name, value in pairs:
        saved.append([name, os.environ.get(name)])
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    saved.reverse()  # a name set twice is put back to what it was first
    return saved


def in_child(module: Any, call: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run the call in a forked child and read its result (or say how the child died)."""
    data, status = in_fork(
        LEARNING.reporting(lambda: run_call(module, call, timeout)),
        # an outcome that cannot be encoded
        lambda exc: json.dumps({"arcs": [], "outcome": describe_error(exc)}).encode(),
        timeout + 2.0,
    )
    if data:
        return LEARNING.learn(json.loads(data))
    return {"arcs": [], "outcome": {"kind": "crash", "status": status}}


def against_mutant(
    module: Any, mutant: dict[str, Any], calls: list[Any], timeout: float
) -> dict[str, Any]:
    """In a child: switch the mutant on (re-run the mutated module in place), run the
    calls; their outcomes by call id, under ``outcomes``."""
    outcomes: dict[str, Any] = {}
    try:
        code = compile(mutant["source"], module.__file__, "exec")
        sys.stdout = sys.stderr = io.StringIO()
        exec(code, module.__dict__)
    except BaseException as exc:  # the mutant breaks the import: every call sees that
        failed = describe_error(exc)
        return {"outcomes": {str(call["id"]): failed for call in calls}}
    for call in calls:
        outcomes[str(call["id"])] = run_call(module, call, timeout, trace=False)["outcome"]
    return {"outcomes": outcomes}


def mutant_in_child(module: Any, mutant: dict[str, Any], calls: list[Any], timeout: float) -> Any:
    """The outcome of each call with the mutant switched on, in a forked child."""
    data, _ = in_fork(
        LEARNING.reporting(lambda: against_mutant(module, mutant, calls, timeout)),
        lambda exc: b"{}",
        timeout * len(calls) + 2.0,
    )
    return LEARNING.learn(json.loads(data)).get("outcomes", {}) if data else {}


def main(argv: list[str]) -> int:
    """Import the module named in the config, run each call, and write one line per call."""
    with open(argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    LEARNING.start(os.getcwd())  # the project (``explore.py``)
    sys.path[0:0] = argv[3:]  # after our own imports, as in the probe
    install_identity()  # before the module binds ``os.getuid``
    install_network()  # and ``from socket import getaddrinfo``
    install_writes()  # and ``from os import remove``
    install_descriptors()  # after it: a descriptor the call did not make, opened
    shift = os.environ.pop("TDDFORGE_CLOCK_SHIFT", "")
    if shift:  # the second run: a later wall clock (``clock.py``), and ``from time import time``
        install_clock(float(shift))
    if "entries" in config:  # what the project held before the runs began
        set_baseline(config["entries"])
    module = importlib.import_module(config["module"])
    preload()  # after the module: its import sees what a plain import sees
    # a command-line entry point parses ``sys.argv``: the module's name alone, not ours
    # (``builtin/module_state.py``; its tests set the same)
    sys.argv = [config["module"].rsplit(".", 1)[-1]]
    with open(argv[2], "a", encoding="utf-8") as out:
        if "capture" in config:  # the module's calls made by its package's API (capture.py)
            read = functools.partial(literal, module=module)
            capture(module, config["capture"], config["call_timeout"], read, out)
            return 0
        if "mutants" in config:  # the mutant-directed phase: each mutant's calls, no tracing
            by_id = {call["id"]: call for call in config["calls"]}
            for mutant in config["mutants"]:
                calls = [by_id[i] for i in mutant["calls"]]
                outcomes = mutant_in_child(module, mutant, calls, config["call_timeout"])
                out.write(json.dumps({"mutant": mutant["id"], "outcomes": outcomes}) + "\n")
                out.flush()
            return 0
        for call in config["calls"]:
            result = in_child(module, call, config["call_timeout"])
            if result.get("writes") and not call.get("workdir"):
                # it wrote where it ran: it runs again where its test will, in an empty
                # directory of its own
                own = dict(call, workdir=True)
                result = dict(in_child(module, own, config["call_timeout"]), writes=True)
            out.write(json.dumps({"id": call["id"], **result}) + "\n")
            out.flush()
    return 0
