"""RED validation: pure decisions about whether freshly written tests are red for the right reason.

A test is *validly red* when it fails on an assertion (``AssertionError``, or
pytest's ``Failed`` from ``pytest.raises``/``pytest.fail``), on
``NotImplementedError`` raised by a stub of the unit, or on
ImportError/ModuleNotFoundError/AttributeError/NameError for a name the spec
says its components provide. Any other failure (a SyntaxError, a missing
fixture, an import of something the spec never mentions, a TypeError in the
test's own code, a timeout) is *invalid red*: the test is broken, not red.

The RED as a whole is valid when tests ran, none is invalid red, at least one
is validly red, and the share of passing tests stays within ``max_pass_ratio``
(no passes at all when ``allow_some_passes`` is off).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tddforge.target.names import CANNOT_IMPORT, MISSING_IN_MESSAGE
from tddforge.types import TestStatus

#: pytest's message when ``pytest.raises(X)`` saw no exception: ``DID NOT RAISE <class 'X'>``.
DID_NOT_RAISE = re.compile(r"DID NOT RAISE\b")
_CLASS_NAME = re.compile(r"<class '(?:[\w.]+\.)?(\w+)'>")
#: Failures that are red for the right reason whatever the message: an assertion, a stub.
ALWAYS_RED_KINDS = frozenset({"AssertionError", "Failed", "NotImplementedError"})
#: Failures that are red for the right reason when the missing name is the spec's.
MISSING_NAME_KINDS = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "NameError"}
)


@dataclass(frozen=True)
class TestFact:
    """What the runner measured for one test, reduced to what validation needs."""

    __test__ = False

    name: str
    status: TestStatus
    failure_kind: str | None = None
    missing_name: str | None = None
    message: str | None = None
    #: The file the failure was raised in (the innermost frame), when known.
    raised_in: str | None = None


@dataclass(frozen=True)
class Classification:
    """Why a failing test is, or is not, validly red."""

    valid: bool
    reason: str


@dataclass(frozen=True)
class RedPolicy:
    """The validation keys of the RED stage config."""

    allow_some_passes: bool = True
    max_pass_ratio: float = 0.3


@dataclass(frozen=True)
class InvalidRed:
    """A failing test that is broken rather than red."""

    name: str
    failure_kind: str
    reason: str


@dataclass(frozen=True)
class RedVerdict:
    """The outcome of validating a RED run."""

    valid: bool
    failing_tests: tuple[str, ...]
    unexpected_passes: tuple[str, ...]
    invalid_red: tuple[InvalidRed, ...]
    warnings: tuple[str, ...]
    red_reasons: dict[str, str] = field(default_factory=dict)


def classify_failure(fact: TestFact, provided: frozenset[str]) -> Classification:
    """Decide whether one failing test is red for the right reason."""
    kind = fact.failure_kind or "unknown"
    if kind in ALWAYS_RED_KINDS:
        return Classification(True, _red_reason(kind, fact.message))
    if kind in MISSING_NAME_KINDS:
        names = missing_names(fact)
        known = sorted(n for n in names if _provided(n, provided))
        if known:
            return Classification(True, f"{kind}: {known[0]!r} does not exist yet")
        shown = ", ".join(sorted(names)) or "a name"
        return Classification(False, f"{kind} for {shown}, which the spec never mentions")
    return Classification(False, _broken_reason(kind, fact.message))


def _red_reason(kind: str, message: str | None) -> str:
    """``fails on AssertionError``; a ``pytest.raises`` that did not raise, said plainly."""
    if kind == "Failed" and DID_NOT_RAISE.match(message or ""):
        expected = ", ".join(_CLASS_NAME.findall(message or "")) or "..."
        return f"pytest.raises({expected}) did not raise"
    return f"fails on {kind}"


def missing_names(fact: TestFact) -> set[str]:
    """The names a missing-name failure points at.

    ``from mod import X`` failing sets ``ImportError.name`` to ``mod``, which
    exists; the missing name is X, found only in the message.
    """
    message = fact.message or ""
    cannot_import = CANNOT_IMPORT.findall(message)
    if cannot_import:
        return set(cannot_import)
    if fact.missing_name:
        return {fact.missing_name}
    return {name for groups in MISSING_IN_MESSAGE.findall(message) for name in groups if name}


def _provided(name: str, provided: frozenset[str]) -> bool:
    # A dotted name is provided when it, or any dotted prefix of it, is (a.b.c from package a).
    parts = name.split(".")
    return any(".".join(parts[:i]) in provided for i in range(len(parts), 0, -1))


def _broken_reason(kind: str, message: str | None) -> str:
    first = (message or "").strip().splitlines()
    detail = f": {first[0][:200]}" if first else ""
    if kind in ("SyntaxError", "IndentationError", "TabError"):
        return f"the test file does not compile ({kind}{detail})"
    if kind in ("FixtureLookupError", "fixture"):
        return f"a fixture the test needs does not exist{detail}"
    if kind == "Timeout":
        return "the test did not finish before the timeout"
    return f"the test itself is broken ({kind}{detail})"


def validate_red(
    facts: Sequence[TestFact], provided: frozenset[str], policy: RedPolicy
) -> RedVerdict:
    """Validate a RED run: tests ran, few enough pass, every failure is red for the right reason."""
    if not facts:
        return RedVerdict(False, (), (), (), ("No tests were executed",))
    failing, passes, invalid, reasons = _sort(facts, provided)
    ran = [f for f in facts if f.status != "skipped"]
    warnings = list(_warnings(len(ran), len(passes), len(failing) + len(invalid), policy))
    if invalid:
        warnings.append(f"{len(invalid)} test(s) fail for the wrong reason (see invalid_red)")
    valid = (
        bool(ran)
        and bool(failing)
        and not invalid
        and _passes_allowed(len(passes), len(ran), policy)
    )
    return RedVerdict(
        valid, tuple(failing), tuple(passes), tuple(invalid), tuple(warnings), reasons
    )


def _sort(
    facts: Iterable[TestFact], provided: frozenset[str]
) -> tuple[list[str], list[str], list[InvalidRed], dict[str, str]]:
    failing: list[str] = []
    passes: list[str] = []
    invalid: list[InvalidRed] = []
    reasons: dict[str, str] = {}
    for fact in facts:
        if fact.status == "passed":
            passes.append(fact.name)
        elif fact.status in ("failed", "error"):
            verdict = classify_failure(fact, provided)
            reasons[fact.name] = verdict.reason
            if verdict.valid:
                failing.append(fact.name)
            else:
                invalid.append(
                    InvalidRed(fact.name, fact.failure_kind or "unknown", verdict.reason)
                )
    return failing, passes, invalid, reasons


def _warnings(ran: int, passed: int, failed: int, policy: RedPolicy) -> Iterable[str]:
    if ran == 0:
        yield "No tests were executed"
        return
    if passed:
        yield f"Some tests passed unexpectedly ({passed} of {ran})"
    if failed == 0 and passed > 0:
        yield "All tests passed - verify implementation doesn't exist"
    ratio = passed / ran
    if ratio > policy.max_pass_ratio:
        yield f"{ratio:.0%} of tests passed - expected failures in RED phase (max_pass_ratio {policy.max_pass_ratio:.0%})"


def _passes_allowed(passed: int, ran: int, policy: RedPolicy) -> bool:
    if not policy.allow_some_passes:
        return passed == 0
    return passed / ran <= policy.max_pass_ratio
