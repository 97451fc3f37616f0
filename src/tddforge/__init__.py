"""tddforge: LLM-driven TDD in which every claim an agent makes is checked by running code."""

from tddforge.errors import TddforgeError

__version__ = "0.1.0.dev0"

__all__ = ["TddforgeError", "__version__"]
