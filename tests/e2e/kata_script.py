"""Scripted model replies for FizzBuzz sessions: the tests and code a model would write."""

from __future__ import annotations

from .conftest import file_block

TEST_PATH = "tests/test_fizzbuzz.py"
CODE_PATH = "fizzbuzz.py"
STATUS = (
    "\n---\nSUCCESS: true\nMESSAGE: {msg}\nFILES_MODIFIED: {files}\nTESTS_PASSED: {passed}\n---\n"
)

_TESTS = [
    ("test_one_is_returned_as_a_string", 'assert fizzbuzz(1) == "1"'),
    ("test_three_is_fizz", 'assert fizzbuzz(3) == "Fizz"'),
    ("test_five_is_buzz", 'assert fizzbuzz(5) == "Buzz"'),
    ("test_fifteen_is_fizzbuzz", 'assert fizzbuzz(15) == "FizzBuzz"'),
]
_CODE = [
    "def fizzbuzz(n):\n    return str(n)\n",
    'def fizzbuzz(n):\n    if n % 3 == 0:\n        return "Fizz"\n    return str(n)\n',
    'def fizzbuzz(n):\n    if n % 3 == 0:\n        return "Fizz"\n    if n % 5 == 0:\n        return "Buzz"\n    return str(n)\n',
    'def fizzbuzz(n):\n    if n % 15 == 0:\n        return "FizzBuzz"\n    if n % 3 == 0:\n        return "Fizz"\n    if n % 5 == 0:\n        return "Buzz"\n    return str(n)\n',
]
REFACTORED = (
    'RULES = ((15, "FizzBuzz"), (3, "Fizz"), (5, "Buzz"))\n\n\n'
    "def fizzbuzz(n):\n"
    "    for divisor, word in RULES:\n"
    "        if n % divisor == 0:\n"
    "            return word\n"
    "    return str(n)\n"
)


def test_source(count: int, extra: str = "") -> str:
    """The test file holding the first ``count`` tests (plus ``extra`` source)."""
    parts = ["from fizzbuzz import fizzbuzz\n"]
    for name, body in _TESTS[:count]:
        parts.append(f"\n\ndef {name}():\n    {body}\n")
    return "".join(parts) + extra


def tester(count: int, extra: str = "") -> str:
    """The Tester's reply for cycle ``count``."""
    name = _TESTS[count - 1][0] if count else "none"
    status = STATUS.format(msg=name, files=TEST_PATH, passed="false")
    return "Next test.\n\n" + file_block(TEST_PATH, test_source(count, extra)) + status


def implementer(count: int) -> str:
    """The Implementer's reply making ``count`` tests pass."""
    status = STATUS.format(msg="implemented", files=CODE_PATH, passed="true")
    return file_block(CODE_PATH, _CODE[count - 1]) + status


def code(count: int) -> str:
    """The implementation after cycle ``count``."""
    return _CODE[count - 1]


def refactorer(source: str = REFACTORED, msg: str = "table of rules") -> str:
    """A refactoring reply."""
    status = STATUS.format(msg=msg, files=CODE_PATH, passed="true")
    return file_block(CODE_PATH, source) + status


NO_CHANGES = "The code is clean.\n\nNO_CHANGES\n"
KATA_COMPLETE = "Every rule is specified.\n\nKATA_COMPLETE\n"
