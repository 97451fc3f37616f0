"""The builtin engine's settings: free, so it aims for the best suite; the targets stay."""

from __future__ import annotations

from pathlib import Path

from tddforge import cli
from tddforge.config import load_settings


def test_the_builtin_aims_for_the_best_and_keeps_the_targets(tmp_path: Path) -> None:
    settings = cli._builtin_settings(load_settings(tmp_path, {}, {}))
    cover = settings.cover
    assert cover.aim_for_best is True
    assert (cover.coverage_target, cover.mutation_target) == (60.0, 50.0)
    assert cover.reruns >= 5 and cover.mypy is False


def test_a_target_the_user_set_is_kept(tmp_path: Path) -> None:
    flags = {"cover": {"coverage_target": 90.0}}
    settings = cli._builtin_settings(load_settings(tmp_path, {}, flags))
    assert settings.cover.coverage_target == 90.0 and settings.cover.aim_for_best
