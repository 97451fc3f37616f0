"""``graft.set_default``: a mutated default set on the live functions, or a refusal."""

from __future__ import annotations

from typing import Any

import pytest

from tddforge.target.graft import Default, set_default


def _site(slot: int | str, count: int, value: str = "0", original: str = "") -> Any:
    return {
        "name": "f",
        "first": 1,
        "slot": slot,
        "count": count,
        "value": value,
        "body": [2, 2],
        "original": original,
    }


def _set(site: Any, live: Any) -> None:
    set_default(site, Default(site), "t.py", live)


def test_a_positional_default_is_replaced_in_every_copy() -> None:
    def f(a, b=1, c=2):  # type: ignore[no-untyped-def]
        return (a, b, c)

    def copy(a, b=1, c=2):  # type: ignore[no-untyped-def]
        return (a, b, c)

    _set(_site(1, 2, "5", "2"), {("t.py", "f", 1): [f, copy]})
    assert f(0) == (0, 1, 5) and copy(0) == (0, 1, 5)


def test_a_keyword_only_default_is_replaced() -> None:
    def f(*, key="k"):  # type: ignore[no-untyped-def]
        return key

    _set(_site("key", 0, "''", "'k'"), {("t.py", "f", 1): [f]})
    assert f() == ""


def test_a_default_whose_source_is_no_literal_is_replaced_whatever_it_holds() -> None:
    def f(a=object()):  # type: ignore[no-untyped-def]  # noqa: B008
        return a

    _set(_site(0, 1, "None"), {("t.py", "f", 1): [f]})
    assert f() is None


@pytest.mark.parametrize(
    ("site", "live"),
    [
        (_site(0, 1), {}),  # no such live function
        (_site(0, 2), None),  # its defaults are not the source's number (a decorator's)
        (_site("other", 0), None),  # no such keyword-only default
        (_site(0, 1, "0", "2"), None),  # the default is 1, not the source's 2
        (_site(0, 1, "0", "1.0"), None),  # 1 == 1.0, but not of the source's type
        (_site("key", 0, "''", "'j'"), None),  # the keyword-only default is 'k'
    ],
)
def test_a_default_that_cannot_be_set_is_refused(site: Any, live: Any) -> None:
    def f(a=1, *, key="k"):  # type: ignore[no-untyped-def]
        return (a, key)

    with pytest.raises(LookupError):
        _set(site, {("t.py", "f", 1): [f]} if live is None else live)
    assert f() == (1, "k")
