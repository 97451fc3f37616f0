"""Call sequences on one instance: which methods change state, which sequences are planned."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import replace

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome, Step
from tddforge.builtin.sequences import (
    CALLS_PER_METHOD,
    DRAIN,
    FILLS,
    ORDERS,
    REPEATED,
    can_prefix,
    filled_calls,
    filled_prefixes,
    known_steps,
    plan_sequences,
    prefixes_for,
    state_changers,
    varied_prefixes,
)
from tddforge.builtin.writer import write_module

# one class per row: its body, and the methods found to change the instance
CHANGERS = [
    ("def put(self, k, v):\n    self.data[k] = v", {"put"}),
    ("def reset(self):\n    self.count = 0", {"reset"}),
    ("def bump(self):\n    self.count += 1", {"bump"}),
    ("def drop(self, k):\n    del self.data[k]", {"drop"}),
    ("def push(self, x):\n    self.items.append(x)", {"push"}),
    ("def last(self):\n    return self.items[-1].pop()", {"last"}),
    ("def fill(self):\n    self.lists[-1].extend([1, 2])", {"fill"}),
    ("def empty(self):\n    items = self.items\n    items.clear()", {"empty"}),
    ("def flip(self):\n    for row in self.rows:\n        row.reverse()", {"flip"}),
    ("def swap(self, i, j):\n    self[i], self[j] = self[j], self[i]", {"swap"}),
    ("def shift(self, i):\n    item = self.pop(i)\n    return item", {"shift"}),  # inherited
    ("def name(self, v):\n    setattr(self, 'name', v)", {"name"}),
    ("def __setitem__(self, k, v):\n    super().__setitem__(k, v)", {"__setitem__"}),
    ("def __delitem__(self, k):\n    pass", {"__delitem__"}),
    ("def __setattr__(self, k, v):\n    self[k] = v", {"__setattr__"}),
    ("def __delattr__(self, k):\n    pass", {"__delattr__"}),
    ("def me(this, v):\n    this.v = v", {"me"}),  # the instance is the first parameter
    # reading, or changing only local values, changes nothing
    ("def get(self, k):\n    return self.data.get(k)", set()),
    ("def size(self):\n    n = len(self.items)\n    n += 1\n    return n", set()),
    ("def copy(self):\n    out = list(self.items)\n    out.append(1)\n    return out", set()),
    ("def total(self):\n    count = self.count\n    count += 1\n    return count", set()),
    ("@staticmethod\ndef make(x):\n    x.data = 1", set()),
    ("@classmethod\ndef make(cls):\n    cls.made = True", set()),
    # a method calling one that changes state changes it too, however deep
    (
        "def add(self, x):\n    self._grow()\n\ndef _grow(self):\n    self._evict()\n\n"
        "def _evict(self):\n    self.data.popitem()",
        {"add", "_grow", "_evict"},
    ),
    # ``with self:`` runs ``__exit__``, ``self()`` runs ``__call__``: a circuit breaker's
    # ``call`` counts a failure through them
    (
        "def __exit__(self, kind, value, tb):\n    self.failures += 1\n\n"
        "def call(self, f):\n    with self:\n        return f()\n\n"
        "def __call__(self):\n    self.n = 0\n\ndef again(self):\n    return self()",
        {"__exit__", "call", "__call__", "again"},
    ),
    # an own ``pop`` that changes nothing is not a container's
    ("def pop(self):\n    return 1\n\ndef take(self):\n    return self.pop()", set()),
]


@pytest.mark.parametrize(("body", "expected"), CHANGERS)
def test_state_changers(body: str, expected: set[str]) -> None:
    source = "class Box:\n" + textwrap.indent(body, "    ") + "\n"
    assert state_changers(source) == {"Box": frozenset(expected)}


def test_state_changers_follow_a_class_alias_and_survive_bad_source() -> None:
    source = "class Cache:\n    def put(self, k):\n        self.k = k\n\n\nLRU = Cache\n"
    assert state_changers(source) == {"Cache": {"put"}, "LRU": {"put"}}
    assert state_changers("class (:") == {}


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("put", True),
        ("__setitem__", True),
        ("__delitem__", True),
        ("__getitem__", False),  # ``box[k]`` alone is a useless expression
        ("__len__", False),
        ("__add__", False),
        ("__iadd__", False),  # may bind the name to another object: never a step
        ("__ior__", False),
    ],
)
def test_can_prefix(method: str, expected: bool) -> None:
    assert can_prefix(method) is expected


A1, A2, A3 = Step("put", ("'a'", "1")), Step("put", ("'b'", "1")), Step("put", ("'c'", "1"))
D1 = Step("drop", ("'a'",))


@pytest.mark.parametrize(
    ("method", "kinds", "offset", "call", "expected"),
    [
        # nothing changes state: nothing to run first
        ("get", {}, 0, None, []),
        # the call's own kind: two other steps first (the call is the third insert)
        (
            "put",
            {"put": [A1, A2, A3]},
            0,
            A1,
            [(A2, A3), (A1,), (A1, A2, A3)],
        ),
        # one other step of its kind is repeated
        ("put", {"put": [A1, A2]}, 0, A1, [(A2, A2), (A1,), (A1, A2, A1)]),
        # another method: one step, three steps, two kinds in a row, in turn
        (
            "get",
            {"put": [A1, A2], "drop": [D1]},
            0,
            None,
            [(A1,), (A1, A2, A1), (A1, D1), (D1,), (D1, D1, D1), (D1, A1)],
        ),
        # the offset rotates the turns
        (
            "get",
            {"put": [A1, A2], "drop": [D1]},
            1,
            None,
            [(D1,), (D1, D1, D1), (D1, A1), (A1,), (A1, A2, A1), (A1, D1)],
        ),
    ],
)
def test_prefixes_for(
    method: str,
    kinds: dict[str, list[Step]],
    offset: int,
    call: Step | None,
    expected: list[tuple[Step, ...]],
) -> None:
    assert prefixes_for(method, kinds, offset, call) == expected


def put(*args: str, **kwargs: str) -> Step:
    return Step("put", args, tuple(kwargs.items()))


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        # the value both share differs step by step, rising then falling; keys in turn
        (
            [put("'a'", "1"), put("'b'", "1")],
            [
                [("'a'", "1"), ("'b'", "3"), ("'a'", "2"), ("'b'", "4")],
                [("'a'", "4"), ("'b'", "3"), ("'a'", "2"), ("'b'", "1")],
            ],
        ),
        # one step: every number and string it holds differs; a string gets a suffix
        (
            [put("'k'", "0.5")],
            [
                [("'k'", "0.5"), ("'k2'", "2.5"), ("'k1'", "1.5"), ("'k3'", "3.5")],
                [("'k3'", "3.5"), ("'k2'", "2.5"), ("'k1'", "1.5"), ("'k'", "0.5")],
            ],
        ),
        # a keyword's shared value too
        (
            [put("'a'", ttl="-1"), put("'b'", ttl="-1")],
            [
                [("'a'", "-1"), ("'b'", "1"), ("'a'", "0"), ("'b'", "2")],
                [("'a'", "2"), ("'b'", "1"), ("'a'", "0"), ("'b'", "-1")],
            ],
        ),
        ([put("'a'", "1"), put("'b'", "2")], []),  # the values already differ
        ([put("'a'", "True"), put("'b'", "True")], []),  # a bool is not shifted
        ([put("len", "[]"), put("str", "[]")], []),  # names and lists are not
        ([Step("clear")], []),  # nothing to vary
        ([], []),
    ],
)
def test_varied_prefixes(steps: list[Step], expected: list[list[tuple[str, ...]]]) -> None:
    found = varied_prefixes(steps)
    flat = [[(*s.args, *(v for _, v in s.kwargs)) for s in prefix] for prefix in found]
    assert flat == expected
    assert all(s.method == steps[0].method for prefix in found for s in prefix)


def result(call: Call, kind: str = "return", deterministic: bool = True) -> CallResult:
    return CallResult(call, frozenset(), Outcome(kind), deterministic)


def on(method: str, *args: str, init: tuple[str, ...] = ()) -> Call:
    return Call(f"Cache.{method}", args, init_args=init)


def test_plan_sequences_prefix_the_methods_with_steps_seen_returning() -> None:
    seen = [
        result(Call("Cache", ("2",))),  # a constructor: no instance method
        result(on("put", "'a'", "1")),
        result(on("put", "'b'", "1")),
        result(on("put", "'c'", "1"), deterministic=False),  # never a step
        result(replace(on("put", "'e'", "1"), enter=True)),  # entered: nor this
        result(on("put", "'d'", "1", init=("9",))),  # another instance
        result(on("get", "'z'"), kind="raise"),
        result(on("get", "'y'")),  # the first that returned
        result(on("pop"), kind="raise"),  # raises: never a step
    ]
    planned = plan_sequences(seen, {"Cache": {"put", "pop"}})
    put_a, put_b = Step("put", ("'a'", "1")), Step("put", ("'b'", "1"))
    assert planned[:3] == [
        Call("Cache.put", ("'a'", "1"), init_args=(), before=(put_b, put_b)),
        Call("Cache.put", ("'b'", "1"), init_args=(), before=(put_b, put_b)),
        Call("Cache.put", ("'a'", "1"), init_args=(), before=(put_a,)),
    ]
    gets = [c for c in planned if c.target == "Cache.get"]
    assert gets[:3] == [
        Call("Cache.get", ("'z'",), init_args=(), before=(put_a,)),
        Call("Cache.get", ("'a'",), init_args=(), before=(put_a,)),  # the key stored
        Call("Cache.get", ("'y'",), init_args=(), before=(put_a,)),
    ]
    assert {c.target for c in planned} == {"Cache.put", "Cache.get", "Cache.pop"}
    assert all(c.init_args == () and c.before for c in planned)
    assert all(
        sum(c.target == target for c in planned)
        <= CALLS_PER_METHOD + 2 * len(ORDERS) + 2 * len(FILLS)  # no remover takes a key
        for target in ("Cache.put", "Cache.get", "Cache.pop")
    )
    # both puts store 1: besides, each method runs after puts of 1, 3, 2, 4 and 4, 3, 2, 1
    rising, falling = varied_prefixes([put_a, put_b])
    assert [s.args[1] for s in rising] == ["1", "3", "2", "4"]
    assert Call("Cache.get", ("'z'",), init_args=(), before=rising) in gets
    assert Call("Cache.pop", (), init_args=(), before=falling) in planned


def test_steps_come_from_the_instance_whose_methods_ran_most() -> None:
    """A call the package's API made on an instance of its own (captured, seen first) does
    not take the place of the instance the search calls every method on."""
    seen = [
        result(on("put", "'x'", "0", init=("'A'",))),  # captured first: one method
        result(on("put", "'a'", "1")),
        result(on("get", "'a'")),
        result(on("pop")),
    ]
    assert known_steps(seen, {"Cache": {"put", "pop"}}) == {
        "Cache": frozenset({Step("put", ("'a'", "1")), Step("pop", ())})
    }


@pytest.mark.parametrize(
    ("changers", "done"),
    [
        ({}, ()),  # nothing changes state
        ({"Cache": {"clear"}}, ()),  # no step seen
        ({"Cache": {"put"}}, ("Cache",)),  # planned already
        ({"Cache": {"__len__"}}, ()),  # cannot be written as a step
    ],
)
def test_plan_sequences_plans_nothing(changers: dict[str, set[str]], done: tuple[str]) -> None:
    seen = [result(on("put", "'a'", "1")), result(on("__len__")), result(on("get", "'a'"))]
    assert plan_sequences(seen, changers, done) == []


def test_a_sequence_is_sent_to_the_runner_in_order() -> None:
    call = Call(
        "Cache.get",
        ("'a'",),
        init_args=(),
        before=(Step("put", ("'a'", "1"), (("ttl", "2"),)), Step("__delitem__", ("'b'",))),
    )
    assert call.to_json(3)["before"] == [
        {"method": "put", "args": ["'a'", "1"], "kwargs": {"ttl": "2"}},
        {"method": "__delitem__", "args": ["'b'"], "kwargs": {}},
    ]
    assert Call("f").to_json(0)["before"] == []


def test_a_sequence_is_written_as_statements_on_one_instance() -> None:
    got = Outcome("return", "int", "builtins", "1", literal=True, after=(("size", "2"),))
    missing = Outcome("raise", "KeyError", "builtins", message="'a'")
    before = (Step("put", ("'a'", "1")), Step("__setitem__", ("'b'", "2")))
    source = write_module(
        "caches",
        [
            CallResult(
                Call("LRUCache.get", ("'a'",), (), ("2",), before=before), frozenset(), got, True
            ),
            CallResult(
                Call(
                    "LRUCache.__getitem__",
                    ("'a'",),
                    (),
                    (),
                    (("maxsize", "2"),),
                    before=(Step("__delitem__", ("'a'",)),),
                ),
                frozenset(),
                missing,
                True,
            ),
        ],
    )
    assert (
        "def test_lru_cache_get_after_put_setitem_returns_1() -> None:\n"
        "    lru_cache = LRUCache(2)\n"
        "    lru_cache.put('a', 1)\n"
        "    lru_cache['b'] = 2\n"
        "    assert lru_cache.get('a') == 1\n"
        "    assert lru_cache.size == 2\n"
    ) in source
    assert (
        "    lru_cache = LRUCache(maxsize=2)\n"
        "    del lru_cache['a']\n"
        "    with pytest.raises(KeyError, match=\"'a'\"):\n"
        "        lru_cache['a']\n"
    ) in source
    ast.parse(source)


def test_a_subclass_changes_state_through_what_it_inherits_from_the_module() -> None:
    source = textwrap.dedent(
        """\
        class Base:
            def add(self, x):
                self.items.append(x)

            def size(self):
                return len(self.items)

        class Sub(Base):
            def add_two(self, x):
                self.add(x)
                self.add(x)

            def size(self):
                return 2

        class Other(dict):
            def first(self):
                return self.pop()
        """
    )
    assert state_changers(source) == {
        "Base": frozenset({"add"}),
        "Sub": frozenset({"add", "add_two"}),  # its own ``size`` changes nothing
        "Other": frozenset({"first"}),  # an inherited container method
    }


def test_a_class_is_planned_again_once_more_steps_work() -> None:
    """``add_row`` raises on a fresh table and returns after ``header``: that chain is a
    prefix from then on, tried first, and ``draw`` is called after it; a class whose
    steps did not change is not planned again, and what was tried is not planned."""
    header = Step("header", ("['a']",))
    first = [
        result(Call("Table.header", ("['a']",), init_args=())),
        result(Call("Table.add_row", ("['x']",), init_args=()), kind="raise"),
        result(Call("Table.draw", init_args=())),
    ]
    changers = {"Table": {"header", "add_row"}}
    planned = known_steps(first, changers)
    assert planned == {"Table": frozenset({header})}
    assert plan_sequences(first, changers, planned=planned) == []  # nothing new
    later = [*first, result(Call("Table.add_row", ("['x']",), init_args=(), before=(header,)))]
    chain = (header, Step("add_row", ("['x']",)))
    again = plan_sequences(later, changers, planned=planned, tried={c.call for c in later})
    draws = [c for c in again if c.target == "Table.draw"]
    assert draws[0] == Call("Table.draw", init_args=(), before=chain)
    assert Call("Table.add_row", ("['x']",), init_args=(), before=(header,)) not in again
    assert known_steps(later, changers) == {"Table": frozenset({header, chain})}


def test_filled_prefixes_start_from_the_first_step_with_a_number_or_a_string() -> None:
    none, word = Step("put", ("None", "0")), Step("put", ("'k'", "0"), (("ttl", "1"),))
    rising, falling, balanced, zigzag = filled_prefixes({"put": [none, word]})
    assert [s.args for s in rising[:3]] == [("'k'", "0"), ("'k1'", "0"), ("'k2'", "0")]
    assert [s.args[0] for s in falling] == [
        "'k7'", "'k6'", "'k5'", "'k4'", "'k3'", "'k2'", "'k1'", "'k'"
    ]  # fmt: skip
    assert [s.args[0] for s in balanced[:3]] == ["'k5'", "'k2'", "'k8'"]
    assert all(s.kwargs == (("ttl", "1"),) and s.method == "put" for s in balanced)
    assert [s.args[0] for s in zigzag[:3]] == ["'k'", "'k9'", "'k1'"]  # each between the last two
    assert [s.args[0] for s in filled_prefixes({"add": [Step("add", ("-1",))]})[0]][:3] == [
        "-1",
        "0",
        "1",
    ]
    assert len(FILLS) == 4 and all(len(set(order)) == len(order) for order in FILLS)


@pytest.mark.parametrize(
    "kinds",
    [
        {},
        {"put": [Step("put", ("None",))]},  # nothing to move up
        {"put": [Step("put", ("True",))]},  # a bool is not
        {"clear": [Step("clear")]},  # no argument
        {"put": [Step("put", ("[1]",))]},
    ],
)
def test_filled_prefixes_none(kinds: dict[str, list[Step]]) -> None:
    assert filled_prefixes(kinds) == []


def test_filled_calls_run_every_method_on_a_filled_then_a_drained_instance() -> None:
    kinds = {"put": [Step("put", ("1",))]}
    calls = {
        "put": [on("put", "1")],
        "remove": [on("remove", "9")],
        "clear": [on("clear")],  # changes state, takes no key: never drains
        "size": [on("size")],
    }
    found = filled_calls(kinds, calls, {"put", "remove", "clear"})
    rising = filled_prefixes(kinds)[0]
    assert replace(on("size"), before=rising) in found
    assert replace(on("remove", "8"), before=rising) in found  # the last key put
    # drained: the keys of DRAIN but the last taken out, then the remover given that one
    keys = [str(1 + d) for d in DRAIN]
    out = tuple(Step("remove", (k,)) for k in keys[:-1])
    assert replace(on("size"), before=(*rising, *out)) in found
    assert replace(on("remove", keys[-1]), before=(*rising, *out)) in found
    # every fill is drained of the same keys (the balanced one holds 8 and 9 too)
    for prefix in filled_prefixes(kinds)[1:]:
        assert replace(on("remove", keys[-1]), before=(*prefix, *out)) in found
    assert not any(s.method == "clear" for c in found for s in c.before)
    assert len(found) == len(set(found))
    assert filled_calls({"put": [Step("put", ("None",))]}, calls, {"put", "remove"}) == []


def test_a_state_changing_call_that_raised_is_a_step_its_test_expects() -> None:
    """A circuit breaker opens after failures: ``call(f)`` raising ``ValueError`` is a
    step (``with pytest.raises(ValueError):``), at most one raising kind per method,
    never one that raised without a type or where the system refused a file."""
    failed = Outcome("raise", "ValueError", "builtins", message="x")
    denied = Outcome("raise", "PermissionError", "builtins", denied=True)
    seen = [
        CallResult(on("call", "f"), frozenset(), failed, True),
        CallResult(on("call", "g"), frozenset(), failed, True),  # one raising step is enough
        CallResult(on("save", "'p'"), frozenset(), denied, True),
        result(on("call", "h")),
        result(on("save", "'q'")),
        result(replace(on("state"), attribute=True)),  # a property: read first
    ]
    steps = known_steps(seen, {"Cache": {"call", "save"}})["Cache"]
    fails = Step("call", ("f",), raises=("ValueError", "builtins"))
    assert steps == {fails, Step("call", ("h",)), Step("save", ("'q'",))}
    planned = plan_sequences(seen, {"Cache": {"call", "save"}})
    # after the failure repeated, a few reads of the state (properties first), and no more
    tripped = [c for c in planned if c.before == (fails,) * REPEATED]
    assert [c.target for c in tripped] == ["Cache.state", "Cache.call", "Cache.save"]
    opened = Call("Cache.state", init_args=(), before=(fails, fails))
    assert opened.to_json(0)["before"][0]["raises"] == ["ValueError", "builtins"]
    shown = Outcome("return", "str", "builtins", "'open'", literal=True)
    for framework, expected in [
        ("pytest", "    with pytest.raises(ValueError):\n        cache.call(f)\n" * 2),
        (
            "unittest",
            "        with self.assertRaises(ValueError):\n            cache.call(f)\n" * 2,
        ),
    ]:
        source = write_module("caches", [CallResult(opened, frozenset(), shown, True)], framework)
        assert expected in source
        ast.parse(source)
    assert "import pytest\n" in write_module(
        "caches", [CallResult(opened, frozenset(), shown, True)]
    )
    # the failure again and again, past a threshold of failures: written as a loop
    source = write_module("caches", [CallResult(tripped[0], frozenset(), shown, True)])
    assert (
        f"    for _ in range({REPEATED}):\n"
        "        with pytest.raises(ValueError):\n"
        "            cache.call(f)\n"
        "    assert cache.state == 'open'\n"
    ) in source
