"""The structured spec consumed by ``tddforge red`` and ``tddforge build``.

A spec is YAML or JSON with required ``spec_id``, ``components`` and
``test_cases``; unknown extra keys from earlier pipeline stages are kept. Any
problem becomes one ``SpecError`` line naming the file and the field.

A component's interface is its module (``file_path``), its ``constructor``,
``methods`` and ``attributes`` (written signatures, parsed by
``parse_parameters``), the ``errors`` it raises and its ``exports``: what the
RED prompt shows, and what the tests and the code are checked against.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tddforge.errors import InputError, SpecError

_IDENTIFIER = re.compile(r"\s*(?:async\s+)?(?:def\s+)?([A-Za-z_]\w*)")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    def extra_lines(self) -> list[str]:
        """The fields the format does not name (kept from earlier stages), one ``key: value`` each."""
        extra = self.model_extra or {}
        return [f"{key}: {_inline(value)}" for key, value in extra.items()]


@dataclass(frozen=True)
class Param:
    """One parameter of a signature, as the spec writes it."""

    name: str
    kind: str  # positional_only, positional_or_keyword, var_positional, keyword_only, var_keyword
    has_default: bool


class Method(_Model):
    """One method of a component's interface (also its constructor): a signature, described."""

    signature: str
    description: str = ""

    @model_validator(mode="before")
    @classmethod
    def _may_be_a_string(cls, value: Any) -> Any:
        return {"signature": value} if isinstance(value, str) else value

    @property
    def name(self) -> str:
        """The method's name, taken from its signature."""
        match = _IDENTIFIER.match(self.signature)
        return match.group(1) if match else ""

    @property
    def parameters(self) -> tuple[Param, ...] | None:
        """The signature's parameters (``self``/``cls`` left out), or None when it has no
        parenthesised parameter list."""
        return parse_parameters(self.signature)


class Attribute(_Model):
    """An attribute of a component's instances: ``name: type``, described."""

    signature: str
    description: str = ""

    @model_validator(mode="before")
    @classmethod
    def _may_be_a_string_or_named(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"signature": value}
        if isinstance(value, dict) and "signature" not in value and "name" in value:
            kind = value.get("type")
            rest = {k: v for k, v in value.items() if k not in ("name", "type")}
            return {"signature": f"{value['name']}: {kind}" if kind else value["name"], **rest}
        return value

    @property
    def name(self) -> str:
        """The attribute's name."""
        match = _IDENTIFIER.match(self.signature)
        return match.group(1) if match else ""


class Raised(_Model):
    """An error a component raises: the exception's name and when it is raised."""

    name: str = Field(min_length=1)
    description: str = ""

    @model_validator(mode="before")
    @classmethod
    def _may_be_a_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            match = re.match(r"\s*([A-Za-z_][\w.]*)(.*)", value, re.DOTALL)
            name, rest = match.groups() if match else (value, "")
            return {"name": name, "description": rest.strip(" \t\n:,-\u2014")}
        return value


class Interface(_Model):
    """What a component exposes: how it is made, its methods and its attributes."""

    constructor: Method | None = None
    methods: list[Method] = Field(default_factory=list)
    attributes: list[Attribute] = Field(default_factory=list)

    def member_names(self) -> frozenset[str]:
        """The methods and attributes the interface declares, by name."""
        members = [m.name for m in self.methods] + [a.name for a in self.attributes]
        return frozenset(n for n in members if n)


class Component(_Model):
    """A unit the tests target."""

    name: str = Field(min_length=1)
    type: str = "unknown"
    file_path: str = ""
    description: str = ""
    interface: Interface = Interface()
    errors: list[Raised] = Field(default_factory=list)
    exports: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _gather_the_interface(cls, value: Any) -> Any:
        """Accept ``constructor``/``methods``/``attributes`` beside ``interface`` and
        ``errors`` inside it: each moves to its one place (unless both places have it)."""
        if not isinstance(value, dict) or not isinstance(value.get("interface", {}), dict):
            return value
        value, interface = dict(value), dict(value.get("interface") or {})
        for key in ("constructor", "methods", "attributes"):
            if key in value and key not in interface:
                interface[key] = value.pop(key)
        if "errors" in interface and "errors" not in value:
            value["errors"] = interface.pop("errors")
        return {**value, "interface": interface}

    @property
    def module(self) -> str:
        """The dotted module that imports ``file_path`` (a leading ``src/`` left out), or ""."""
        return import_module(self.file_path)


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
    component names and ``exports``, method and attribute names from the interface,
    the names of the errors it raises, the module path of each ``file_path`` (with every dotted prefix and suffix), and
    code-looking words (backticked, CamelCase, snake_case) in component
    descriptions and in the text of their test cases.
    """
    names: set[str] = set()
    for comp in spec.components:
        names.add(comp.name)
        names.update(comp.exports)
        names.update(comp.interface.member_names())
        names.update(e.name.rsplit(".", 1)[-1] for e in comp.errors)
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


def import_module(file_path: str) -> str:
    """The module a file path is imported as, with the project (and its ``src``) on the path:
    ``src/a/b.py`` → ``a.b``, ``a/__init__.py`` → ``a``; "" for a path that is not Python."""
    path = PurePosixPath(file_path)
    if path.suffix != ".py":
        return ""
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    if parts[0] == "src" and len(parts) > 1:
        parts.pop(0)
    return ".".join(parts)


def parse_parameters(signature: str) -> tuple[Param, ...] | None:
    """The parameters of a written signature (``f(a, b: int = 1, *, c)``), ``self`` and ``cls``
    left out; None when there is no parenthesised list. Annotations may be any text."""
    inner = _parenthesised(signature)
    if inner is None:
        return None
    params: list[Param] = []
    kind = "positional_or_keyword"
    for piece in _split_top_level(inner):
        if piece == "/":
            params = [Param(p.name, "positional_only", p.has_default) for p in params]
        elif piece == "*":
            kind = "keyword_only"
        elif piece.startswith("**"):
            params.append(Param(_leading_name(piece[2:]), "var_keyword", False))
        elif piece.startswith("*"):
            params.append(Param(_leading_name(piece[1:]), "var_positional", False))
            kind = "keyword_only"
        else:
            has_default = len(_split_top_level(piece, "=")) > 1
            params.append(Param(_leading_name(piece), kind, has_default))
    if params and params[0].name in ("self", "cls"):
        params.pop(0)
    return tuple(p for p in params if p.name)


def _parenthesised(signature: str) -> str | None:
    """The text between the signature's first ``(`` and the parenthesis that closes it."""
    start = signature.find("(")
    if start < 0:
        return None
    inner = _split_top_level(signature[start + 1 :], ")", keep_empty=True)
    return inner[0] if len(inner) > 1 else None


def _split_top_level(text: str, separator: str = ",", *, keep_empty: bool = False) -> list[str]:
    """``text`` split at the separators outside brackets and quotes, each piece stripped."""
    pieces: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == separator and depth == 0:
            pieces.append("".join(current).strip())
            current = []
            continue
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        current.append(char)
    pieces.append("".join(current).strip())
    return pieces if keep_empty else [p for p in pieces if p]


def _leading_name(text: str) -> str:
    match = re.match(r"\s*([A-Za-z_]\w*)", text)
    return match.group(1) if match else ""


def _inline(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
