"""The Enhancer's instruction block: what the model is told, quoted and counted (tables)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tddforge.decisions.critique import (
    AttemptFacts,
    Critique,
    FailingTest,
    Survivor,
    critique,
    set_aside,
)
from tddforge.decisions.instructions import instruction_block, survivors_to_show
from tddforge.decisions.reliability import PostReliability, PreReliability

MODULE = '''"""Numbers."""


def classify(n):
    if n < 0:
        return "negative"
    if n > 100:
        return "large"
    return "positive"


class Box:
    def clamp(self, value, high):
        if value > high:
            return high
        return value
'''


def facts(**changes: object) -> AttemptFacts:
    base = AttemptFacts(
        syntax_ok=True,
        lint_issue_count=0,
        runner_error=None,
        tests_collected=5,
        coverage=40.0,
        mutation_score=30.0,
        pre=PreReliability("high", 0.1, 0),
        post=PostReliability("needs_review", ("coverage 40.00% below target 60.00%",)),
        coverage_target=60.0,
        mutation_target=50.0,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def mutant(n: int, verdict: str = "survived") -> Survivor:
    return Survivor(
        n, "number", f"    x = {n}", f"    x = {n + 1}", f"number@{n}:8#{n:08x}", verdict
    )


def test_missing_lines_are_asked_for_once_and_quoted_with_their_function() -> None:
    block = instruction_block(critique(facts(missing_lines=(8, 15))), MODULE)
    assert block.count("coverage for lines") == 1  # "Add ...", never "Increase ..." too
    assert "- Add coverage for lines: 8, 15." in block
    assert (
        "- The lines not run yet, as they stand in the module (number | code):\n"
        "    in classify:\n"
        '        8 |         return "large"\n'
        "    in Box.clamp:\n"
        "       15 |             return high"
    ) in block


def test_many_missing_lines_say_how_many_are_quoted() -> None:
    block = instruction_block(critique(facts(missing_lines=tuple(range(1, 18)))), MODULE)
    assert "- The lines not run yet (the first 10 of 17)" in block
    assert 'module level:\n        1 | """Numbers."""' in block


def test_branches_are_quoted_from_both_ends() -> None:
    block = instruction_block(critique(facts(missing_branches=((7, 8), (14, -13)))), MODULE)
    assert '    line 7 `if n > 100:` → line 8 `return "large"`' in block
    assert "    line 14 `if value > high:` → exit from Box.clamp" in block


def test_survivors_say_how_many_there_are_and_show_ids() -> None:
    survivors = tuple(mutant(n) for n in range(1, 37))
    block = instruction_block(critique(facts(survivors=survivors)), MODULE)
    assert "- 36 mutant(s) survived the tests (showing 10 of 36): the tests still pass" in block
    assert "    number@1:8#00000001, line 1: `x = 1` → `x = 2`" in block
    assert "number@11:8" not in block
    assert "`EQUIVALENT: <mutant id>: <reason>`" in block
    assert "still counts as a survivor" in block


def test_survivors_not_shown_before_come_first() -> None:
    survivors = tuple(mutant(n) for n in range(1, 13))
    shown = {s.id for s in survivors[:10]}
    block = instruction_block(critique(facts(survivors=survivors)), MODULE, shown=shown)
    assert "(showing 10 of 12, the ones not shown before first)" in block
    listed = [line for line in block.splitlines() if line.startswith("    number@")]
    assert [line.split(",")[0].strip() for line in listed[:3]] == [
        "number@11:8#0000000b",
        "number@12:8#0000000c",
        "number@1:8#00000001",
    ]


def test_timeouts_and_uncovered_mutants_are_shown_and_said() -> None:
    c = critique(facts(survivors=(mutant(3, "timeout"), mutant(4, "no-coverage"))))
    block = instruction_block(c, MODULE)
    assert "- 2 mutant(s) survived the tests (all 2 shown)" in block
    assert "line 3 (timed out: with this change the tests ran out of time" in block
    assert "line 4 (no test runs this line)" in block


def test_equivalent_mutants_are_counted_not_listed() -> None:
    survivors = (mutant(1), mutant(2), mutant(3))
    c = critique(
        facts(
            survivors=survivors,
            likely_equivalent={survivors[0].id: "split's maxsplit raised"},
            claimed_equivalent={survivors[1].id: "n is never negative"},
        )
    )
    assert [s.id for s in c.survivors] == [survivors[2].id]
    assert c.likely_equivalent[0].note == "split's maxsplit raised"
    assert c.claimed_equivalent[0].note == "n is never negative"
    block = instruction_block(c, MODULE)
    assert "- 1 mutant(s) survived the tests (all 1 shown)" in block
    assert "- Not listed: 1 likely equivalent and 1 you claimed equivalent." in block
    assert survivors[0].id not in block and survivors[1].id not in block


def test_only_equivalent_survivors_left_gives_no_equivalent_instruction() -> None:
    only = mutant(1)
    c = critique(facts(survivors=(only,), claimed_equivalent={only.id: "dead code"}))
    block = instruction_block(c, MODULE)
    assert "Not listed: 1 you claimed equivalent." in block
    assert "EQUIVALENT" not in block


def test_failing_tests_are_listed() -> None:
    c = critique(facts(failing=(FailingTest("test_x", "AssertionError", "assert 1 == 2\nmore"),)))
    assert "    test_x: AssertionError: assert 1 == 2" in instruction_block(c, MODULE)


@pytest.mark.parametrize(
    ("shown", "limit", "expected"),
    [
        (set(), 2, [1, 2]),
        ({1}, 2, [2, 3]),
        ({1, 2, 3}, 2, [1, 2]),  # all shown before: by line again
        ({2}, 5, [1, 3, 2]),
        (set(), 0, []),
    ],
)
def test_survivors_to_show(shown: set[int], limit: int, expected: list[int]) -> None:
    survivors = [mutant(n) for n in (1, 2, 3)]
    ids = {mutant(n).id for n in shown}
    assert [s.line for s in survivors_to_show(survivors, limit, ids)] == expected


@pytest.mark.parametrize(
    ("likely", "claimed", "left", "rules", "claims"),
    [
        ({}, {}, [1, 2], [], []),
        ({1: "rule"}, {}, [2], [1], []),
        ({1: "rule"}, {1: "claim"}, [2], [], [1]),  # a claim wins over a rule
        ({}, {2: "claim"}, [1], [], [2]),
    ],
)
def test_set_aside(likely, claimed, left, rules, claims) -> None:
    survivors = (mutant(1), mutant(2))

    def ids(table: dict[int, str]) -> dict[str, str]:
        return {mutant(n).id: why for n, why in table.items()}

    out = set_aside(survivors, ids(likely), ids(claimed))
    assert [[s.line for s in group] for group in out] == [left, rules, claims]


def test_a_critique_with_nothing_to_say_gives_the_default() -> None:
    c = Critique(False, False, False, False, 80.0, 0, None, None, (), ())
    assert instruction_block(c, MODULE).startswith("- Improve coverage and robustness")


def test_the_static_findings_are_listed_under_the_instruction_that_counts_them() -> None:
    findings = tuple(f"line {n}: ruff F401: `os` imported but unused" for n in range(1, 13))
    block = instruction_block(critique(facts(lint_issue_count=12, findings=findings)), MODULE)
    assert "- Resolve 12 lint/type errors reported by available tools." in block
    assert "- What the static checks found in the current suite (the first 10 of 12):" in block
    assert "    line 10: ruff F401: `os` imported but unused" in block
    assert "line 11:" not in block
