from __future__ import annotations

import textwrap

import pytest

from tddforge.decisions.spec_conformance import check_tests
from tddforge.spec import Spec

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
