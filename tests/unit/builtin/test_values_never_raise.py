"""Value synthesis never raises, whatever the signature, hints and constants (hypothesis).

A real module's hints can name anything (its own classes, aliases, forward references,
malformed text); its constants can be any literal. The synthesis must give what it can
and never stop the generator with an error.
"""

from __future__ import annotations

from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from tddforge.builtin.constants import Constant, Kind
from tddforge.builtin.discover import Param, ParamKind
from tddforge.builtin.values import candidates, fits, mutations, parse_hint, values_for_hint

NAMES = [
    "int",
    "str",
    "float",
    "bytes",
    "bool",
    "None",
    "Any",
    "object",
    "list",
    "dict",
    "set",
    "tuple",
    "frozenset",
    "Optional",
    "Union",
    "Literal",
    "Callable",
    "Node",
    "typing.List",
    "Sequence",
    "Mapping",
    "Iterator",
    "date",
    "Decimal",
    "Fraction",
    "T",
    "Self",
    "Color.RED",
]
ATOMS = st.one_of(
    st.integers(),
    st.text(max_size=8),
    st.floats(allow_nan=True),
    st.binary(max_size=4),
    st.booleans(),
    st.none(),
)
LITERALS = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=6,
)


def _hint_text() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(NAMES)

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        args = st.lists(st.one_of(inner, st.just("..."), st.just("'Node'")), max_size=3)
        return st.one_of(
            st.builds(lambda n, a: f"{n}[{', '.join(a)}]", leaf, args),
            st.builds(lambda a, b: f"{a} | {b}", inner, inner),
            st.builds(lambda m: f"Literal[{', '.join(map(repr, m))}]", st.lists(ATOMS, max_size=3)),
        )

    return st.one_of(st.recursive(leaf, grow, max_leaves=8), st.text(max_size=12))


PARAMS = st.builds(
    lambda name, kind, hint, default: Param(
        name=name,
        kind=kind,
        annotation=hint,
        has_default=default is not None,
        default=None if default is None else repr(default),
        default_is_literal=default is not None,
    ),
    st.sampled_from(["x", "items", "text", "n"]),
    st.sampled_from(get_args(ParamKind)),
    st.one_of(st.none(), _hint_text()),
    st.one_of(st.none(), LITERALS),
)
CONSTANTS = st.lists(st.builds(Constant, LITERALS, st.sampled_from(get_args(Kind))), max_size=6)


@settings(max_examples=400, deadline=None)
@given(PARAMS, CONSTANTS)
def test_candidates_never_raise(param: Param, constants: list[Constant]) -> None:
    found = candidates(param, constants)
    assert len(found) <= 12


@settings(max_examples=300, deadline=None)
@given(_hint_text(), LITERALS)
def test_hints_values_and_mutations_never_raise(text: str, value: object) -> None:
    hint = parse_hint(text)
    values_for_hint(hint)
    fits(hint, value)
    mutations(value)
