from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.errors import InputError, SpecError
from tddforge.spec import (
    Component,
    Param,
    Spec,
    import_module,
    load_spec,
    module_names,
    parse_parameters,
    provided_names,
)

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
        (
            "spec_id: S\ncomponents: [{name: a, errors: [{description: x}]}]\ntest_cases: [{id: T}]\n",
            "missing required field 'components.0.errors.0.name'",
        ),
        (
            "spec_id: S\ncomponents: [{name: a, interface: {constructor: 5}}]\n"
            "test_cases: [{id: T}]\n",
            "components.0.interface.constructor",
        ),
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


def _component(data: dict[str, object]) -> Component:
    spec = Spec.model_validate({"spec_id": "S", "components": [data], "test_cases": [{"id": "T"}]})
    return spec.components[0]


def test_a_component_declares_its_constructor_attributes_and_errors() -> None:
    comp = _component(
        {
            "name": "Bucket",
            "file_path": "src/rate/bucket.py",
            "interface": {
                "constructor": {"signature": "Bucket(capacity: int)", "description": "Full."},
                "methods": ["take(n: int = 1) -> bool"],
                "attributes": ["capacity: int", {"name": "level", "type": "float"}],
            },
            "errors": ["Empty: when nothing is left", {"name": "ValueError"}],
        }
    )
    assert comp.interface.constructor is not None
    assert comp.interface.constructor.signature == "Bucket(capacity: int)"
    assert [m.name for m in comp.interface.methods] == ["take"]
    assert [(a.name, a.signature) for a in comp.interface.attributes] == [
        ("capacity", "capacity: int"),
        ("level", "level: float"),
    ]
    assert [(e.name, e.description) for e in comp.errors] == [
        ("Empty", "when nothing is left"),
        ("ValueError", ""),
    ]
    assert comp.interface.member_names() == {"take", "capacity", "level"}
    assert comp.module == "rate.bucket"


def test_interface_parts_written_beside_the_interface_move_into_it() -> None:
    comp = _component(
        {
            "name": "Bucket",
            "constructor": "Bucket(capacity)",
            "methods": [{"signature": "take()"}],
            "interface": {"errors": ["Empty"]},
        }
    )
    assert comp.interface.constructor is not None
    assert comp.interface.constructor.signature == "Bucket(capacity)"
    assert [m.name for m in comp.interface.methods] == ["take"]
    assert [e.name for e in comp.errors] == ["Empty"]
    assert comp.extra_lines() == [] and comp.interface.extra_lines() == []


def test_provided_names_include_attributes_and_errors() -> None:
    spec = Spec.model_validate(
        {
            "spec_id": "S",
            "components": [
                {
                    "name": "Limiter",
                    "interface": {"attributes": ["remaining: int"]},
                    "errors": [{"name": "errors.LimitExceeded"}],
                }
            ],
            "test_cases": [{"id": "T"}],
        }
    )
    assert {"remaining", "LimitExceeded"} <= provided_names(spec)


def _p(name: str, kind: str = "positional_or_keyword", default: bool = False) -> Param:
    return Param(name, kind, default)


@pytest.mark.parametrize(
    ("signature", "parameters"),
    [
        ("add(a: int, b: int) -> int", (_p("a"), _p("b"))),
        ("def authenticate(self, code: str) -> dict", (_p("code"),)),
        ("async def fetch(cls, url)", (_p("url"),)),
        ("available() -> float", ()),
        ("available", None),
        ("broken(a, b", None),
        (
            "Bucket(rate: Callable[[], float] = time.monotonic, n: dict[str, int] = {'a': 1})",
            (_p("rate", default=True), _p("n", default=True)),
        ),
        (
            "f(a, /, b, *args, c=1, **kw)",
            (
                _p("a", "positional_only"),
                _p("b"),
                _p("args", "var_positional"),
                _p("c", "keyword_only", True),
                _p("kw", "var_keyword"),
            ),
        ),
        ("g(*, key: str)", (_p("key", "keyword_only"),)),
        ('h(sep: str = ", (")', (_p("sep", default=True),)),
    ],
)
def test_parse_parameters(signature: str, parameters: tuple[Param, ...] | None) -> None:
    assert parse_parameters(signature) == parameters


@pytest.mark.parametrize(
    ("file_path", "module"),
    [
        ("calc.py", "calc"),
        ("src/rate/bucket.py", "rate.bucket"),
        ("rate/__init__.py", "rate"),
        ("src/rate/__init__.py", "rate"),
        ("README.md", ""),
        ("", ""),
    ],
)
def test_import_module(file_path: str, module: str) -> None:
    assert import_module(file_path) == module
