"""The baseline's tests cut into parts at file boundaries (``target.split``)."""

from __future__ import annotations

import pytest

from tddforge.target.split import file_of, split


def _files(counts: dict[str, int]) -> list[str]:
    return [name for name, count in counts.items() for _ in range(count)]


@pytest.mark.parametrize(
    ("counts", "parts", "expected"),
    [
        ({"a.py": 4, "b.py": 4}, 2, [(0, 4), (4, 8)]),
        ({"a.py": 4, "b.py": 4}, 1, [(0, 8)]),
        # one file cannot be cut, whatever the workers
        ({"a.py": 9}, 4, [(0, 9)]),
        # the cut nearest the even share: after 3 (of 10) rather than after 8
        ({"a.py": 3, "b.py": 5, "c.py": 2}, 2, [(0, 3), (3, 10)]),
        ({"a.py": 6, "b.py": 1, "c.py": 3}, 2, [(0, 6), (6, 10)]),
        # more workers than files: as many parts as files
        ({"a.py": 2, "b.py": 2}, 4, [(0, 2), (2, 4)]),
        ({"a.py": 1, "b.py": 1, "c.py": 1, "d.py": 1}, 2, [(0, 2), (2, 4)]),
        ({"a.py": 3, "b.py": 3, "c.py": 3}, 3, [(0, 3), (3, 6), (6, 9)]),
        ({}, 2, []),
    ],
)
def test_tests_are_cut_at_file_boundaries_near_even_shares(
    counts: dict[str, int], parts: int, expected: list[tuple[int, int]]
) -> None:
    files = _files(counts)
    found = split(files, parts)
    assert found == expected
    assert [i for start, end in found for i in range(start, end)] == list(range(len(files)))


def test_a_file_coming_back_later_is_another_run_of_it() -> None:
    files = ["a.py", "a.py", "b.py", "a.py"]
    assert split(files, 2) == [(0, 2), (2, 4)]


def test_the_file_of_a_test() -> None:
    assert file_of("tests/test_x.py::TestA::test_b[1-2]") == "tests/test_x.py"
    assert file_of("tests/test_x.py") == "tests/test_x.py"
