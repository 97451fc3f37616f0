"""Environment variables a module reads at run time, and the calls planned with them set."""

from __future__ import annotations

import ast
from dataclasses import replace

import pytest

from tddforge.builtin.environ import (
    BASE_VALUES,
    EnvRead,
    env_reads,
    env_variants,
    isolated,
    pinned,
)
from tddforge.builtin.explore import Call, CallResult, Outcome
from tddforge.builtin.writer import write_module

READS = [
    (
        "os.environ.get, compared through lower()",
        "import os\n\ndef colour():\n    if os.environ.get('TERM', '').lower() == 'dumb':\n"
        "        return False\n    return True\n",
        {"TERM": EnvRead("TERM", ((3, 6),), ("dumb", *BASE_VALUES))},
    ),
    (
        "os.getenv with a default, in a tuple of values",
        "import os\n\ndef on():\n    return os.getenv('FORCE', 'no') in ('yes', 'true', '1')\n",
        {"FORCE": EnvRead("FORCE", ((3, 4),), ("no", "yes", "true", *BASE_VALUES))},
    ),
    (
        "membership and a subscript, two functions",
        "import os\n\ndef a():\n    return 'CI' in os.environ\n\n"
        "def b():\n    return os.environ['CI']\n",
        {"CI": EnvRead("CI", ((3, 4), (6, 7)), BASE_VALUES)},
    ),
    (
        "from os import environ, getenv",
        "from os import environ, getenv\n\ndef a():\n    return getenv('A') or environ.get('B')\n",
        {
            "A": EnvRead("A", ((3, 4),), BASE_VALUES),
            "B": EnvRead("B", ((3, 4),), BASE_VALUES),
        },
    ),
    (
        "read at import time: a test cannot change it",
        "import os\n\nDEBUG = os.environ.get('DEBUG')\n",
        {},
    ),
    ("a name that is not a literal", "import os\n\ndef a(n):\n    return os.getenv(n)\n", {}),
    ("an assignment is not a read", "import os\n\ndef a():\n    os.environ['X'] = '1'\n", {}),
    ("not Python", "def (:\n", {}),
]


@pytest.mark.parametrize(("case", "source", "expected"), READS, ids=[c[0] for c in READS])
def test_env_reads(case: str, source: str, expected: dict[str, EnvRead]) -> None:
    assert env_reads(source) == expected


def _kept(call: Call, *lines: int) -> CallResult:
    arcs = frozenset(zip((-1, *lines), (*lines, -1), strict=True))
    return CallResult(call, arcs, Outcome("return", "bool", "builtins", repr="True"), True)


def test_a_call_that_ran_a_reading_function_runs_again_with_each_value() -> None:
    reads = {
        "TERM": EnvRead("TERM", ((3, 6),), ("dumb", None)),
        "CI": EnvRead("CI", ((10, 12),), ("1",)),
    }
    colour, other, done = Call("colour"), Call("other", ("1",)), Call("done")
    already = Call("colour", env=(("TERM", "x"),))
    planned = env_variants(
        [_kept(colour, 4, 5), _kept(other, 8), _kept(done, 11), _kept(already, 4)],
        reads,
        done={done},
    )
    assert planned == [
        Call("colour", env=(("TERM", "dumb"),)),
        Call("colour", env=(("TERM", None),)),
    ]


def test_a_variable_is_set_by_monkeypatch_or_a_patched_environ() -> None:
    set_ = Call("colour", env=(("TERM", "dumb"),))
    unset = Call("colour", env=(("NO_COLOR", None),))
    results = [
        CallResult(set_, frozenset(), Outcome("return", "bool", "builtins", "False", True), True),
        CallResult(unset, frozenset(), Outcome("return", "bool", "builtins", "True", True), True),
    ]
    source = write_module("tty", results)
    ast.parse(source)
    assert "import pytest\n" in source
    assert (
        "def test_colour_returns_false_when_term_is_dumb(monkeypatch: pytest.MonkeyPatch) -> None:\n"
        "    monkeypatch.setenv('TERM', 'dumb')\n"
        "    assert colour() is False\n"
    ) in source
    assert "    monkeypatch.delenv('NO_COLOR', raising=False)\n    assert colour() is True\n" in (
        source
    )
    assert "def test_colour_returns_true_when_no_color_unset(" in source
    cases = write_module("tty", results, framework="unittest")
    ast.parse(cases)
    assert "import os\nimport unittest\nimport unittest.mock\n" in cases
    assert (
        "        with unittest.mock.patch.dict(os.environ, {'TERM': 'dumb'}):\n"
        "            self.assertIs(colour(), False)\n"
    ) in cases
    assert (
        "        with unittest.mock.patch.dict(os.environ):\n"
        "            os.environ.pop('NO_COLOR', None)\n"
        "            self.assertIs(colour(), True)\n"
    ) in cases


ISOLATED = [
    (
        "a call that ran the reading function unsets what it read",
        Call("colour"),
        (4,),
        ("TERM", "CI"),
    ),
    ("not what it sets", Call("colour", env=(("TERM", "dumb"),)), (4,), ("CI",)),
    ("not what the sandbox itself sets", Call("home"), (21,), ()),
    ("a call that ran no reading function is left alone", Call("other"), (8,), ()),
    ("one that ran two, both functions' variables", Call("both"), (4, 11), ("TERM", "CI", "DEBUG")),
]


@pytest.mark.parametrize(
    ("call", "lines", "unset"), [row[1:] for row in ISOLATED], ids=[row[0] for row in ISOLATED]
)
def test_isolated_unsets_the_variables_a_call_read_and_did_not_set(
    call: Call, lines: tuple[int, ...], unset: tuple[str, ...]
) -> None:
    reads = {
        "TERM": EnvRead("TERM", ((3, 6),), ("dumb", None)),
        "CI": EnvRead("CI", ((3, 6),), ("1",)),
        "DEBUG": EnvRead("DEBUG", ((10, 12),), ("1",)),
        "HOME": EnvRead("HOME", ((20, 22),), ("1",)),
    }
    (found,) = isolated([_kept(call, *lines)], reads, present={"HOME", "PATH"})
    assert found.call.unset == unset
    assert found.call.env == call.env and found.outcome == _kept(call).outcome


def test_variables_read_but_not_set_are_unset_in_the_test_unnamed() -> None:
    call = Call("colour", env=(("TERM", "dumb"),), unset=("CI",))
    result = CallResult(
        call, frozenset(), Outcome("return", "bool", "builtins", "False", True), True
    )
    source = write_module("tty", [result])
    assert (
        "def test_colour_returns_false_when_term_is_dumb(monkeypatch: pytest.MonkeyPatch) -> None:\n"
        "    monkeypatch.setenv('TERM', 'dumb')\n"
        "    monkeypatch.delenv('CI', raising=False)\n"
        "    assert colour() is False\n"
    ) in source
    cases = write_module("tty", [result], framework="unittest")
    assert (
        "        with unittest.mock.patch.dict(os.environ, {'TERM': 'dumb'}):\n"
        "            os.environ.pop('CI', None)\n"
        "            self.assertIs(colour(), False)\n"
    ) in cases
    baseline = CallResult(Call("colour", unset=("CI",)), frozenset(), result.outcome, True)
    assert "def test_colour_returns_false(monkeypatch" in write_module("tty", [baseline])


PINNED = [
    (
        "a value read is set, an unset one is unset",
        Call("cache_dir"),
        (("HOME", "/tmp"), ("XDG_CACHE_HOME", None)),
        (("HOME", "/tmp"),),
        ("XDG_CACHE_HOME",),
    ),
    (
        "not what the call sets, nor what it unsets already",
        Call("cache_dir", env=(("HOME", "/x"),), unset=("XDG_CACHE_HOME",)),
        (("HOME", "/x"), ("XDG_CACHE_HOME", None), ("USER", "me")),
        (("USER", "me"),),
        ("XDG_CACHE_HOME",),
    ),
    ("nor the sandbox's own", Call("h"), (("PYTHONHASHSEED", "0"),), (), ()),
    (
        "nor the machine's program search path (which() reads it)",
        Call("spawn"),
        (("PATH", "/usr/local/bin:/usr/bin:/bin"), ("TERM", "xterm")),
        (("TERM", "xterm"),),
        (),
    ),
    ("a call that read nothing is left alone", Call("h"), (), (), ()),
]


@pytest.mark.parametrize(
    ("call", "environ", "pinned_", "unset"),
    [row[1:] for row in PINNED],
    ids=[row[0] for row in PINNED],
)
def test_pinned_sets_what_a_call_read_at_run_time(
    call: Call,
    environ: tuple[tuple[str, str | None], ...],
    pinned_: tuple[tuple[str, str], ...],
    unset: tuple[str, ...],
) -> None:
    result = replace(_kept(call), environ=environ)
    (found,) = pinned([result])
    assert (found.call.pinned, found.call.unset) == (pinned_, unset)
    assert (found.call.env, found.outcome) == (call.env, result.outcome)


def test_pinned_variables_are_set_before_the_call_and_left_out_of_its_name() -> None:
    call = Call("cache_dir", pinned=(("HOME", "/tmp"),), unset=("XDG_CACHE_HOME",))
    outcome = Outcome("return", "str", "builtins", "'/tmp/.cache'", True)
    source = write_module("dirs", [CallResult(call, frozenset(), outcome, True)])
    assert (
        "def test_cache_dir_returns_tmp_cache(monkeypatch: pytest.MonkeyPatch) -> None:\n"
        "    monkeypatch.setenv('HOME', '/tmp')\n"
        "    monkeypatch.delenv('XDG_CACHE_HOME', raising=False)\n"
        "    assert cache_dir() == '/tmp/.cache'\n"
    ) in source
