"""The RED artifact: the specified schema, plus our ``invalid_red``, ``traceability`` and
``spec_mismatches``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TestFile(_Out):
    """A written test file."""

    __test__ = False

    path: str
    content: str


class TestDetail(_Out):
    """One test's measured result."""

    __test__ = False

    name: str
    status: str
    message: str = ""
    failure_kind: str | None = None
    duration: float = 0.0
    red_reason: str | None = None


class TestResults(_Out):
    """Counts and details of the RED run, from the runner's structured results."""

    __test__ = False

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    total: int = 0
    exit_code: int | None = None
    timed_out: bool = False
    duration: float = 0.0
    output: str = ""
    test_details: list[TestDetail] = Field(default_factory=list)


class InvalidRedEntry(_Out):
    """A test that fails for the wrong reason."""

    name: str
    failure_kind: str
    reason: str


class TraceabilityOut(_Out):
    """Spec case ids mapped to tests."""

    cases: dict[str, list[str]] = Field(default_factory=dict)
    uncovered: list[str] = Field(default_factory=list)
    untraced_tests: list[str] = Field(default_factory=list)


class SpecMismatchOut(_Out):
    """A keyword, method or attribute the tests use on a component that the spec does not declare."""

    path: str
    line: int
    component: str
    kind: str  # keyword, method or attribute
    name: str
    message: str


class RefusedFile(_Out):
    """A file the model asked for that was not written."""

    path: str
    reason: str


class LLMSummary(_Out):
    """What the model calls of this stage cost."""

    model: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class RedArtifact(_Out):
    """Everything the RED stage produced; every field of the specified schema is present."""

    spec_id: str
    request_id: str
    valid: bool
    test_files: list[TestFile] = Field(default_factory=list)
    test_results: TestResults = TestResults()
    failing_tests: list[str] = Field(default_factory=list)
    unexpected_passes: list[str] = Field(default_factory=list)
    invalid_red: list[InvalidRedEntry] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    traceability: TraceabilityOut = TraceabilityOut()
    spec_mismatches: list[SpecMismatchOut] = Field(default_factory=list)
    refused_files: list[RefusedFile] = Field(default_factory=list)
    components: list[dict[str, Any]] = Field(default_factory=list)
    acceptance_criteria: list[dict[str, Any]] = Field(default_factory=list)
    llm: LLMSummary = LLMSummary()
    run_dir: str = ""
