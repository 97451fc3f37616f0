"""Sample projects and scripted suites for the ``tddforge cover`` end-to-end tests."""

from __future__ import annotations

from pathlib import Path

NUMBERS = '''"""Small numeric helpers."""


def add(a, b):
    return a + b


def classify(n):
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    if n > 100:
        return "large"
    return "positive"


def safe_div(a, b):
    if b == 0:
        raise ZeroDivisionError("b is zero")
    return a / b


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value
'''

SUITE_0 = """from numbers_mod import add


def test_add():
    assert add(2, 3) == 5
"""

SUITE_1 = """```python
from numbers_mod import add, classify


def test_add():
    assert add(2, 3) == 5


def test_classify_negative():
    assert classify(-1) == "negative"


def test_classify_zero():
    assert classify(0) == "zero"
```
"""

SUITE_2 = """from numbers_mod import add, clamp, classify, safe_div

import pytest


def test_add():
    assert add(2, 3) == 5


def test_classify_negative():
    assert classify(-1) == "negative"


def test_classify_zero():
    assert classify(0) == "zero"


def test_classify_large_and_positive():
    assert classify(101) == "large"
    assert classify(100) == "positive"
    assert classify(1) == "positive"


def test_safe_div():
    assert safe_div(6, 3) == 2
    with pytest.raises(ZeroDivisionError):
        safe_div(1, 0)


def test_clamp():
    assert clamp(-1, 0, 10) == 0
    assert clamp(11, 0, 10) == 10
    assert clamp(10, 0, 10) == 10
    assert clamp(0, 0, 10) == 0
    assert clamp(5, 0, 10) == 5
"""


def numbers_project(root: Path, *, pytest_tests: bool = True) -> Path:
    """A flat project: ``numbers_mod.py`` at the root, an existing pytest test in tests/."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "numbers_mod.py").write_text(NUMBERS)
    (root / "tests").mkdir()
    if pytest_tests:
        (root / "tests" / "test_existing.py").write_text(
            "from numbers_mod import add\n\n\ndef test_existing():\n    assert add(1, 1) == 2\n"
        )
    (root / "pyproject.toml").write_text("[tool.tddforge.cover]\nmypy = false\n")
    return root


BROKEN_SYNTAX = "from numbers_mod import add\n\ndef test_add(:\n    assert add(2, 3) == 5\n"

FLAKY_SUITE = """from pathlib import Path

from numbers_mod import add, classify

# in the project's root, where a test may add a file: the first run makes it; the runs
# after find it there and, with the project's own files read-only to them (bubblewrap,
# namespaces), may read it and not write it, so the test fails after passing once
COUNTER = Path(__file__).parent.parent / ".runs"


def test_add():
    assert add(2, 3) == 5


def test_classify():
    assert classify(-3) == "negative"
    assert classify(0) == "zero"


def test_flaky_every_other_run():
    count = int(COUNTER.read_text()) if COUNTER.exists() else 0
    COUNTER.write_text(str(count + 1))
    assert count % 2 == 0


def test_writes_the_module():
    Path(__file__).parent.parent.joinpath("numbers_mod.py").write_text("def add(a, b):\\n    return 0\\n")
    assert add(1, 1) == 2
"""

# the first test closes every descriptor past stderr, pytest's own files among them: the run
# ends there, so in every order the tests after it never run
BREAKER_SUITE = """import os

from numbers_mod import add, classify, clamp


def test_add_after_closing_descriptors():
    os.closerange(3, 1024)
    assert add(1, 2) == 3


def test_classify():
    assert classify(-3) == "negative"
    assert classify(0) == "zero"


def test_clamp():
    assert clamp(5, 0, 3) == 3
    assert clamp(-1, 0, 3) == 0


def test_add():
    assert add(2, 3) == 5
"""

# classify(100) is "positive" in NUMBERS; a module with an off-by-one says "large".
BUGGY = NUMBERS.replace("if n > 100:", "if n >= 100:")

BUG_SUITE = """from numbers_mod import classify


def test_classify_negative():
    assert classify(-1) == "negative"


def test_classify_hundred_is_positive():
    assert classify(100) == "positive"
"""

UNITTEST_SUITE = """import os
import unittest

from shapes.area import rectangle, square


class AreaTests(unittest.TestCase):
    def test_rectangle(self):
        self.assertEqual(rectangle(2, 3), 6)

    def test_rectangle_rejects_negative(self):
        with self.assertRaises(ValueError):
            rectangle(-1, 3)

    def test_square(self):
        self.assertEqual(square(4), 16)

    def test_project_conftest_applied(self):
        self.assertEqual(os.environ.get("SHAPES_CONFTEST"), "1")
"""


def shapes_project(root: Path) -> Path:
    """A src/ layout with unittest tests, a conftest, and setup.cfg addopts needing pytest-cov."""
    pkg = root / "src" / "shapes"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "area.py").write_text(
        "def rectangle(w, h):\n    if w < 0 or h < 0:\n        raise ValueError('negative')\n"
        "    return w * h\n\n\ndef square(side):\n    return rectangle(side, side)\n"
    )
    (root / "tests").mkdir()
    (root / "tests" / "test_old.py").write_text(
        "import unittest\n\n\nclass OldTests(unittest.TestCase):\n    def test_nothing(self):\n"
        "        self.assertTrue(1)\n"
    )
    (root / "tests" / "conftest.py").write_text(
        "import os\n\n\ndef pytest_configure(config):\n    os.environ['SHAPES_CONFTEST'] = '1'\n"
    )
    (root / "setup.cfg").write_text("[tool:pytest]\naddopts = --cov=shapes --cov-report=term\n")
    (root / "pyproject.toml").write_text("[tool.tddforge.cover]\nmypy = false\n")
    return root
