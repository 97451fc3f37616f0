from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.errors import InputError, SpecError
from tddforge.spec import load_spec, module_names, provided_names

VALID = """
spec_id: SPEC-1
components:
  - name: OAuthProvider
    file_path: src/auth/oauth_provider.py
    description: Wraps the `token_endpoint` of a provider.
    interface:
      methods:
        - signature: "def authenticate(self, code: str) -> dict"
test_cases:
  - id: TC001
    component: OAuthProvider
    then: raises AuthenticationError on a bad code
acceptance_criteria:
  - Tokens are cached
  - criterion: Errors are typed
"""


def _write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_valid_spec_loads_and_normalises_criteria(tmp_path: Path) -> None:
    spec = load_spec(_write(tmp_path, VALID))
    assert spec.spec_id == "SPEC-1"
    assert [c.criterion for c in spec.acceptance_criteria] == [
        "Tokens are cached",
        "Errors are typed",
    ]


def test_json_specs_load(tmp_path: Path) -> None:
    body = '{"spec_id": "S", "components": [{"name": "c"}], "test_cases": [{"id": "T1"}]}'
    assert load_spec(_write(tmp_path, body, "spec.json")).spec_id == "S"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("components: [{name: a}]\ntest_cases: [{id: T}]\n", "missing required field 'spec_id'"),
        ("spec_id: S\ntest_cases: [{id: T}]\n", "missing required field 'components'"),
        ("spec_id: S\ncomponents: [{name: a}]\n", "missing required field 'test_cases'"),
        ("spec_id: S\ncomponents: []\ntest_cases: [{id: T}]\n", "components"),
        (
            "spec_id: S\ncomponents: [{name: a}]\ntest_cases: [{id: T, component: b}]\n",
            "names component 'b'",
        ),
        ("spec_id: S\ncomponents: [{name: a}]\ntest_cases: [{id: T}, {id: T}]\n", "used twice"),
        ("- just\n- a list\n", "must be a mapping"),
        ("spec_id: [unclosed\n", "invalid YAML"),
    ],
)
def test_malformed_specs_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as caught:
        load_spec(_write(tmp_path, text))
    assert "\n" not in str(caught.value)


def test_invalid_json_is_reported(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="invalid JSON"):
        load_spec(_write(tmp_path, "{", "spec.json"))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_spec(tmp_path / "nope.yaml")


def test_provided_names(tmp_path: Path) -> None:
    names = provided_names(load_spec(_write(tmp_path, VALID)))
    for expected in (
        "OAuthProvider",
        "authenticate",
        "src.auth.oauth_provider",
        "oauth_provider",
        "auth",
        "token_endpoint",
        "AuthenticationError",
    ):
        assert expected in names
    assert "requests" not in names


def test_module_names() -> None:
    assert module_names("src/a/b.py") == {"src", "src.a", "src.a.b", "a", "a.b", "b"}
    assert module_names("pkg/__init__.py") == {"pkg"}
    assert module_names("README.md") == set()
