"""The pure pieces of a run over many modules: the work's order, import shapes, which
tests an edit changes, and the report's totals."""

from __future__ import annotations

from tddforge.mutation.cache import CacheEntry, ModuleEntry, text_hash, unchanged_tests
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.project import ProjectReport
from tddforge.mutation.report import MutantResult, MutationReport
from tddforge.mutation.shapes import import_run, import_shape
from tddforge.target.order import Neighbours, schedule
from tddforge.target.protocol import MutantRecord


def _record(target: str, line: int, function: str = "f") -> MutantRecord:
    return MutantRecord(
        id=f"{target}:{line}",
        operator="number",
        line=line,
        col=0,
        end_line=line,
        end_col=1,
        original="1",
        replacement="2",
        strategy="graft",
        graft_name=function,
        graft_firstlineno=1,
        target=target,
    )


def test_the_costliest_module_starts_first_each_in_source_order() -> None:
    work = [
        (_record("cheap.py", 3), 0.001),
        (_record("dear.py", 9), 0.5),
        (_record("cheap.py", 1), 0.001),
        (_record("dear.py", 2), 0.1),
    ]
    ordered = schedule(work, lambda w: w[0], lambda m: m["target"], lambda w: w[1])
    assert [w[0]["id"] for w in ordered] == ["dear.py:2", "dear.py:9", "cheap.py:1", "cheap.py:3"]


def test_the_tests_that_killed_a_neighbour_run_first() -> None:
    neighbours = Neighbours(lambda m: m["target"])
    tests = ["t::fast", "t::mid", "t::slow"]
    assert neighbours.first(_record("a.py", 5), tests) == tests  # nothing known yet
    neighbours.killed(_record("a.py", 4), "t::slow")  # same function, another line
    neighbours.killed(_record("a.py", 5), "t::mid")  # same line
    assert neighbours.first(_record("a.py", 5), tests) == ["t::mid", "t::slow", "t::fast"]
    assert neighbours.first(_record("a.py", 7), tests) == ["t::mid", "t::slow", "t::fast"]
    assert neighbours.first(_record("a.py", 7, "g"), tests) == tests  # another function
    assert neighbours.first(_record("b.py", 5), tests) == tests  # another module
    assert neighbours.first(_record("a.py", 5), ["t::fast"]) == ["t::fast"]  # only its own tests


MODULE = '''\
TABLE = {"a": 1}


def helper():
    """Doc."""
    return 1


def setup():
    return 2


REGISTRY = setup()
'''


def test_an_edit_inside_a_function_body_keeps_the_import_shape() -> None:
    shape = import_shape(MODULE, set())
    assert import_shape(MODULE.replace("return 1", "return 7"), set()) == shape
    assert import_shape(MODULE.replace('"a": 1', '"a": 2'), set()) != shape  # data
    assert import_shape(MODULE.replace('"""Doc."""', '"""Other."""'), set()) != shape
    assert import_shape(MODULE.replace("def helper():", "def helper(x=1):"), set()) != shape
    # a function that runs at import (setup, called by the module) is part of the shape
    ran = import_run(MODULE, {10})
    assert ran == ["setup"]
    assert import_shape(MODULE.replace("return 2", "return 3"), set(ran)) != import_shape(
        MODULE, set(ran)
    )


def _entry(source: str) -> ModuleEntry:
    return ModuleEntry(text_hash(source), import_shape(source, set()), [], {})


def test_an_edited_module_changes_only_the_tests_that_ran_it() -> None:
    prints = {"t.py::test_a": "1", "t.py::test_b": "2", "t.py::TestC::*": "3"}
    prior = CacheEntry(
        fingerprints=dict(prints),
        modules={"m.py": _entry(MODULE), "n.py": _entry("X = 1\n")},
        baseline={
            "t.py::test_a": {"outcome": "passed", "duration": 0.1, "lines": {"m.py": [6]}},
            "t.py::test_b": {"outcome": "passed", "duration": 0.1, "lines": {"n.py": [1]}},
            "t.py::TestC::test_c": {"outcome": "passed", "duration": 0.1, "lines": {"m.py": [6]}},
        },  # type: ignore[typeddict-item]
        others="o",
    )
    same = {"m.py": MODULE, "n.py": "X = 1\n"}
    assert unchanged_tests(prior, prints, same, "o") == sorted(prints)
    body_edit = {**same, "m.py": MODULE.replace("return 1", "return 7")}
    assert unchanged_tests(prior, prints, body_edit, "o") == ["t.py::test_b"]
    data_edit = {**same, "m.py": MODULE.replace('"a": 1', '"a": 2')}
    assert unchanged_tests(prior, prints, data_edit, "o") == []  # what runs at import
    assert unchanged_tests(prior, prints, same, "other files edited") == []
    edited_test = {**prints, "t.py::test_b": "2b"}
    assert unchanged_tests(prior, edited_test, same, "o") == ["t.py::TestC::*", "t.py::test_a"]


def _module(name: str, verdicts: list[str], source: str = "x = 1\n") -> MutationReport:
    results = [
        MutantResult(Mutant(f"{name}{i}", "number", 1, 4, 1, 5, "1", "2"), v)
        for i, v in enumerate(verdicts)
    ]
    return MutationReport(name, source, results, 3, 1.0)


def test_the_project_report_totals_and_its_tables() -> None:
    split = 's.split("+", 1)\n'
    equivalent = MutantResult(
        Mutant("eq", "number", 1, 13, 1, 14, "1", "2"), "survived"
    )  # split's maxsplit raised: likely equivalent
    a = _module("a.py", ["killed", "killed", "survived", "no-coverage"])
    b = MutationReport("b.py", split, [equivalent, *_module("b", ["killed"]).results], 3, 1.0)
    report = ProjectReport([a, b], tests=3, elapsed=2.0, since_ref="main")
    data = report.to_data(every=True)
    assert data["totals"]["counts"]["killed"] == 3 and data["totals"]["mutants"] == 6
    assert data["totals"]["score"] == 75.0  # 3 / (3 + 2 - 1 likely equivalent)
    assert data["totals"]["score_counting_equivalent"] == 60.0
    assert data["totals"]["strict_score"] == 50.0
    assert [row["module"] for row in data["modules"]] == ["a.py", "b.py"]
    assert data["modules"][1]["score"] == 100.0  # b's only survivor is likely equivalent
    assert data["modules"][0]["chart"]["by_operator"]["number"] == {
        "killed": 2,
        "survived": 1,
        "no-coverage": 1,
    }
    assert len(data["all_mutants"]) == 6
    assert {"line", "col", "end_line", "end_col", "killer"} <= set(data["all_mutants"][0])
    assert [s["module"] for s in data["survivors"]] == ["a.py", "a.py", "b.py"]
    markdown = report.to_markdown(limit=1)
    assert "| `a.py` | 4 | 2 | 1 | 0 | 1 | 66.67% |" in markdown
    assert "| **total** | 6 | 3 | 2 | 0 | 1 | 75.00% |" in markdown
    assert "changed since `main`" in markdown and "… and 2 more" in markdown
