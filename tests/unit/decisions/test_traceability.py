from __future__ import annotations

from tddforge.analysis.testsource import list_tests
from tddforge.decisions.traceability import trace

SOURCE = '''
import pytest


class TestCalculator:
    """Calculator behaviour."""

    # TC001: adding two numbers
    def test_add_returns_sum(self):
        """Given two numbers, when added, then the sum."""

    def test_tc002_divide_by_zero_raises(self):
        pass

    @pytest.mark.parametrize("a", [1, 2])
    def test_negative(self, a):
        """Covers TC-003 and tc0010 (a different case)."""


def test_unrelated():
    pass
'''


def test_cases_map_to_tests_through_comments_names_and_docstrings() -> None:
    tests = list_tests("tests/test_calc.py", SOURCE)
    nodeids = [
        "tests/test_calc.py::TestCalculator::test_add_returns_sum",
        "tests/test_calc.py::TestCalculator::test_tc002_divide_by_zero_raises",
        "tests/test_calc.py::TestCalculator::test_negative[1]",
        "tests/test_calc.py::TestCalculator::test_negative[2]",
        "tests/test_calc.py::test_unrelated",
    ]
    result = trace(["TC001", "TC002", "TC003", "TC004", "TC010", "TC0010"], tests, nodeids)
    assert result.cases["TC001"] == ["tests/test_calc.py::TestCalculator::test_add_returns_sum"]
    assert result.cases["TC002"] == [
        "tests/test_calc.py::TestCalculator::test_tc002_divide_by_zero_raises"
    ]
    assert result.cases["TC003"] == nodeids[2:4]
    assert result.cases["TC0010"] == nodeids[2:4]
    assert result.uncovered == ["TC004", "TC010"]
    assert result.untraced_tests == ["tests/test_calc.py::test_unrelated"]


def test_tc001_is_not_tc0010() -> None:
    tests = list_tests("t.py", "def test_tc0010_x():\n    pass\n")
    assert trace(["TC001"], tests, ["t.py::test_tc0010_x"]).uncovered == ["TC001"]
