"""The cover loop's LLM writer: the Generator and Enhancer prompts over an ``LLMClient``.

``LLMSuiteGenerator`` implements ``cover_contract.TestSuiteGenerator``: a first
suite (the Generator, attempt 0) and a revised one given the critique's
instruction block (the Enhancer, attempts 1+). The builtin offline generator
(``tddforge.builtin.generator``) is the other implementation.

Both prompts carry what the model cannot know from the module alone: where the
suite is written, the targets, the definitions the module imports from its own
package, and the filesystem rules only when the module touches files. A reply
may claim mutants equivalent (``EQUIVALENT: <mutant id>: <reason>`` lines); the
claims are taken out of the code and returned with the suite.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tddforge.analysis.module_context import Definition, file_io, imported_definitions
from tddforge.config import Settings
from tddforge.cover_contract import CoverTarget, EquivalenceClaim, GeneratedSuite
from tddforge.llm import LLMClient, mean_token_entropy, system_user
from tddforge.mutation.mutant import Mutant
from tddforge.prompts import render

_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)(?:\n```|\Z)", re.S | re.I)
# EQUIVALENT: arithmetic@12:8#0a1b2c3d: reason (a comment's "#", brackets and backticks allowed)
_CLAIM = re.compile(
    r"^[ \t]*(?:#[ \t]*)?[*`]*EQUIVALENT[*`]*[ \t]*:[ \t]*[\[`]?"
    r"(?P<id>[a-z_]+@\d+:\d+#[0-9a-f]+)[\]`]?[ \t]*:?[ \t]*(?P<reason>.*?)[ \t]*$",
    re.M,
)


def extract_code(reply: str) -> str:
    """The Python code in a reply: raw code as is, or the longest fenced block; without
    the reply's ``EQUIVALENT:`` lines."""
    blocks = [m.group(1) for m in _FENCE.finditer(reply)]
    code = max(blocks, key=len) if blocks else reply
    code = _CLAIM.sub("", code)
    return code.strip("\n") + "\n"


def equivalence_claims(reply: str) -> tuple[EquivalenceClaim, ...]:
    """The reply's ``EQUIVALENT: <mutant id>: <reason>`` lines, one claim per mutant."""
    claims = {m["id"]: m["reason"].strip("`* ") for m in _CLAIM.finditer(reply)}
    return tuple(EquivalenceClaim(i, reason or "(no reason given)") for i, reason in claims.items())


def guardrails(framework: str, repo: str, io: Sequence[str] = ()) -> list[str]:
    """The Enhancer's guardrails: keep the suite's framework and imports, no network; no
    files either, unless the module works with files (``io``: what it uses)."""
    files = (
        "Avoid network dependencies; the module works with files, so use real ones in a"
        " temporary directory (tmp_path or tempfile.TemporaryDirectory()), never the"
        " project's own files."
        if io
        else "Avoid filesystem or network dependencies; prefer in-memory values/mocks."
    )
    rules = [
        "Use unittest-style classes/tests (unittest.TestCase or django.test.SimpleTestCase). "
        "Do NOT import pytest or use pytest fixtures/decorators.",
        "Keep the existing imports unless a new helper is strictly required.",
        files,
        "Do not add `if __name__ == '__main__':` or call unittest.main/pytest.main.",
    ]
    if "django" in repo.lower() or framework == "django":
        rules.append(
            "When interacting with Django utilities, use django.test helpers and avoid touching real files."
        )
    if framework == "pytest":
        rules[0] = (
            "Pytest-style functions and fixtures are acceptable, but keep the current style consistent."
        )
    return rules


class LLMSuiteGenerator:
    """The Generator and Enhancer agents over an ``LLMClient``."""

    name = "llm"

    def __init__(self, client: LLMClient, settings: Settings):
        self.client = client
        self.settings = settings
        self._context: dict[str, dict[str, Any]] = {}

    def generate(self, target: CoverTarget) -> GeneratedSuite:
        """Attempt 0: the Generator prompt (``cover_generator``) with the framework rules."""
        return self._ask("cover_generator", self.context(target))

    def enhance(
        self,
        target: CoverTarget,
        current: str,
        instruction_block: str,
        survivors: Sequence[Mutant] = (),
        killers: Sequence[str] = (),
    ) -> GeneratedSuite:
        """Attempts 1+: the Enhancer prompt; the survivors reach it through the block."""
        variables = {
            **self.context(target),
            "guardrails": guardrails(target.framework, target.repo, file_io(target.source)),
            "current_test_src": current,
            "instruction_block": instruction_block,
        }
        return self._ask("cover_enhancer", variables)

    def context(self, target: CoverTarget) -> dict[str, Any]:
        """What both prompts show about the target (read once per module)."""
        key = f"{target.project}/{target.module_rel}"
        if key not in self._context:
            self._context[key] = _target_context(target, self.settings)
        return self._context[key]

    def _ask(self, agent: str, variables: dict[str, Any]) -> GeneratedSuite:
        system = render(agent, "system", **variables)
        user = render(agent, "user", **variables)
        reply = self.client.complete(system_user(system, user))
        entropy = mean_token_entropy(reply.logprobs) if reply.logprobs else None
        code = extract_code(reply.text)
        claims = equivalence_claims(reply.text)
        return GeneratedSuite(code, reply.text, entropy, reply.cost, user, claims=claims)


def _target_context(target: CoverTarget, settings: Settings) -> dict[str, Any]:
    definitions, left_out = imported_definitions(
        target.project, target.project / target.module_rel, target.import_name
    )
    return {
        "repo": target.repo,
        "version": target.version,
        "code_file": target.module_rel,
        "code_src": target.source,
        "framework": target.framework,
        "import_name": target.import_name,
        "test_path": target.test_path,
        "coverage_target": settings.cover.coverage_target,
        "mutation_target": settings.cover.mutation_target,
        "io": ", ".join(file_io(target.source)),
        "definitions": [_shown(d) for d in definitions],
        "definitions_left_out": left_out,
    }


def _shown(definition: Definition) -> dict[str, Any]:
    return {
        "name": definition.name,
        "path": definition.path,
        "source": definition.source,
        "cut": definition.cut,
    }
