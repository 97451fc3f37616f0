"""The runner sets a call's environment variables and puts back what was there."""

from __future__ import annotations

import os

import pytest

from tddforge.target.calls import set_environment


def test_variables_are_set_unset_and_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TDDFORGE_T_KEPT", "before")
    monkeypatch.delenv("TDDFORGE_T_NEW", raising=False)
    pairs = [["TDDFORGE_T_KEPT", None], ["TDDFORGE_T_NEW", "1"], ["TDDFORGE_T_NEW", "2"]]
    saved = set_environment(pairs)
    assert "TDDFORGE_T_KEPT" not in os.environ
    assert os.environ["TDDFORGE_T_NEW"] == "2"
    set_environment(saved)
    assert os.environ["TDDFORGE_T_KEPT"] == "before"
    assert "TDDFORGE_T_NEW" not in os.environ  # set twice: back to what it was first
