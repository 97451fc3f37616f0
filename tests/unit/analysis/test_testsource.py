from __future__ import annotations

from tddforge.analysis.testsource import list_tests


def test_lists_functions_and_class_methods_with_their_text() -> None:
    source = (
        "# TC001\n"
        "def test_one():\n"
        '    """Doc one."""\n'
        "\n"
        "class TestThing:\n"
        "    async def test_two(self):\n"
        "        pass\n"
        "    def helper(self):\n"
        "        pass\n"
        "\n"
        "class Helper:\n"
        "    def test_not_collected(self):\n"
        "        pass\n"
    )
    tests = list_tests("tests/test_a.py", source)
    assert [t.nodeid for t in tests] == [
        "tests/test_a.py::test_one",
        "tests/test_a.py::TestThing::test_two",
    ]
    assert "TC001" in tests[0].text and "Doc one." in tests[0].text


def test_file_with_syntax_error_still_lists_its_tests() -> None:
    source = "class TestX:\n    # TC007\n    def test_a(self):\n        x = (\n\ndef test_b():\n    pass\n"
    tests = list_tests("t.py", source)
    assert [t.nodeid for t in tests] == ["t.py::TestX::test_a", "t.py::test_b"]
    assert "TC007" in tests[0].text


def test_unittest_classes_are_tests_under_any_name() -> None:
    source = (
        "import unittest\n"
        "class AreaTests(unittest.TestCase):\n"
        "    def test_square(self):\n"
        "        pass\n"
        "class Views(SimpleTestCase):\n"
        "    def test_index(self):\n"
        "        pass\n"
        "class Helper:\n"
        "    def test_not_collected(self):\n"
        "        pass\n"
    )
    assert [t.nodeid for t in list_tests("t.py", source)] == [
        "t.py::AreaTests::test_square",
        "t.py::Views::test_index",
    ]
