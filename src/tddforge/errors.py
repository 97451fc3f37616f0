"""Every exception tddforge raises on purpose.

The hierarchy, by what the caller does next::

    TddforgeError                  cli.main prints one line and exits 2
    ├── ConfigError                bad settings (pyproject, env, flags)
    ├── InputError                 a missing file or an unreadable input
    │   ├── SpecError              a malformed spec file
    │   └── BaselineError          the tests fail (or cannot run) before any mutation
    │       └── PytestStartError   pytest itself cannot start with the project's setup
    ├── LLMError(retryable)        the model endpoint failed or refused
    │   └── BudgetExceeded         the --max-cost cap would be passed
    ├── WorkspaceError             the work dir cannot be used as asked
    │   └── PathRefused            a path escapes the work dir or targets .git/
    ├── GitError                   a git command failed
    ├── SandboxError               the sandbox could not start a command
    ├── RunnerError                the test runner could not produce results
    └── AgentError                 the agent contract's errors
        ├── AgentExecutionError    an agent failed unrecoverably (AttemptsExhausted)
        ├── AgentTimeoutError      an agent exceeded its time
        └── QualityGateFailure     a quality gate check failed

Anything that is not a ``TddforgeError`` is a bug and keeps its traceback.

``AgentTimeoutError`` and ``QualityGateFailure`` are never raised by tddforge:
they belong to the agent contract's public exception tree (importable from
``tddforge``) for agents written against it. tddforge's own agents report a
failed gate as a refused attempt (an ``AgentResult``), and a model that does
not answer in time as an ``LLMError``.
"""

from __future__ import annotations


class TddforgeError(Exception):
    """Base of every error tddforge raises deliberately."""


class ConfigError(TddforgeError):
    """Settings are invalid."""


class InputError(TddforgeError):
    """A user-supplied input (file, directory, argument) cannot be used."""


class SpecError(InputError):
    """A spec file is malformed."""


class BaselineError(InputError):
    """The tests must pass on the unmutated code, and they do not (or cannot run)."""


class PytestStartError(BaselineError):
    """pytest cannot start (a usage error from the configuration, a broken conftest or plugin)."""


class LLMError(TddforgeError):
    """The model endpoint failed; ``retryable`` tells whether trying again may help."""

    def __init__(self, message: str, *, retryable: bool = False, status: int | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.status = status


class BudgetExceeded(LLMError):
    """Spending more would pass the configured ``max_cost``."""


class WorkspaceError(TddforgeError):
    """The work directory cannot be used as asked."""


class PathRefused(WorkspaceError):
    """A path from an LLM reply escapes the work dir or targets ``.git/``."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"refused path {path!r}: {reason}")
        self.path = path
        self.reason = reason


class GitError(TddforgeError):
    """A git command failed."""


class SandboxError(TddforgeError):
    """The sandbox could not run a command."""


class RunnerError(TddforgeError):
    """The test runner could not produce results."""


class AgentError(TddforgeError):
    """Base exception for agent errors."""


class AgentExecutionError(AgentError):
    """Agent execution failed unrecoverably."""


class AgentTimeoutError(AgentError):
    """Agent execution exceeded its timeout."""


class QualityGateFailure(AgentError):
    """A quality gate check failed."""
