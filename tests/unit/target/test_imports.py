"""The target package runs under the project's interpreter: stdlib, pytest and itself only.

Nothing in it may import tddforge (the project does not have it, or has another
version), and it must parse as the oldest Python a target may have (3.8).
"""

from __future__ import annotations

import ast

import pytest

from tests.unit.target.imports import foreign_imports, modules, siblings, stdlib_only

MODULES = modules()


def test_the_package_has_the_modules_it_ships() -> None:
    # the walk below must see every module: an empty or renamed package proves nothing
    assert {"protocol", "processes", "serve", "probe", "calls", "pytest_plugin"} <= set(MODULES)


# The only other imports, each on purpose: coverage.py when the run is under it (found in
# the run's own interpreter, else skipped), and the project's module by its name.
EXPECTED = {
    "pytest_plugin": ["coverage"],
    "probe": ["importlib.import_module(module_name)"],
    # the mutated module, when no test file collected for its mutant imported it
    "fresh": ["importlib.import_module(name or dotted_name(target))"],
    "signatures": ["importlib.import_module(module_name)"],
    # standard library modules the tests imported, once before the fresh children fork
    "preload": ["importlib.import_module(name)"],
    # the package's function a project's test calls (``hjson.loads``), by its dotted path
    "capture": ["importlib.import_module('.'.join(parts[:cut]))"],
    "calls": [
        "importlib.import_module(config['module'])",
        "importlib.import_module(name)",  # a stdlib module (``STDLIB_MODULES``)
        "importlib.import_module(name)",  # ... loaded before the children fork (``preload``)
        # the module's own package, for an argument it builds (``networkx.DiGraph(...)``)
        "importlib.import_module(top)",
    ],
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_the_stdlib_pytest_and_its_siblings(name: str) -> None:
    assert foreign_imports(MODULES[name]) == EXPECTED.get(name, [])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_tddforge(name: str) -> None:
    assert not [found for found in foreign_imports(MODULES[name]) if "tddforge" in found]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_parses_as_python_3_8(name: str) -> None:
    ast.parse(MODULES[name], filename=f"{name}.py", feature_version=(3, 8))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_modules_relative_imports_name_modules_of_the_package(name: str) -> None:
    assert siblings(MODULES[name]) <= set(MODULES) | {""}


def test_the_entries_a_target_without_pytest_runs_import_no_pytest() -> None:
    # the probe, the call runner and the signature reader run where pytest may be missing
    assert {
        "probe",
        "calls",
        "compile_check",
        "signatures",
        "main",
        "protocol",
        "processes",
    } <= set(stdlib_only())
    assert "serve" not in stdlib_only()


@pytest.mark.parametrize(
    ("source", "foreign"),
    [
        ("import tddforge", ["tddforge"]),
        ("import tddforge.target.source", ["tddforge.target.source"]),
        ("from tddforge.target import source", ["tddforge.target"]),
        ("from tddforge_target import main", ["tddforge_target"]),
        ("def f():\n    import yaml\n", ["yaml"]),
        (
            "import importlib\nimportlib.import_module('tddforge.x')",
            ["importlib.import_module('tddforge.x')"],
        ),
        ("__import__(name)", ["__import__(name)"]),
        ("import json, os.path", []),
        ("import pytest\nfrom _pytest.config import _prepareconfig", []),
        ("from . import probe\nfrom .processes import send", []),
        ("import importlib\nimportlib.import_module('.probe', __package__)", []),
    ],
)
def test_the_check_sees_every_kind_of_foreign_import(source: str, foreign: list[str]) -> None:
    assert foreign_imports(source) == foreign


def test_the_3_8_check_refuses_newer_syntax() -> None:
    with pytest.raises(SyntaxError):
        ast.parse("match x:\n    case 1:\n        pass\n", feature_version=(3, 8))
