"""What one call returns, handed to another: which values, to which callables."""

from __future__ import annotations

from typing import Any

from tddforge.builtin.discover import ModuleInfo
from tddforge.builtin.explore import Call, CallResult, Outcome
from tddforge.builtin.handed_on import calls_on_returned_values, consumers, sources
from tests.unit.builtin.test_explore_plan import func, klass, module, param


def returned(call: Call, type_: str, repr_: str, *, ok: bool = True) -> CallResult:
    outcome = Outcome("return", type_, "builtins", repr=repr_, literal=True)
    return CallResult(call, frozenset(), outcome, ok)


def funcs_of(info: ModuleInfo) -> dict[str, Any]:
    return {f.qualname: f for f in info.callables()}


WRITE = Call("write", ("{'a': 1}",))
SEEN = [
    returned(WRITE, "bytes", "b'bplist00\\xd1'"),
    returned(Call("write", ("[]",)), "bytes", "b'bplist00\\xa0'"),  # the same maker: once
    returned(Call("dumps", ("1",)), "str", "'1'"),
    returned(Call("dumps", ("''",)), "str", "''"),
    returned(Call("empty"), "bytes", "b''"),  # nothing to read
    returned(Call("now"), "str", "'12:00'", ok=False),  # not deterministic
    returned(Call("count"), "int", "3"),  # not text
]


def test_sources_are_one_non_empty_text_or_bytes_per_callable() -> None:
    assert sources(SEEN) == {
        "bytes": {"write": "write({'a': 1})"},
        "str": {"dumps": "dumps(1)"},
    }
    assert sources(SEEN, per_type=0) == {}


INFO = module(
    [
        func("write", param("obj")),
        func("read", param("data", "bytes")),
        func("parse", param("text", "str"), param("strict", "bool", default="False")),
        func("load", param("text"), param("encoding", "str")),  # needs a second argument
        func("scale", param("n", "int")),  # takes no text
        func("anything", param("args", kind="var_positional")),
        func("named", param("text", kind="keyword_only")),
    ],
    [
        klass(
            "Reader",
            func("Reader", param("source", "str | bytes"), kind="constructor"),
            func("Reader.feed", param("chunk", "bytes"), kind="method"),
        ),
        klass("Lonely", None, func("Lonely.take", param("data"), kind="method")),
    ],
)


def test_consumers_take_the_type_first_and_need_nothing_else() -> None:
    names = {f.qualname for f in consumers(funcs_of(INFO), b"x")}
    assert names == {"write", "read", "Reader", "Reader.feed", "Lonely.take"}
    names = {f.qualname for f in consumers(funcs_of(INFO), "x")}
    assert names == {"write", "parse", "Reader", "Lonely.take"}


def test_each_value_goes_to_every_other_consumer_taking_turns() -> None:
    working = {"Reader": [Call("Reader", ("'a'",))]}
    calls = calls_on_returned_values(SEEN, funcs_of(INFO), working)
    assert calls == [
        # the first source of each consumer first; never back to the maker ``write``
        Call("read", ("write({'a': 1})",)),
        Call("Reader", ("write({'a': 1})",)),
        Call("Reader.feed", ("write({'a': 1})",), init_args=("'a'",)),
        Call("write", ("dumps(1)",)),
        Call("parse", ("dumps(1)",)),
        Call("Reader", ("dumps(1)",)),
    ]
    # a method of a class never seen built is left out (``Lonely``); tried calls too
    again = calls_on_returned_values(SEEN, funcs_of(INFO), working, tried=set(calls[:3]))
    assert again == calls[3:]


WORDS = module(
    [func(name, param("data", "bytes")) for name in ("b58", "hexed", "packed")],
    [
        klass(
            "Codec",
            func("Codec", kind="constructor"),
            func("Codec.generate", kind="method"),
            func("Codec.to_entropy", param("words", "str"), kind="method"),
        ),
    ],
)


def test_a_class_whose_methods_make_text_for_each_other_is_not_crowded_out() -> None:
    """mnemonic: more functions return text than a type keeps makers of, all seen before
    the method whose words another method of its class reads."""
    seen = [
        *(returned(Call(n, ("b'x'",)), "str", "'1z'") for n in ("b58", "hexed", "packed")),
        returned(Call("Codec.generate", (), init_args=()), "str", "'abandon ability'"),
    ]
    assert list(sources(seen)["str"]) == ["b58", "hexed", "packed", "Codec.generate"]
    working = {"Codec": [Call("Codec")]}
    calls = calls_on_returned_values(seen, funcs_of(WORDS), working)
    # its own class's maker first, then the functions'
    assert [c.args for c in calls if c.target == "Codec.to_entropy"] == [
        ("Codec().generate()",),
        ("b58(b'x')",),
        ("hexed(b'x')",),
        ("packed(b'x')",),
    ]
