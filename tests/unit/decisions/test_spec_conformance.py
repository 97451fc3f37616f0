from __future__ import annotations

import textwrap

import pytest

from tddforge.decisions.spec_conformance import (
    check_signatures,
    check_tests,
    parameter_differences,
    signature_request,
)
from tddforge.spec import Component, Spec, parse_parameters
from tddforge.target.signatures import ModuleInfo, ObjectInfo, ParamInfo

SPEC = Spec.model_validate(
    {
        "spec_id": "S",
        "components": [
            {
                "name": "Bucket",
                "type": "class",
                "file_path": "src/rate/bucket.py",
                "interface": {
                    "constructor": "Bucket(capacity: int, refill_per_second: float)",
                    "methods": ["take(tokens: int = 1) -> bool", "available() -> float"],
                    "attributes": ["capacity: int"],
                },
                "errors": ["Empty"],
            },
            {
                "name": "Limiter",
                "type": "class",
                "file_path": "rate/limiter.py",
                "interface": {"constructor": "Limiter(**options)"},
            },
            {"name": "Clock", "type": "class", "file_path": "rate/clock.py"},
            {
                "name": "parsing",
                "type": "module",
                "file_path": "rate/parsing.py",
                "interface": {"methods": ["parse_rate(text: str, /) -> float"]},
            },
        ],
        "test_cases": [{"id": "TC001"}],
    }
)

IMPORT = "from rate.bucket import Bucket\n"

# source (after the import line) → the mismatches found, as (line, kind, name); lines count
# from the import, which is line 1
CASES = {
    "a constructor keyword the spec does not name": (
        "b = Bucket(capacity=5, refill_rate=1)\n",
        [(2, "keyword", "refill_rate")],
    ),
    "the spec's keywords": ("Bucket(capacity=5, refill_per_second=1.0)\n", []),
    "positional arguments": ("Bucket(5, 1.0, 7)\n", []),
    "a constructor that takes **options": (
        "from rate.limiter import Limiter\nLimiter(anything=1)\n",
        [],
    ),
    "no constructor in the spec": ("from rate.clock import Clock\nClock(tz='UTC').now()\n", []),
    "a method the spec does not declare": (
        "b = Bucket(5, 1.0)\nb.reset()\n",
        [(3, "method", "reset")],
    ),
    "an attribute the spec does not declare": (
        "b = Bucket(5, 1.0)\nassert b.tokens == 5\n",
        [(3, "attribute", "tokens")],
    ),
    "an attribute written": ("b = Bucket(5, 1.0)\nb.level = 3\n", [(3, "attribute", "level")]),
    "declared members": (
        "b = Bucket(5, 1.0)\nb.take(tokens=2)\nb.available()\nassert b.capacity == 5\n",
        [],
    ),
    "a method keyword the spec does not name": (
        "b = Bucket(5, 1.0)\nb.take(count=2)\n",
        [(3, "keyword", "count")],
    ),
    "dunder members": ("b = Bucket(5, 1.0)\nb.__class__\nb.__eq__(b)\n", []),
    "members of a class the spec lists none for": (
        "from rate.clock import Clock\nc = Clock()\nc.now()\n",
        [],
    ),
    "a member on a construction": (
        "assert Bucket(5, 1.0).tokens == 5\n",
        [(2, "attribute", "tokens")],
    ),
    "a with ... as instance": (
        "with Bucket(5, 1.0) as b:\n    b.drain()\n",
        [(3, "method", "drain")],
    ),
    "errors reached through the class": (
        "Bucket.Empty\nBucket.Missing\n",
        [(3, "attribute", "Missing")],
    ),
    "the same mismatch twice": (
        "Bucket(refill_rate=1)\nBucket(refill_rate=2)\n",
        [(2, "keyword", "refill_rate")],
    ),
    "a module imported whole": (
        "import rate.bucket\nrate.bucket.Bucket(refill_rate=1)\n",
        [(3, "keyword", "refill_rate")],
    ),
    "a module imported under another name": (
        "import rate.bucket as rb\nrb.Bucket(refill_rate=1)\n",
        [(3, "keyword", "refill_rate")],
    ),
    "a function of a module component": (
        "from rate.parsing import parse_rate\nparse_rate('1/s', unit='s')\nparse_rate(text='x')\n",
        [(3, "keyword", "unit"), (4, "keyword", "text")],
    ),
    "an import inside a test": (
        "def test_it():\n    from rate.bucket import Bucket\n    Bucket(rate=1).tokens\n",
        [(4, "keyword", "rate"), (4, "attribute", "tokens")],
    ),
    # not clearly the component: never reported
    "a class of the same name defined in the file": (
        "class Bucket:\n    pass\nBucket(refill_rate=1)\n",
        [],
    ),
    "the name rebound": ("Bucket = dict\nBucket(refill_rate=1)\n", []),
    "a variable that is also something else": (
        "b = Bucket(5, 1.0)\nb = object()\nb.tokens\n",
        [],
    ),
    "a variable unpacked": ("b, c = Bucket(5, 1.0), 1\nb.tokens\n", []),
    "an instance kept on self": (
        "class TestB:\n    def setup_method(self):\n        self.b = Bucket(5, 1.0)\n"
        "    def test_it(self):\n        self.b.tokens\n",
        [],
    ),
    "an instance from a helper": ("def make():\n    return Bucket(5, 1.0)\nmake().tokens\n", []),
    "a parameter that is not a fixture": ("def test_it(b):\n    b.tokens\n", []),
    "a file that does not parse": ("def test_it(:\n    Bucket(refill_rate=1)\n", []),
}

FIXTURES = {
    "a fixture that returns an instance": (
        "import pytest\n\n@pytest.fixture\ndef bucket():\n    return Bucket(5, 1.0)\n\n"
        "class TestBucket:\n    def test_it(self, bucket):\n        bucket.tokens\n",
        [(10, "attribute", "tokens")],
    ),
    "a fixture that yields a named instance": (
        "from pytest import fixture\n\n@fixture()\ndef bucket():\n    b = Bucket(5, 1.0)\n"
        "    yield b\n\ndef test_it(bucket):\n    bucket.refill()\n",
        [(10, "method", "refill")],
    ),
    "a fixture renamed with name=": (
        "import pytest\n\n@pytest.fixture(name='full')\ndef make_full():\n    return Bucket(5, 1.0)\n"
        "\ndef test_it(full):\n    full.tokens\n",
        [(9, "attribute", "tokens")],
    ),
    "a factory fixture": (
        "import pytest\n\n@pytest.fixture\ndef make_bucket():\n    def make(capacity):\n"
        "        return Bucket(capacity, 1.0)\n\n    return make\n\n"
        "def test_it(make_bucket):\n    b = make_bucket(2)\n    b.tokens\n    make_bucket(3).level\n",
        [(13, "attribute", "tokens"), (14, "attribute", "level")],
    ),
    "a lambda factory fixture": (
        "import pytest\n\n@pytest.fixture\ndef make():\n    return lambda: Bucket(5, 1.0)\n\n"
        "def test_it(make):\n    make().drain()\n",
        [(9, "method", "drain")],
    ),
    "a factory that makes something else too": (
        "import pytest\n\n@pytest.fixture\ndef make_bucket():\n    def make(full):\n"
        "        if full:\n            return Bucket(5, 1.0)\n        return None\n\n"
        "    return make\n\ndef test_it(make_bucket):\n    make_bucket(1).tokens\n",
        [],
    ),
    "a factory the test rebinds": (
        "import pytest\n\n@pytest.fixture\ndef make():\n    return lambda: Bucket(5, 1.0)\n\n"
        "def test_it(make):\n    make = dict\n    make().tokens\n",
        [],
    ),
    "a fixture that returns something else too": (
        "import pytest\n\n@pytest.fixture\ndef bucket(request):\n    if request.param:\n"
        "        return Bucket(5, 1.0)\n    return None\n\ndef test_it(bucket):\n    bucket.tokens\n",
        [],
    ),
    "a fixture's name parametrized by the test": (
        "import pytest\n\n@pytest.fixture\ndef bucket():\n    return Bucket(5, 1.0)\n\n"
        "@pytest.mark.parametrize('bucket', [1])\ndef test_it(bucket):\n    bucket.tokens\n",
        [],
    ),
    "a test that reassigns the fixture's name": (
        "import pytest\n\n@pytest.fixture\ndef bucket():\n    return Bucket(5, 1.0)\n\n"
        "def test_it(bucket):\n    bucket = bucket.available()\n    bucket.tokens\n",
        [],
    ),
}


@pytest.mark.parametrize(("source", "expected"), CASES.values(), ids=list(CASES))
def test_uses_the_spec_does_not_declare(source: str, expected: list[tuple[int, str, str]]) -> None:
    found = check_tests(SPEC, {"tests/test_rate.py": IMPORT + source})
    assert [(m.line, m.kind, m.name) for m in found] == expected


@pytest.mark.parametrize(("source", "expected"), FIXTURES.values(), ids=list(FIXTURES))
def test_instances_from_fixtures(source: str, expected: list[tuple[int, str, str]]) -> None:
    found = check_tests(SPEC, {"tests/test_rate.py": IMPORT + source})
    assert [(m.line, m.kind, m.name) for m in found] == expected


def test_a_fixture_in_a_conftest_serves_the_tests_of_another_file() -> None:
    conftest = (
        IMPORT + "import pytest\n\n@pytest.fixture\ndef bucket():\n    return Bucket(5, 1.0)\n"
    )
    tests = "def test_it(bucket):\n    bucket.tokens\n"
    found = check_tests(SPEC, {"tests/conftest.py": conftest, "tests/test_b.py": tests})
    assert [(m.path, m.line, m.name) for m in found] == [("tests/test_b.py", 2, "tokens")]


def test_a_fixture_defined_twice_differently_is_not_trusted() -> None:
    one = IMPORT + "import pytest\n\n@pytest.fixture\ndef bucket():\n    return Bucket(5, 1.0)\n"
    two = "import pytest\n\n@pytest.fixture\ndef bucket():\n    return {}\n"
    tests = "def test_it(bucket):\n    bucket.tokens\n"
    sources = {"tests/a/conftest.py": one, "tests/b/conftest.py": two, "tests/test_b.py": tests}
    assert check_tests(SPEC, sources) == []


def test_the_message_quotes_the_spec() -> None:
    source = textwrap.dedent(
        """\
        def test_it():
            b = Bucket(capacity=5, refill_rate=1)
            b.tokens
        """
    )
    found = check_tests(SPEC, {"tests/test_rate.py": IMPORT + source})
    assert [m.message for m in found] == [
        "tests/test_rate.py:3: Bucket(refill_rate=...): the spec's signature has no parameter"
        " 'refill_rate' (spec: Bucket(capacity: int, refill_per_second: float))",
        "tests/test_rate.py:4: Bucket.tokens is not in the spec's interface of Bucket"
        " (it declares available, capacity, take)",
    ]
    assert {(m.component, m.path) for m in found} == {("Bucket", "tests/test_rate.py")}


def test_an_import_from_a_module_the_spec_does_not_name_is_not_the_component() -> None:
    source = "from elsewhere import Bucket\nBucket(refill_rate=1)\n"
    assert check_tests(SPEC, {"tests/test_rate.py": source}) == []


def _params(*names: str) -> list[ParamInfo]:
    """``"a"``, ``"b="`` (a default), ``"*args"``, ``"**kw"``, ``"k*"`` (keyword-only)."""
    found: list[ParamInfo] = []
    for name in names:
        kind = "positional_or_keyword"
        if name.startswith("**"):
            kind, name = "var_keyword", name[2:]
        elif name.startswith("*"):
            kind, name = "var_positional", name[1:]
        elif name.endswith("*"):
            kind, name = "keyword_only", name[:-1]
        default = name.endswith("=")
        found.append({"name": name.rstrip("="), "kind": kind, "has_default": default})
    return found


@pytest.mark.parametrize(
    ("spec", "code", "problems"),
    [
        ("f(a, b)", ["a", "b"], []),
        ("f(a, b=1)", ["a", "b="], []),
        ("f(a, b)", ["a", "b="], []),  # a default the spec does not give: still compatible
        ("f(self, a)", ["a"], []),
        ("f(a, *, key)", ["a", "key*"], []),
        ("f(a, b)", ["a", "**kw"], []),  # **kw takes b
        ("f(a, **options)", ["a", "**options"], []),
        ("f(a, b)", ["a"], ["no parameter 'b'"]),
        ("f(a, b)", ["a", "b", "c="], ["parameter 'c' is not in the spec"]),
        (
            "TokenBucket(capacity, refill_per_second)",
            ["capacity", "refill_per_second=", "refill_rate="],
            ["parameter 'refill_rate' is not in the spec"],
        ),
        ("f(a, b)", ["b", "a"], ["the parameters are in another order"]),
        ("f(a, b=1)", ["a", "b"], ["'b' has no default (the spec gives one)"]),
        ("f(a)", ["x"], ["no parameter 'a'", "parameter 'x' is not in the spec"]),
    ],
)
def test_parameter_differences(spec: str, code: list[str], problems: list[str]) -> None:
    parsed = parse_parameters(spec)
    assert parsed is not None
    assert parameter_differences(parsed, _params(*code)) == problems


def _cls(
    params: list[ParamInfo] | None, methods: dict[str, list[str]], **extra: object
) -> ObjectInfo:
    info: ObjectInfo = {
        "kind": "class",
        "parameters": params,
        "methods": {name: _params(*p) for name, p in methods.items()},
        "properties": [],
    }
    return {**info, **extra}


def _other(kind: str, params: list[ParamInfo] | None = None) -> ObjectInfo:
    return {"kind": kind, "parameters": params, "methods": {}, "properties": []}


GOOD_BUCKET = _cls(
    _params("capacity", "refill_per_second"),
    {"take": ["tokens="], "available": []},
)
GOOD = {
    "rate.bucket": {"error": "", "objects": {"Bucket": GOOD_BUCKET, "Empty": _other("exception")}},
    "rate.limiter": {"error": "", "objects": {"Limiter": _cls(_params("**options"), {})}},
    "rate.clock": {"error": "", "objects": {"Clock": _cls(_params(), {"now": []})}},
    "rate.parsing": {
        "error": "",
        "objects": {"parse_rate": _other("function", _params("text"))},
    },
}


def _with(module: str, name: str, info: ObjectInfo) -> dict[str, ModuleInfo]:
    found: dict[str, ModuleInfo] = {
        m: {"error": i["error"], "objects": dict(i["objects"])} for m, i in GOOD.items()
    }
    found[module]["objects"][name] = info
    return found


SIGNATURES = {
    "code as the spec says": (GOOD, []),
    "an alias keyword in the constructor": (
        _with(
            "rate.bucket",
            "Bucket",
            _cls(
                _params("capacity", "refill_per_second=", "refill_rate="),
                {"take": ["tokens="], "available": []},
            ),
        ),
        [("Bucket", "parameters", "parameter 'refill_rate' is not in the spec")],
    ),
    "a method missing": (
        _with(
            "rate.bucket",
            "Bucket",
            _cls(_params("capacity", "refill_per_second"), {"take": ["tokens="]}),
        ),
        [("Bucket.available", "missing", "the spec declares this method, the code has none")],
    ),
    "a method with another parameter": (
        _with(
            "rate.bucket",
            "Bucket",
            _cls(_params("capacity", "refill_per_second"), {"take": ["count="], "available": []}),
        ),
        [
            (
                "Bucket.take",
                "parameters",
                "no parameter 'tokens'; parameter 'count' is not in the spec",
            )
        ],
    ),
    "a public method the spec does not declare": (
        _with(
            "rate.bucket",
            "Bucket",
            _cls(
                _params("capacity", "refill_per_second"),
                {"take": ["tokens="], "available": [], "reset": []},
            ),
        ),
        [("Bucket.reset", "extra", "a public method the spec does not declare")],
    ),
    "a method that is a property": (
        _with(
            "rate.bucket",
            "Bucket",
            _cls(
                _params("capacity", "refill_per_second"),
                {"take": ["tokens="]},
                properties=["available"],
            ),
        ),
        [("Bucket.available", "parameters", "the spec declares a method, the code has a property")],
    ),
    "the class missing": (
        _with("rate.bucket", "Bucket", _other("missing")),
        [("rate.bucket.Bucket", "missing", "the spec declares this class, the code has none")],
    ),
    "an error missing": (
        _with("rate.bucket", "Empty", _other("missing")),
        [("rate.bucket.Empty", "missing", "the spec declares this error, the code has none")],
    ),
    "an error that is no exception": (
        _with("rate.bucket", "Empty", _cls(None, {})),
        [("rate.bucket.Empty", "parameters", "the code's is no exception")],
    ),
    "a function with another parameter": (
        _with("rate.parsing", "parse_rate", _other("function", _params("text", "unit="))),
        [("parse_rate", "parameters", "parameter 'unit' is not in the spec")],
    ),
    "a class with no methods listed: nothing extra": (
        _with("rate.clock", "Clock", _cls(_params("tz="), {"now": [], "tick": []})),
        [],
    ),
}


@pytest.mark.parametrize(("found", "expected"), SIGNATURES.values(), ids=list(SIGNATURES))
def test_the_codes_signatures_against_the_spec(
    found: dict[str, ModuleInfo], expected: list[tuple[str, str, str]]
) -> None:
    mismatches = check_signatures(SPEC, found)
    assert [(m.name, m.kind) for m in mismatches] == [(n, k) for n, k, _ in expected]
    for mismatch, (_, _, words) in zip(mismatches, expected, strict=True):
        assert words in mismatch.message


def test_a_module_that_does_not_import_is_one_mismatch_per_component() -> None:
    found = {**GOOD, "rate.bucket": {"error": "SyntaxError: invalid syntax", "objects": {}}}
    mismatches = check_signatures(SPEC, found)
    assert [(m.component, m.kind) for m in mismatches] == [("Bucket", "not_imported")]
    assert mismatches[0].message == "rate.bucket does not import: SyntaxError: invalid syntax"


def test_the_message_shows_both_signatures() -> None:
    found = _with(
        "rate.bucket",
        "Bucket",
        _cls(_params("capacity", "refill_rate", "*args"), {"take": ["tokens="], "available": []}),
    )
    assert [m.message for m in check_signatures(SPEC, found)] == [
        "Bucket: no parameter 'refill_per_second'; parameter 'refill_rate' is not in the spec"
        " (spec: Bucket(capacity: int, refill_per_second: float); code: (capacity, refill_rate, *args))"
    ]


def test_signature_request_asks_for_classes_functions_errors_and_exports() -> None:
    spec = SPEC.model_copy(
        update={"components": [*SPEC.components, Component(name="Loose", type="class")]}
    )
    assert signature_request(spec) == {
        "rate.bucket": ["Bucket", "Empty"],
        "rate.limiter": ["Limiter"],
        "rate.clock": ["Clock"],
        "rate.parsing": ["parse_rate"],
    }
