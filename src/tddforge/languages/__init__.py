"""Language runners: everything language-specific (tests, format, lint, build) behind one interface."""

from tddforge.languages.base import GateResult, LanguageRunner, TestReport
from tddforge.languages.python import PythonRunner

__all__ = ["GateResult", "LanguageRunner", "PythonRunner", "TestReport"]
