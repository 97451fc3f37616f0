"""Constant mining: source → constants by scope, as tables."""

from __future__ import annotations

import re
import textwrap

import pytest

from tddforge.builtin.constants import MODULE_SCOPE, Constant, constants_for, mine_constants


def mined(source: str) -> dict[str, list[tuple[object, str]]]:
    found = mine_constants(textwrap.dedent(source))
    return {scope: [(c.value, c.kind) for c in items] for scope, items in found.items()}


CASES = [
    pytest.param(
        "def f(x):\n    if x > 10 and x != -3:\n        return 'big'\n",
        {"f": [(10, "compare"), (-3, "compare"), ("big", "string")]},
        id="comparisons-and-negative-numbers",
    ),
    pytest.param(
        "def f(w):\n    return w in ('child', 'mouse')\n",
        {"f": [("child", "compare"), ("mouse", "compare")]},
        id="membership-in-a-literal-tuple",
    ),
    pytest.param(
        "IRREGULAR = {'child': 'children'}\ndef f(w):\n    return IRREGULAR['ox']\n",
        {MODULE_SCOPE: [("child", "dict_key"), ("children", "string")], "f": [("ox", "dict_key")]},
        id="dict-keys-and-subscripts",
    ),
    pytest.param(
        "def f(d):\n    return d.get('colour', 'red')\n",
        {"f": [("colour", "dict_key"), ("red", "dict_key")]},
        id="dict-get",
    ),
    pytest.param(
        "import re\ndef f(s):\n    return re.match(r'^\\d+$', s, re.I)\n",
        {"f": [("^\\d+$", "regex"), ("0", "regex_match")]},
        id="regex-pattern-and-a-string-it-matches",
    ),
    pytest.param(
        "def f(n, name):\n    return f'{n} items' + '%s!' % name + '{}-{}'.format(n, n)\n",
        {"f": [(" items", "format"), ("%s!", "format"), ("{}-{}", "format")]},
        id="format-strings",
    ),
    pytest.param(
        "def f(x, sep='-', *, limit=3, flag=None):\n    return x\n",
        {"f": [("-", "default"), (3, "default"), (None, "default")]},
        id="defaults",
    ),
    pytest.param(
        'def f(x):\n    """Double.\n\n    >>> f(21)\n    42\n    >>> f(-1.5)\n    -3.0\n    """\n'
        "    return 2 * x\n",
        {"f": [(21, "doctest"), (-1.5, "doctest"), (2, "number")]},
        id="doctest-inputs-not-the-docstring",
    ),
    pytest.param(
        "def f(x):\n    return range(5)\n",
        {"f": [(5, "argument")]},
        id="call-arguments",
    ),
    pytest.param(
        "def f(x):\n    if x == 1:\n        return 1\n    return x == 1\n",
        {"f": [(1, "compare"), (1, "number")]},
        id="each-kind-and-value-once",
    ),
    pytest.param(
        "def f(x):\n    return x == True or x == 1\n",
        {"f": [(True, "compare"), (1, "compare")]},
        id="true-and-1-are-different-constants",
    ),
    pytest.param(
        "def f():\n    return 'x' * 1 + '" + "y" * 250 + "'\n",
        {"f": [("x", "string"), (1, "number")]},
        id="long-text-is-not-a-constant",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_mine_constants(source: str, expected: dict[str, list[tuple[object, str]]]) -> None:
    assert mined(source) == expected


def test_scopes_classes_methods_and_nested_functions() -> None:
    source = """
        LIMIT = 99

        class Box:
            kind = "box"

            def grow(self, by=1.5):
                def inner(y):
                    return y > 7
                return (lambda z: z == "q")(by)

        def top():
            return 0
        """
    assert mined(source) == {
        MODULE_SCOPE: [(99, "number")],
        "Box": [("box", "string")],
        "Box.grow": [(1.5, "default"), (7, "compare"), ("q", "compare")],
        "top": [(0, "number")],
    }


def test_constants_for_a_method_include_its_class_and_the_module() -> None:
    found = mine_constants("A = 1\nclass C:\n    k = 'c'\n    def m(self):\n        return 2\n")
    assert constants_for(found, "C.m") == (
        Constant(2, "number"),
        Constant("c", "string"),
        Constant(1, "number"),
    )
    assert constants_for(found, "missing") == (Constant(1, "number"),)


CONSTRUCTED = '''
class P:
    def __init__(self, path):
        self.parts = path.split("/")


def get(p, path):
    """
    >>> get({}, "/a/b")
    1
    """
    return 1 if path else True
'''


def test_constants_for_a_constructor_include_its_init_then_every_doctest_example() -> None:
    found = mine_constants(CONSTRUCTED)
    assert constants_for(found, "P") == (
        Constant("/", "argument"),
        Constant("/a/b", "doctest"),
    )
    own = constants_for(found, "get")
    assert Constant(1, "number") in own and Constant(True, "number") in own  # 1 and True apart
    assert own.count(Constant("/a/b", "doctest")) == 1  # its own example, once


def test_a_regex_brings_a_string_it_matches_into_its_scope() -> None:
    source = """
        import re

        COUPON = re.compile(r"^[A-Z]{4}-\\d{2}$")

        def coupon_percent(code: str) -> int:
            if not re.fullmatch(r"[A-Z]{4}-(\\d{2})", code):
                raise ValueError(code)
            return int(code[-2:])
        """
    found = mined(source)
    module = found[MODULE_SCOPE]
    assert module[0] == ("^[A-Z]{4}-\\d{2}$", "regex")
    assert module[1][1] == "regex_match"
    assert re.fullmatch(r"^[A-Z]{4}-\d{2}$", str(module[1][0]))
    assert found["coupon_percent"][:2] == [
        ("[A-Z]{4}-(\\d{2})", "regex"),
        (module[1][0], "regex_match"),
    ]


def test_a_repeated_regex_brings_its_example_once() -> None:
    source = "import re\ndef f(s):\n    return re.match('a+', s) or re.search('a+', s)\n"
    assert mined(source) == {"f": [("a+", "regex"), ("a", "regex_match")]}


def test_syntax_error_propagates() -> None:
    with pytest.raises(SyntaxError):
        mine_constants("def f(:\n")
