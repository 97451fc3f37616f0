"""tddforge: LLM-driven TDD in which every claim an agent makes is checked by running code.

The agent contract (``Agent``, its context and result, the three kata agents,
the supervisor, the session state, the ``LanguageRunner`` interface) is
importable from here; it is loaded on first use so ``import tddforge`` (and the
CLI's start) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tddforge.errors import (
    AgentError,
    AgentExecutionError,
    AgentTimeoutError,
    QualityGateFailure,
    TddforgeError,
)

if TYPE_CHECKING:
    from tddforge.agents.base import (
        Agent,
        AgentContext,
        AgentResult,
        AgentRole,
        execute_with_retry,
        parse_agent_response,
    )
    from tddforge.agents.implementer import ImplementerAgent
    from tddforge.agents.refactorer import RefactorerAgent
    from tddforge.agents.tester import TesterAgent
    from tddforge.decisions.kata import Action
    from tddforge.languages.base import LanguageRunner
    from tddforge.languages.python import PythonRunner
    from tddforge.orchestration.kata_state import CycleState, SessionState, TDDPhase
    from tddforge.orchestration.supervisor import SupervisorAgent, SupervisorConfig

__version__ = "0.1.0.dev0"

_LAZY = {
    "Agent": "tddforge.agents.base",
    "AgentContext": "tddforge.agents.base",
    "AgentResult": "tddforge.agents.base",
    "AgentRole": "tddforge.agents.base",
    "execute_with_retry": "tddforge.agents.base",
    "parse_agent_response": "tddforge.agents.base",
    "TesterAgent": "tddforge.agents.tester",
    "ImplementerAgent": "tddforge.agents.implementer",
    "RefactorerAgent": "tddforge.agents.refactorer",
    "LanguageRunner": "tddforge.languages.base",
    "PythonRunner": "tddforge.languages.python",
    "Action": "tddforge.decisions.kata",
    "CycleState": "tddforge.orchestration.kata_state",
    "SessionState": "tddforge.orchestration.kata_state",
    "TDDPhase": "tddforge.orchestration.kata_state",
    "SupervisorAgent": "tddforge.orchestration.supervisor",
    "SupervisorConfig": "tddforge.orchestration.supervisor",
}

__all__ = [
    "Action",
    "Agent",
    "AgentContext",
    "AgentError",
    "AgentExecutionError",
    "AgentResult",
    "AgentRole",
    "AgentTimeoutError",
    "CycleState",
    "ImplementerAgent",
    "LanguageRunner",
    "PythonRunner",
    "QualityGateFailure",
    "RefactorerAgent",
    "SessionState",
    "SupervisorAgent",
    "SupervisorConfig",
    "TDDPhase",
    "TddforgeError",
    "TesterAgent",
    "__version__",
    "execute_with_retry",
    "parse_agent_response",
]


def __getattr__(name: str) -> Any:
    """Load the agent contract's names on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tddforge' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
