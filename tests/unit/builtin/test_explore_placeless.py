"""Nothing a generated test asserts may hold where the project lives (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome, placeless

ROOT = Path("/home/alice/checkout")
HERE = "/home/alice/checkout"


def _one(outcome: Outcome) -> Outcome:
    result = CallResult(Call("Path"), frozenset(), outcome, True, stable_repr=True)
    return placeless([result], ROOT)[0].outcome


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        # a literal holding the checkout's path: only its type is asserted
        (
            Outcome("return", "str", "builtins", repr=repr(HERE + "/x"), literal=True),
            Outcome("return", "str", "builtins", varies=True),
        ),
        # a non-literal one, its repr naming the path
        (
            Outcome("return", "Path", "environ", repr=f"<Path:{HERE}>"),
            Outcome("return", "Path", "environ", varies=True),
        ),
        # an exception whose message names it: raised, not matched
        (
            Outcome("raise", "IsADirectoryError", "builtins", message=f"Is a directory: '{HERE}'"),
            Outcome("raise", "IsADirectoryError", "builtins"),
        ),
        # an attribute holding it is left out, the others kept
        (
            Outcome(
                "return",
                "Env",
                "environ",
                repr="<Env>",
                state=(("root", repr(HERE)), ("scheme", "'http'")),
            ),
            Outcome("return", "Env", "environ", repr="<Env>", state=(("scheme", "'http'"),)),
        ),
        # its parent (``~path``): this machine's place too
        (
            Outcome("return", "Path", "environ", repr="<Path:/home/alice>"),
            Outcome("return", "Path", "environ", varies=True),
        ),
        # nothing of the checkout's: unchanged, a name one of its places begins
        # (``/home/alice2``) and a path elsewhere included
        (
            Outcome("return", "str", "builtins", repr="'/home/alice2/x'", literal=True),
            Outcome("return", "str", "builtins", repr="'/home/alice2/x'", literal=True),
        ),
        (
            Outcome("return", "str", "builtins", repr="'/etc/hosts'", literal=True),
            Outcome("return", "str", "builtins", repr="'/etc/hosts'", literal=True),
        ),
    ],
)
def test_values_holding_the_checkouts_path_are_not_asserted(
    outcome: Outcome, expected: Outcome
) -> None:
    assert _one(outcome) == expected
