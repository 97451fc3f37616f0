"""The structured spec consumed by ``tddforge red`` and ``tddforge build``.

A spec is YAML or JSON with required ``spec_id``, ``components`` and
``test_cases``; unknown extra keys from earlier pipeline stages are kept. Any
problem becomes one ``SpecError`` line naming the file and the field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tddforge.errors import InputError, SpecError


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")


class Method(_Model):
    """One method of a component's interface."""

    signature: str
    description: str = ""

    @property
    def name(self) -> str:
        """The method's name, taken from its signature."""
        match = re.match(r"\s*(?:async\s+)?(?:def\s+)?([A-Za-z_]\w*)", self.signature)
        return match.group(1) if match else ""


class Interface(_Model):
    """What a component exposes."""

    methods: list[Method] = Field(default_factory=list)


class Component(_Model):
    """A unit the tests target."""

    name: str = Field(min_length=1)
    type: str = "unknown"
    file_path: str = ""
    description: str = ""
    interface: Interface = Interface()
    exports: list[str] = Field(default_factory=list)


class TestCase(_Model):
    """One Given/When/Then case."""

    __test__ = False  # not a pytest class, despite its name

    id: str = Field(min_length=1)
    description: str = ""
    component: str = ""
    type: str = "unit"
    given: str = ""
    when: str = ""
    then: str = ""


class Criterion(_Model):
    """One acceptance criterion."""

    criterion: str


class Spec(_Model):
    """A validated spec."""

    spec_id: str = Field(min_length=1)
    title: str = "Unknown Feature"
    components: list[Component] = Field(min_length=1)
    test_cases: list[TestCase] = Field(min_length=1)
    acceptance_criteria: list[Criterion] = Field(default_factory=list)

    @field_validator("acceptance_criteria", mode="before")
    @classmethod
    def _criteria_may_be_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"criterion": v} if isinstance(v, str) else v for v in value]
        return value

    @model_validator(mode="after")
    def _check_references(self) -> Spec:
        names = {c.name for c in self.components}
        seen: set[str] = set()
        for case in self.test_cases:
            if case.id in seen:
                raise ValueError(f"test case id {case.id!r} is used twice")
            seen.add(case.id)
            if case.component and case.component not in names:
                raise ValueError(
                    f"test case {case.id} names component {case.component!r}, "
                    f"which is not among the components ({', '.join(sorted(names))})"
                )
        return self

    def to_data(self) -> dict[str, Any]:
        """Plain data, as carried into artifacts."""
        return self.model_dump(mode="json")


def load_spec(path: Path) -> Spec:
    """Read and validate a spec file; raise SpecError/InputError with one line."""
    if not path.is_file():
        raise InputError(f"spec file not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read spec {path}: {exc}") from exc
    data = _parse(path, text)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: a spec must be a mapping with spec_id, components, test_cases")
    try:
        return Spec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(f"{path}: {_first_error(exc)}") from exc


def _parse(path: Path, text: str) -> Any:
    try:
        if path.suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        kind = "JSON" if path.suffix.lower() == ".json" else "YAML"
        detail = str(exc).splitlines()[0]
        raise SpecError(f"{path}: invalid {kind}: {detail}") from exc


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "missing":
        return f"missing required field {where!r}"
    return f"{where}: {message}" if where else message


_CODE_WORD = re.compile(
    r"`([A-Za-z_][\w.]*)`|\b([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b|\b([a-z]+(?:_[a-z0-9]+)+)\b"
)


def provided_names(spec: Spec) -> frozenset[str]:
    """Names the spec says its components provide: modules, classes, functions, errors.

    Used to decide whether an ImportError/AttributeError/NameError is a valid RED
    (the unit under test does not exist yet) or the test's own breakage. Sources:
    component names and ``exports``, method names from interface signatures, the
    module path of each ``file_path`` (with every dotted prefix and suffix), and
    code-looking words (backticked, CamelCase, snake_case) in component
    descriptions and in the text of their test cases.
    """
    names: set[str] = set()
    for comp in spec.components:
        names.add(comp.name)
        names.update(comp.exports)
        names.update(m.name for m in comp.interface.methods if m.name)
        names.update(module_names(comp.file_path))
        names.update(_code_words(comp.description))
        names.update(_code_words(" ".join(m.description for m in comp.interface.methods)))
    for case in spec.test_cases:
        names.update(_code_words(" ".join((case.description, case.given, case.when, case.then))))
    return frozenset(n for n in names if n)


def module_names(file_path: str) -> set[str]:
    """Dotted module names a file path can be imported as (``src/a/b.py`` → a.b, b, a, src.a.b...)."""
    path = PurePosixPath(file_path)
    if path.suffix != ".py":
        return set()
    parts = list(path.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    found: set[str] = set()
    for start in range(len(parts)):
        for end in range(start + 1, len(parts) + 1):
            found.add(".".join(parts[start:end]))
    return found


def _code_words(text: str) -> set[str]:
    words: set[str] = set()
    for match in _CODE_WORD.finditer(text):
        word = next(g for g in match.groups() if g)
        words.add(word)
        words.update(word.split("."))
    return words
