"""The Python runner: pytest through our sandbox and plugin, ruff format, ruff check, compile.

Every tool runs in the sandbox: pytest and the compile check with the project's
interpreter, ruff as the binary installed next to tddforge (the sandbox makes a
program's own installation visible). Nothing here writes caches into the work
dir (``--no-cache``, compile without ``.pyc``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tddforge.analysis.project import ruff_line_length
from tddforge.analysis.static import find_ruff
from tddforge.analysis.testsource import list_tests
from tddforge.config import SandboxConfig
from tddforge.decisions.red_validation import MISSING_NAME_KINDS, TestFact
from tddforge.languages.base import GateResult, LanguageRunner, TestReport
from tddforge.runner import TestRun, run_pytest
from tddforge.runner.ship import entry_argv, ship
from tddforge.runner.signatures import read_signatures
from tddforge.sandbox import Limits, Sandbox, SandboxResult
from tddforge.target.names import CANNOT_IMPORT_FROM, MODULE_ATTR, NO_MODULE, OBJECT_ATTR
from tddforge.target.signatures import ModuleInfo

OUTPUT_LIMIT = 8_000

GITIGNORE = ".tddforge/\n__pycache__/\n*.pyc\n.pytest_cache/\n.ruff_cache/\n.venv/\n"
PYPROJECT = """[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]

[tool.ruff]
line-length = 100
"""


def format_rules(work_dir: Path) -> str:
    """What ``format_code`` and ``lint_code`` hold code in ``work_dir`` to, in one sentence:
    ruff runs there with the project's own configuration, so the line length is the one
    ruff finds for it. Every stage that writes code is told the same sentence."""
    return (
        f"Format code as `ruff format` does here (line length {ruff_line_length(work_dir)})"
        " and keep it free of `ruff check` findings."
    )


class PythonRunner(LanguageRunner):
    """pytest + ruff + compile, all confined by the sandbox."""

    language_name = "Python"
    test_framework = "pytest"
    file_extensions = (".py",)
    test_file_patterns = ("tests/*", "test_*.py", "*/test_*.py", "*_test.py", "conftest.py")
    source_file_patterns = ("*.py",)
    config_file_patterns = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini")

    def __init__(
        self,
        python: Path,
        sandbox_config: SandboxConfig | None = None,
        *,
        test_timeout: float = 120.0,
        gate_timeout: float = 60.0,
        ruff: Path | None = None,
    ) -> None:
        self.python = python
        self.sandbox_config = sandbox_config or SandboxConfig()
        self.test_timeout = test_timeout
        self.gate_timeout = gate_timeout
        self.ruff = ruff if ruff is not None else find_ruff()
        self._sandboxes: dict[Path, Sandbox] = {}

    def prompt_facts(self) -> dict[str, str]:
        """Python wording for the prompts."""
        return {
            **super().prompt_facts(),
            "conventions": (
                "Tests live in tests/ (files named test_*.py, plain pytest functions with"
                " assert). Implementation modules live at the project root and tests import"
                " them directly (for example `from fizzbuzz import fizzbuzz`); the root is on"
                " the import path. Code is formatted with ruff format and must pass ruff check."
            ),
        }

    def read_signatures(
        self, work_dir: Path, request: Mapping[str, Sequence[str]]
    ) -> dict[str, ModuleInfo] | None:
        """Through the target package's ``signatures`` entry, in the sandbox."""
        sandbox = self.sandbox(work_dir)
        return read_signatures(
            work_dir, request, python=self.python, sandbox=sandbox, timeout=self.gate_timeout
        )

    def format_rules(self, work_dir: Path) -> str:
        """The format and lint gates' rules for ``work_dir`` (``format_rules``)."""
        return format_rules(work_dir)

    def initialize_project(self, work_dir: Path) -> list[str]:
        """pytest finds ``tests/`` and imports modules at the root; tool state is ignored by git."""
        written = []
        for rel, text in ((".gitignore", GITIGNORE), ("pyproject.toml", PYPROJECT)):
            target = work_dir / rel
            if not target.exists():
                target.write_text(text, encoding="utf-8")
                written.append(rel)
        (work_dir / "tests").mkdir(exist_ok=True)
        return written

    def sandbox(self, work_dir: Path) -> Sandbox:
        """The sandbox for ``work_dir`` (one per directory, built once)."""
        key = work_dir.resolve()
        if key not in self._sandboxes:
            limits = Limits.from_config(self.sandbox_config, self.test_timeout)
            self._sandboxes[key] = Sandbox(key, limits)
        return self._sandboxes[key]

    def run_tests(self, work_dir: Path) -> TestReport:
        """Every test, through pytest and our plugin; an unloadable file counts each test it has."""
        run = run_pytest(
            work_dir,
            python=self.python,
            sandbox=self.sandbox(work_dir),
            timeout=self.test_timeout,
        )
        facts = facts_from_run(run, self.test_sources(work_dir))
        return TestReport(tuple(facts), run.output[-OUTPUT_LIMIT:], run.duration, run.timed_out)

    def format_code(self, work_dir: Path, paths: Sequence[str]) -> GateResult:
        """``ruff format`` the Python files among ``paths``; report which ones changed."""
        files = self._python_files(work_dir, paths)
        if self.ruff is None:
            return GateResult("format", "skipped", "ruff is not installed")
        if not files:
            return GateResult("format", "passed")
        before = {p: (work_dir / p).read_bytes() for p in files}
        result = self._run(work_dir, [str(self.ruff), "format", "--no-cache", "--", *files])
        changed = tuple(p for p in files if (work_dir / p).read_bytes() != before[p])
        status = "passed" if result.returncode == 0 else "failed"
        return GateResult("format", status, _output(result), changed)

    def lint_code(self, work_dir: Path, paths: Sequence[str]) -> GateResult:
        """``ruff check --fix`` the Python files among ``paths``: ruff's safe fixes (an
        unsorted import block, an unused import) are applied, what remains is reported."""
        files = self._python_files(work_dir, paths)
        if self.ruff is None:
            return GateResult("lint", "skipped", "ruff is not installed")
        if not files:
            return GateResult("lint", "passed")
        before = {p: (work_dir / p).read_bytes() for p in files}
        argv = [str(self.ruff), "check", "--fix", "--no-cache", "--output-format=concise"]
        result = self._run(work_dir, [*argv, "--", *files])
        changed = tuple(p for p in files if (work_dir / p).read_bytes() != before[p])
        status = "passed" if result.returncode == 0 else "failed"
        return GateResult("lint", status, _output(result), changed)

    def build(self, work_dir: Path, paths: Sequence[str]) -> GateResult:
        """Compile the Python files among ``paths`` with the project's interpreter, writing no
        bytecode (``tddforge.target.compile_check``): the tree stays as it was."""
        files = self._python_files(work_dir, paths)
        if not files:
            return GateResult("build", "passed")
        with self.sandbox(work_dir).scratch() as private:
            ship(private)
            result = self._run(work_dir, entry_argv(self.python, private, "compile", *files))
        return GateResult(
            "build", "passed" if result.returncode == 0 else "failed", _output(result)
        )

    def count_assertions(self, sources: Mapping[str, str]) -> int:
        """``assert`` statements plus ``assert*``/``pytest.raises`` calls, counted with ast."""
        return sum(count_assertions(text) for text in sources.values())

    def missing_kata_names(
        self, facts: Sequence[TestFact], sources: Mapping[str, str]
    ) -> frozenset[str]:
        """Missing names that belong to the kata's own code (see ``kata_names``)."""
        return kata_names(facts, _own_modules(sources), _own_classes(sources))

    def test_function(self, test_id: str) -> str:
        """``path::func[param]`` → ``path::func``."""
        return test_id.split("[", 1)[0]

    def _python_files(self, work_dir: Path, paths: Sequence[str]) -> list[str]:
        return sorted({p for p in paths if p.endswith(".py") and (work_dir / p).is_file()})

    def _run(self, work_dir: Path, argv: list[str]) -> SandboxResult:
        return self.sandbox(work_dir).run(argv, cwd=work_dir.resolve(), timeout=self.gate_timeout)


def facts_from_run(run: TestRun, test_sources: Mapping[str, str]) -> list[TestFact]:
    """Per-test facts; a file that cannot be collected counts every test it defines."""
    facts = [
        TestFact(o.nodeid, o.outcome, o.failure_kind, o.missing_name, o.message, o.raised_in)
        for o in run.outcomes
    ]
    for error in run.collection_errors:
        path = error.nodeid.split("::", 1)[0]
        names = [t.nodeid for t in list_tests(path, test_sources.get(path, ""))] or [path]
        facts += [
            TestFact(n, "error", error.failure_kind, error.missing_name, error.message)
            for n in names
        ]
    return facts


def count_assertions(source: str) -> int:
    """Assertions in one Python source; 0 when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return 0
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            count += 1
        elif isinstance(node, ast.Call):
            name = _call_name(node.func)
            count += name.startswith("assert") or name in ("raises", "warns", "approx")
    return count


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def kata_names(
    facts: Sequence[TestFact], own_modules: frozenset[str], own_classes: frozenset[str]
) -> frozenset[str]:
    """The missing names, among ``facts``, that the kata's code is expected to provide.

    * ``No module named 'm'``: ``m`` is not a standard-library module (a new kata module);
    * ``cannot import name 'x' from 'm'`` and ``module 'm' has no attribute 'x'``:
      ``m`` is one of the kata's own modules;
    * ``'C' object has no attribute 'x'``: ``C`` is a class the kata defines.

    A NameError is the test's own missing import, never the kata's.
    """
    names: set[str] = set()
    for fact in facts:
        if fact.failure_kind not in MISSING_NAME_KINDS or fact.failure_kind == "NameError":
            continue
        names |= _kata_names_of(fact, own_modules, own_classes)
    return frozenset(names)


def _kata_names_of(
    fact: TestFact, own_modules: frozenset[str], own_classes: frozenset[str]
) -> set[str]:
    message = fact.message or ""
    found: set[str] = set()
    for name, module in CANNOT_IMPORT_FROM.findall(message):
        if module.split(".")[0] in own_modules:
            found.add(name)
    for module, name in MODULE_ATTR.findall(message):
        if module.split(".")[0] in own_modules:
            found.add(name)
    for obj, cls, name in OBJECT_ATTR.findall(message):
        if (obj or cls) in own_classes:
            found.add(name)
    for module in NO_MODULE.findall(message):
        top = module.split(".")[0]
        if top not in sys.stdlib_module_names and top not in ("tests", "pytest"):
            found.add(module)
    return found


def _own_modules(sources: Mapping[str, str]) -> frozenset[str]:
    """Top-level module names the kata's source files provide."""
    mods = set()
    for path in sources:
        first = path.split("/", 1)[0]
        mods.add(first.removesuffix(".py"))
    return frozenset(mods)


def _own_classes(sources: Mapping[str, str]) -> frozenset[str]:
    """Classes defined at the top of the kata's source files."""
    classes = set()
    for text in sources.values():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        classes |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    return frozenset(classes)


def _output(result: SandboxResult) -> str:
    text = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip()
    if result.timed_out:
        text += "\n(timed out)"
    return text[-OUTPUT_LIMIT:]
