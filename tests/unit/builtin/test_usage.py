"""Hints for unannotated parameters, inferred from use: source snippet -> hints, as tables."""

from __future__ import annotations

from textwrap import dedent

import pytest

from tddforge.builtin.usage import usage_hints

TOOLZ = """
def valmap(func, d, factory=dict):
    rv = factory()
    rv.update(zip(d.keys(), map(func, d.values())))
    return rv

def get_in(keys, coll, default=None, no_default=False):
    try:
        return reduce(operator.getitem, keys, coll)
    except (KeyError, IndexError, TypeError):
        if no_default:
            raise
        return default
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # 1. isinstance: the types as written, every one the body tests, as a union,
        #    and None last for "none of them" (the branch where every check fails)
        ("def f(x):\n    return isinstance(x, Mapping)", {"x": "Mapping | None"}),
        # a class, checked: circuitbreaker's ``expected_exception``
        (
            "def f(x):\n    return isclass(x) and issubclass(x, (KeyError, Exception))",
            {"x": "type[KeyError] | type[Exception] | None"},
        ),
        (
            "def f(x):\n    return isinstance(x, (abc.Sequence, str))",
            {"x": "abc.Sequence | str | None"},
        ),
        (
            "def f(x):\n    if isinstance(x, Box):\n        return 1\n"
            "    return isinstance(x, (int, Box))",
            {"x": "Box | int | None"},
        ),
        (
            "def f(x):\n    return isinstance(x, (int, type(None)))",
            {"x": "int | type(None) | None"},
        ),
        ("def f(x):\n    return isinstance(x, None) or x is None", {"x": "None"}),
        # callable(): a callable, or none (a decorator taking its function or its options)
        ("def f(x):\n    return callable(x)", {"x": "Callable | None"}),
        (
            "def f(x):\n    if isinstance(x, str):\n        return x\n    return callable(x)",
            {"x": "str | Callable | None"},
        ),
        # duck typing adds stdlib types: .year/.month/.day is a date, .days/.seconds a timedelta
        (
            "def f(x):\n    if isinstance(x, Box):\n        return 1\n    return x.year + x.month + x.day",
            {"x": "Box | date | datetime | None"},
        ),
        ("def f(x):\n    return x.days * 86400 + x.seconds", {"x": "timedelta"}),
        # .start/.stop/.step is a slice (not with two of them: a span of anything)
        ("def f(x):\n    return (x.start, x.stop, x.step)", {"x": "slice"}),
        ("def f(x):\n    return x.stop - x.start", {}),
        # 2. called, or handed over as a callable
        ("def f(x):\n    return x(1)", {"x": "Callable[[Any], Any]"}),  # called with one
        ("def f(x):\n    return x(1, 2)", {"x": "Callable[[Any, Any], Any]"}),
        ("def f(x, y):\n    return x(*y)", {"x": "Callable", "y": "list"}),  # not fixed
        ("def f(x):\n    return x(1, k=2)", {"x": "Callable"}),
        ("def f(x, y):\n    return list(map(x, y))", {"x": "Callable[[Any], Any]"}),
        ("def f(x, y):\n    return filter(x, y)", {"x": "Callable[[Any], Any]"}),
        ("def f(x, y):\n    return functools.reduce(x, y)", {"x": "Callable[[Any, Any], Any]"}),
        # 3. read or written as a file, or checked for a file's method beside other types
        ("def f(x):\n    return x.read()", {"x": "TextIO"}),
        ("def f(x):\n    x.write('a')", {"x": "TextIO"}),
        ("def f(x):\n    return [line for line in x.readlines()]", {"x": "TextIO"}),
        (
            "def f(x):\n    if isinstance(x, str):\n        return x\n    if hasattr(x, 'read'):\n"
            "        return x.read()",
            {"x": "str | TextIO | None"},
        ),
        ("def f(x, y):\n    return sorted(y, key=x)", {"x": "Callable[[Any], Any]"}),
        # 3. dict use
        ("def f(x):\n    return x.items()", {"x": "dict"}),
        ("def f(x):\n    x.setdefault(1, 2)", {"x": "dict"}),
        ("def f(x):\n    return x['name']", {"x": "dict[Literal['name'], Any]"}),
        # the keys it reads (a subscript or get, in order, once; not one it sets), up to eight
        (
            "def f(x):\n    x['set'] = 1\n    return x['a'], x.get('b'), x['a'], x.get(k)",
            {"x": "dict[Literal['a', 'b'], Any]"},
        ),
        ("def f(x):\n    return x.items(), x.get(1)", {"x": "dict"}),
        (
            "def f(x):\n    return " + " + ".join(f"x['{k}']" for k in "abcdefghi"),
            {"x": "dict[Literal['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], Any]"},
        ),
        ("def f(x):\n    return g(**x)", {"x": "dict"}),
        ("def f(x):\n    return x.copy()", {}),  # dict or list: no evidence
        # 4. str and bytes use
        ("def f(x):\n    return x.strip().lower()", {"x": "str"}),
        ("def f(x, y):\n    return x.join(y)", {"x": "str", "y": "list"}),
        ("def f(x):\n    return x.decode()", {"x": "bytes"}),
        # what a regex searches is a str: a compiled pattern's method, or re's function
        ("def f(x):\n    return PATTERN.search(x)", {"x": "str"}),
        ("def f(x):\n    return NUMBER.fullmatch(x)", {"x": "str"}),
        ("def f(x, y):\n    return re.match(y, x)", {"x": "str"}),
        ("def f(x):\n    return WORD.sub('', x)", {"x": "str"}),
        ("def f(x):\n    return re.sub('a', 'b', x)", {"x": "str"}),
        ("def f(x):\n    return re.split(',', x)", {"x": "str"}),
        ("def f(x):\n    return read(io.BytesIO(x))", {"x": "bytes"}),  # a file's contents
        ("def f(data):\n    return read(StringIO(data))", {"data": "str"}),  # over its name
        # 5. list use, indexing, iteration, membership, len, unpacking
        ("def f(x):\n    x.append(1)", {"x": "list"}),
        ("def f(x):\n    return x[0]", {"x": "list"}),
        ("def f(x):\n    return x[-1]", {"x": "list"}),
        ("def f(x):\n    return x[1:]", {"x": "list"}),
        ("def f(x):\n    for _ in x:\n        pass", {"x": "list"}),
        ("def f(x):\n    return [v for v in x]", {"x": "list"}),
        ("def f(x, y):\n    return y in x", {"x": "list"}),
        ("def f(x):\n    return len(x)", {"x": "list"}),
        ("def f(x):\n    a, b = x", {"x": "list"}),
        ("def f(x):\n    return g(*x)", {"x": "list"}),
        # iterated into several names: a list of tuples that size, even named otherwise
        ("def f(x):\n    for a, b in x:\n        pass", {"x": "list[tuple[Any, Any]]"}),
        ("def f(x):\n    return [a for a, b, c in x]", {"x": "list[tuple[Any, Any, Any]]"}),
        (
            "def f(iterable):\n    for a, b in iterable:\n        pass",
            {"iterable": "list[tuple[Any, Any]]"},
        ),
        ("def f(x):\n    for a, b in x.items():\n        pass", {"x": "dict"}),
        ("def f(x):\n    for (a,) in x:\n        pass", {"x": "list"}),
        # 6. arithmetic and comparison with literals, range
        ("def f(x):\n    return x + 1", {"x": "int"}),
        ("def f(x):\n    return 2.5 * x", {"x": "float"}),
        ("def f(x):\n    return x < -10", {"x": "int"}),
        ("def f(x):\n    return x == 'a'", {"x": "str"}),
        ("def f(x):\n    x += 1", {"x": "int"}),
        ("def f(x):\n    return range(x)", {"x": "int"}),
        ("def f(x):\n    return '%s!' % x", {}),  # formatting, not arithmetic
        ("def f(x):\n    return x is None", {}),
        ("def f(x):\n    if x:\n        return not x", {}),
        # ordered against an unknown value: ordered, and a key is then no key function
        ("def f(x, node):\n    return x < node.key", {"x": "int"}),
        ("def f(key, node):\n    return node.key >= key", {"key": "int"}),
        ("def f(text, node):\n    return text < node.text", {"text": "str"}),  # its name's
        ("def f(key, xs):\n    return sorted(xs, key=key)", {"key": "Callable[[Any], Any]"}),
        ("def f(key):\n    return key", {"key": "Callable"}),  # the name alone
        # tested against a string as well: a function or a mode's name (pypinyin's errors)
        (
            "def f(x, y):\n    if x == 'ignore':\n        return None\n    return x(y)",
            {"x": "Callable[[Any], Any] | str"},
        ),
        ("def f(x):\n    return 'all' != x or x.items()", {"x": "dict | str"}),
        ("def f(x):\n    return x in ('a', 'b') or x.items()", {"x": "dict | str"}),
        (
            "def f(x):\n    return isinstance(x, int) or x == 'auto'",
            {"x": "int | str | None"},
        ),
        ("def f(x):\n    return x in (1, 2) or x.items()", {"x": "dict"}),  # no string
        ("def f(x):\n    return x == 1 or x.items()", {"x": "dict"}),
    ],
)
def test_each_kind_of_evidence(source: str, expected: dict[str, str]) -> None:
    assert usage_hints(source).get("f", {}) == expected


@pytest.mark.parametrize(
    ("source", "param", "expected"),
    [
        # the strongest kind wins, wherever it appears
        ("def f(x):\n    for v in x:\n        pass\n    return x()", "x", "Callable[[], Any]"),
        ("def f(x):\n    x.append(1)\n    return isinstance(x, Foo)", "x", "Foo | None"),
        ("def f(x):\n    x[0]\n    return x.items()", "x", "dict"),
        ("def f(x):\n    x + 1\n    return x.split()", "x", "str"),
        # a regex's string beats slicing: ``s[i:j] == numeral`` after ``PATTERN.search(s)``
        ("def f(s):\n    if not PATTERN.search(s):\n        return\n    return s[1:3]", "s", "str"),
        ("def f(x):\n    if x > 0:\n        return x[1]", "x", "list"),
        # evidence beats the default and the name
        ("def f(func=0):\n    return func.items()", "func", "dict"),
        # a literal default beats the name; None is no evidence
        ("def f(func=''):\n    pass", "func", "str"),
        ("def f(n=1.5):\n    pass", "n", "float"),
        ("def f(x=[]):\n    pass", "x", "list"),
        ("def f(*, x=True):\n    pass", "x", "bool"),
        ("def f(func=None):\n    pass", "func", "Callable"),
        # weak list evidence (iteration, in, len, unpacking) yields to an iterable fallback
        ("def f(d):\n    return len(d)", "d", "dict"),
        ("def f(s):\n    return [c for c in s]", "s", "str"),
        ("def f(x=''):\n    return 'a' in x", "x", "str"),
        ("def f(func):\n    for x in func:\n        pass", "func", "list"),
        ("def f(d):\n    d.append(1)", "d", "list"),  # strong list evidence does not
    ],
)
def test_priority(source: str, param: str, expected: str) -> None:
    assert usage_hints(source)["f"][param] == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("predicate", "Callable"),
        ("fp", "TextIO"),
        ("stream", "TextIO"),
        ("key", "Callable"),
        ("receiver", "Callable"),  # a signal's, stored now and called when it is sent
        ("handler", "Callable"),
        ("listener", "Callable"),
        ("mapping", "dict"),
        ("coll", "list"),
        ("seqs", "list"),
        ("prefix", "str"),
        ("n", "int"),
        ("is_valid", "bool"),
        ("has_key", "bool"),
        ("thing", None),
        # a compound name ending in a word only a callable goes by
        ("fallback_function", "Callable"),
        ("error_handler", "Callable"),
        ("sort_fn", "Callable"),
        ("cache_key", None),  # a key, not a key function
        ("email_receiver", None),
        ("file_name", None),
        # a numbered name is hinted like its stem
        ("string1", "str"),
        ("s2", "str"),
        ("n_1", "int"),
        ("fp2", "TextIO"),
        ("thing2", None),
        ("x1", None),
    ],
)
def test_name_fallback(name: str, expected: str | None) -> None:
    assert usage_hints(f"def f({name}):\n    return {name}").get("f", {}).get(name) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # nested functions and lambdas count for the callable around them
        (
            "def f(x, y):\n    def g():\n        return x.items()\n    return lambda: y(1)",
            {"f": {"x": "dict", "y": "Callable[[Any], Any]"}},
        ),
        # ...unless their own parameter hides the outer one
        ("def f(x):\n    return lambda x: x.items()", {}),
        # methods: self and cls skipped, qualname Cls.m, nested classes too
        (
            "class C:\n    def __init__(self, x):\n        self.x = x + 1\n"
            "    @classmethod\n    def m(cls, d):\n        return cls(d['a'])\n"
            "    @staticmethod\n    def s(x):\n        return x.upper()\n"
            "    class D:\n        async def m(self, items):\n            pass",
            {
                "C.__init__": {"x": "int"},
                "C.m": {"d": "dict[Literal['a'], Any]"},
                "C.s": {"x": "str"},
                "C.D.m": {"items": "list"},
            },
        ),
        # annotated parameters are skipped, even with evidence
        ("def f(x: int, y):\n    return x.items(), y.items()", {"f": {"y": "dict"}}),
        ("def f(*xs: int):\n    for x in xs:\n        x.items()", {}),
        # *args: the hint is for one element, from its loop variable
        (
            "def merge(*dicts):\n    rv = {}\n    for d in dicts:\n        rv.update(d)\n"
            "    for d in dicts:\n        d.update(rv)\n    return rv",
            {"merge": {"dicts": "dict"}},
        ),
        ("def f(*xs):\n    return [x.strip() for x in xs]", {"f": {"xs": "str"}}),
        ("def f(*xs):\n    return len(xs)", {}),  # use of the tuple itself says nothing
        ("def compose(*funcs):\n    pass", {"compose": {"funcs": "Callable"}}),
        ("def dissoc(d, *keys):\n    pass", {"dissoc": {"d": "dict"}}),
        # **kwargs: the hint is for one value
        (
            "def f(**kw):\n    for k, v in kw.items():\n        v.append(k)",
            {"f": {"kw": "list"}},
        ),
        ("def f(**kw):\n    return [v + 1 for v in kw.values()]", {"f": {"kw": "int"}}),
        # a parameter handed unchanged to a callable of the module takes that one's hint
        # when its own body gives none: circuitbreaker's ``expected_exception``
        (
            "def build(exc):\n    return isclass(exc) and issubclass(exc, Exception)\n"
            "def circuit(exc=None, size=0):\n    return build(exc)",
            {
                "build": {"exc": "type[Exception] | None"},
                "circuit": {"exc": "type[Exception] | None", "size": "int"},
            },
        ),
        # by keyword, to a class (its ``__init__``), to a method on self, through two links
        (
            "class Box:\n    def __init__(self, items):\n        self.items = items.copy()\n"
            "        self._add(items)\n"
            "    def _add(self, given):\n        given.append(1)\n"
            "    def add(self, more):\n        return self._add(given=more)\n"
            "def pack(things):\n    return Box(things)\n"
            "def wrap(stuff):\n    return pack(stuff)",
            {
                "Box.__init__": {"items": "list"},  # by its name
                "Box._add": {"given": "list"},
                "Box.add": {"more": "list"},
                "pack": {"things": "list"},
                "wrap": {"stuff": "list"},
            },
        ),
        # to a method of an instance the body builds; handed to two callees, both their types
        # (biplist's writePlistToString)
        (
            "def write(root, binary=True):\n"
            "    if not binary:\n        return wrap(root)\n"
            "    writer = Writer()\n    return writer.write_root(root)\n"
            "def wrap(o):\n    return isinstance(o, (tuple, list)) and o\n"
            "class Writer:\n    def write_root(self, root):\n        return self._wrap(root)\n"
            "    def _wrap(self, obj):\n        return isinstance(obj, (bool, set, list)) and obj",
            {
                "write": {"root": "bool | set | list | tuple | None", "binary": "bool"},
                "wrap": {"o": "tuple | list | None"},
                "Writer.write_root": {"root": "bool | set | list | None"},
                "Writer._wrap": {"obj": "bool | set | list | None"},
            },
        ),
        # a class without a constructor of its own runs its base's (the module's), two deep
        (
            "class A:\n    def __init__(self, text):\n        self.t = text.upper()\n"
            "class B(A):\n    pass\n"
            "class C(B):\n    pass\n"
            "class D(Unknown):\n    pass\n"
            "def make(s):\n    return C(s)",
            {
                "A.__init__": {"text": "str"},
                "B.__init__": {"text": "str"},
                "C.__init__": {"text": "str"},
                "make": {"s": "str"},
            },
        ),
        # not an instance it builds: rebound, or built by something not a class of the module
        (
            "def f(x):\n    w = Writer()\n    w = other()\n    return w.put(x)\n"
            "def g(x):\n    w = make()\n    return w.put(x)\n"
            "class Writer:\n    def put(self, item):\n        return item.items()",
            {"Writer.put": {"item": "dict"}},
        ),
        # its own evidence, however weak, wins; an expression handed over is not the parameter
        (
            "def g(x):\n    return x.items()\ndef f(x, y):\n    return g(x) + g(y + 1) + x.upper()",
            {"g": {"x": "dict"}, "f": {"x": "str", "y": "int"}},
        ),
        # toolz
        (
            TOOLZ,
            {
                "valmap": {
                    "func": "Callable[[Any], Any]",
                    "d": "dict",
                    "factory": "Callable[[], Any]",
                },
                "get_in": {"keys": "list", "coll": "list", "no_default": "bool"},
            },
        ),
    ],
)
def test_module(source: str, expected: dict[str, dict[str, str]]) -> None:
    assert usage_hints(dedent(source)) == expected
