"""Settings: one frozen object, built in this order (later wins).

1. defaults (the field defaults below);
2. ``[tool.tddforge]`` in the project's ``pyproject.toml``;
3. environment variables (``TDDFORGE_*``, plus ``OPENAI_BASE_URL``/``OPENAI_API_KEY``
   and ``LLM_COLLECT_LOGPROBS``, which asks the model for the logprobs the entropy check reads);
4. CLI flags.

The object is passed explicitly to whatever needs it; there is no global.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tddforge.compat import tomllib
from tddforge.errors import ConfigError


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RedStageConfig(_Frozen):
    """The RED stage's keys, ``[tool.tddforge.stages.red]``."""

    test_directory: str = "tests"
    include_edge_cases: bool = True
    tests_per_component: str = "5-10"
    allow_some_passes: bool = True
    max_pass_ratio: float = Field(default=0.3, ge=0.0, le=1.0)
    timeout_seconds: float = Field(default=300.0, gt=0)


class StagesConfig(_Frozen):
    """Per-stage settings, ``[tool.tddforge.stages.*]``."""

    red: RedStageConfig = RedStageConfig()


class KataConfig(_Frozen):
    """The kata session's keys, ``[tool.tddforge.kata]``; also the build's GREEN/REFACTOR."""

    max_cycles: int = Field(default=10, gt=0)
    max_consecutive_overshoots: int = Field(default=3, gt=0)
    tester_attempts: int = Field(default=3, gt=0)
    implementer_attempts: int = Field(default=3, gt=0)
    refactor_attempts: int = Field(default=3, gt=0)
    max_implementer_failures: int = Field(default=2, gt=0)
    test_timeout_seconds: float = Field(default=120.0, gt=0)
    gate_timeout_seconds: float = Field(default=60.0, gt=0)


class CoverConfig(_Frozen):
    """The cover loop's keys, ``[tool.tddforge.cover]``."""

    coverage_target: float = Field(default=60.0, ge=0.0, le=100.0)
    mutation_target: float = Field(default=50.0, ge=0.0, le=100.0)
    max_iterations: int = Field(default=3, gt=0)  # attempts in all, the generator's included
    #: Keep improving past the targets while attempts and the writer's budget last (the
    #: builtin engine, which costs nothing); the targets still decide the exit code.
    aim_for_best: bool = False
    # Pre-execution reliability: mean token entropy (nats) at or below -> high / medium.
    entropy_high_max: float = Field(default=0.2, ge=0.0)
    entropy_medium_max: float = Field(default=0.6, ge=0.0)
    lint_downgrade_at: int = Field(default=5, gt=0)  # this many lint/type issues: one level down
    lint_low_at: int = Field(default=30, gt=0)  # this many: two levels down
    reruns: int = Field(default=3, ge=1)  # runs a kept test must pass (shuffled after the first)
    # the shuffled reruns two at a time: for suites whose tests rarely touch files (the
    # builtin's); a test whose files race the other run's then fails and is dropped
    parallel_reruns: bool = False
    mypy: bool = True  # type-check generated suites when mypy is installed
    max_survivors_in_prompt: int = Field(default=10, ge=0)
    test_timeout_seconds: float = Field(default=300.0, gt=0)
    mutation_timeout_seconds: float = Field(default=1800.0, gt=0)


class MutateConfig(_Frozen):
    """``tddforge mutate``'s keys, ``[tool.tddforge.mutate]``: what to mutate, with which tests."""

    paths: list[str] = []  # modules, packages, directories; default: the project's packages
    tests: list[str] = []  # default: pytest's testpaths, else tests/ or test/
    exclude: list[str] = []  # globs of files never mutated, relative to the project
    # "all": import-time code too (module and class bodies, defaults, decorators);
    # "functions": only code that runs inside functions, as mutmut mutates
    scope: Literal["all", "functions"] = "all"


class SandboxConfig(_Frozen):
    """Resource limits applied to every sandboxed command."""

    cpu_seconds: int = Field(default=600, gt=0)
    memory_mb: int = Field(default=4096, gt=0)
    file_size_mb: int = Field(default=256, gt=0)
    max_processes: int = Field(default=256, gt=0)


# $ per million tokens (input, output). Users extend it with [tool.tddforge.prices].
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}


class Settings(_Frozen):
    """Everything configurable, validated and immutable."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    top_p: float = Field(default=0.95, gt=0.0, le=1.0)
    collect_logprobs: bool = False
    request_timeout: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    max_cost: float | None = Field(default=None, gt=0)
    prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    sandbox: SandboxConfig = SandboxConfig()
    stages: StagesConfig = StagesConfig()
    kata: KataConfig = KataConfig()
    cover: CoverConfig = CoverConfig()
    mutate: MutateConfig = MutateConfig()

    @property
    def llm_configured(self) -> bool:
        """True when a model is named (an endpoint alone is not enough to call)."""
        return bool(self.model)


# env var -> settings key; the first one set wins for a key.
_ENV_KEYS: tuple[tuple[str, str], ...] = (
    ("TDDFORGE_MODEL", "model"),
    ("TDDFORGE_BASE_URL", "base_url"),
    ("OPENAI_BASE_URL", "base_url"),
    ("TDDFORGE_API_KEY", "api_key"),
    ("OPENAI_API_KEY", "api_key"),
    ("TDDFORGE_TEMPERATURE", "temperature"),
    ("TDDFORGE_TOP_P", "top_p"),
    ("TDDFORGE_COLLECT_LOGPROBS", "collect_logprobs"),
    ("LLM_COLLECT_LOGPROBS", "collect_logprobs"),
    ("TDDFORGE_REQUEST_TIMEOUT", "request_timeout"),
    ("TDDFORGE_MAX_RETRIES", "max_retries"),
    ("TDDFORGE_MAX_COST", "max_cost"),
)


def read_pyproject(project_dir: Path) -> dict[str, Any]:
    """Return ``[tool.tddforge]`` of ``project_dir/pyproject.toml`` (empty if absent)."""
    path = project_dir / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    section = data.get("tool", {}).get("tddforge", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.tddforge] must be a table")
    return section


def env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    """Settings keys taken from environment variables."""
    found: dict[str, Any] = {}
    for var, key in _ENV_KEYS:
        value = environ.get(var)
        if value not in (None, "") and key not in found:
            found[key] = _env_value(key, value)
    return found


def _env_value(key: str, value: str) -> Any:
    if key == "collect_logprobs":
        return value.strip().lower() in ("1", "true", "yes", "on")
    return value


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_settings(
    project_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build ``Settings`` from defaults, pyproject, environment and flags, in that order."""
    layers: dict[str, Any] = {}
    if project_dir is not None:
        file_layer = read_pyproject(project_dir)
        prices = file_layer.pop("prices", None)
        layers = _merge(layers, file_layer)
        if prices is not None:
            layers["prices"] = {**DEFAULT_PRICES, **prices}
    layers = _merge(layers, env_overrides(environ if environ is not None else {}))
    layers = _merge(layers, {k: v for k, v in (overrides or {}).items() if v is not None})
    try:
        return Settings.model_validate(layers)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ConfigError(f"invalid setting {where}: {first['msg']}") from exc
