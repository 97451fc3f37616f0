from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.config import load_settings
from tddforge.errors import ConfigError


def _project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(body)
    return tmp_path


def test_defaults_follow_seed_002() -> None:
    settings = load_settings()
    assert (settings.temperature, settings.top_p) == (0.2, 0.95)
    assert settings.stages.red.max_pass_ratio == 0.3
    assert settings.stages.red.timeout_seconds == 300
    assert settings.model is None and not settings.llm_configured


def test_precedence_defaults_file_env_flags(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        '[tool.tddforge]\nmodel = "from-file"\ntemperature = 0.5\ntop_p = 0.9\nmax_retries = 7\n',
    )
    env = {"TDDFORGE_MODEL": "from-env", "TDDFORGE_TEMPERATURE": "0.7"}
    settings = load_settings(project, env, {"model": "from-flag", "max_cost": None})
    assert settings.model == "from-flag"  # flag beats env and file
    assert settings.temperature == 0.7  # env beats file
    assert settings.top_p == 0.9  # file beats default
    assert settings.max_retries == 7
    assert settings.max_cost is None  # an unset flag does not override


def test_stage_config_from_pyproject(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        "[tool.tddforge.stages.red]\ntest_directory = 'spec_tests'\nmax_pass_ratio = 0.1\n"
        "allow_some_passes = false\ntimeout_seconds = 12\n",
    )
    red = load_settings(project).stages.red
    assert (red.test_directory, red.max_pass_ratio, red.allow_some_passes, red.timeout_seconds) == (
        "spec_tests",
        0.1,
        False,
        12,
    )


@pytest.mark.parametrize(
    ("env", "key", "value"),
    [
        ({"OPENAI_BASE_URL": "http://a/v1"}, "base_url", "http://a/v1"),
        (
            {"TDDFORGE_BASE_URL": "http://t/v1", "OPENAI_BASE_URL": "http://a/v1"},
            "base_url",
            "http://t/v1",
        ),
        ({"OPENAI_API_KEY": "sk-x"}, "api_key", "sk-x"),
        ({"LLM_COLLECT_LOGPROBS": "true"}, "collect_logprobs", True),
        ({"TDDFORGE_COLLECT_LOGPROBS": "0"}, "collect_logprobs", False),
        ({"TDDFORGE_MAX_COST": "1.5"}, "max_cost", 1.5),
    ],
)
def test_environment_variables(env: dict[str, str], key: str, value: object) -> None:
    assert getattr(load_settings(None, env), key) == value


def test_api_key_is_not_in_repr() -> None:
    assert "sk-secret" not in repr(load_settings(None, {"OPENAI_API_KEY": "sk-secret"}))


def test_prices_extend_the_default_table(tmp_path: Path) -> None:
    project = _project(tmp_path, '[tool.tddforge.prices]\n"my-model" = [1.0, 2.0]\n')
    prices = load_settings(project).prices
    assert prices["my-model"] == (1.0, 2.0)
    assert "gpt-4o-mini" in prices


@pytest.mark.parametrize(
    ("body", "env", "message"),
    [
        ("[tool.tddforge\n", {}, "invalid TOML"),
        ("[tool.tddforge]\ntemperature = 5\n", {}, "temperature"),
        ("[tool.tddforge]\nno_such_key = 1\n", {}, "no_such_key"),
        ("", {"TDDFORGE_MAX_RETRIES": "many"}, "max_retries"),
        ("", {"TDDFORGE_MAX_COST": "0"}, "max_cost"),  # a cap that allows no call at all
    ],
)
def test_bad_settings_are_one_config_error(
    tmp_path: Path, body: str, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(_project(tmp_path, body), env)


def test_settings_are_frozen() -> None:
    settings = load_settings()
    with pytest.raises(Exception, match="frozen"):
        settings.model = "x"  # type: ignore[misc]
