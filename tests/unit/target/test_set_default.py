"""``graft.set_default``: a mutated default set on the live functions, or a refusal."""

from __future__ import annotations

from typing import Any

import pytest

from tddforge.target.graft import set_default


def _site(slot: int | str, count: int) -> Any:
    return {"name": "f", "first": 1, "slot": slot, "count": count, "value": "", "body": [2, 2]}


def test_a_positional_default_is_replaced_in_every_copy() -> None:
    def f(a, b=1, c=2):  # type: ignore[no-untyped-def]
        return (a, b, c)

    def copy(a, b=1, c=2):  # type: ignore[no-untyped-def]
        return (a, b, c)

    set_default(_site(1, 2), 5, "t.py", {("t.py", "f", 1): [f, copy]})
    assert f(0) == (0, 1, 5) and copy(0) == (0, 1, 5)


def test_a_keyword_only_default_is_replaced() -> None:
    def f(*, key="k"):  # type: ignore[no-untyped-def]
        return key

    set_default(_site("key", 0), "", "t.py", {("t.py", "f", 1): [f]})
    assert f() == ""


@pytest.mark.parametrize(
    ("site", "live"),
    [
        (_site(0, 1), {}),  # no such live function
        (_site(0, 2), None),  # its defaults are not the source's (a decorator changed them)
        (_site("other", 0), None),  # no such keyword-only default
    ],
)
def test_a_default_that_cannot_be_set_is_refused(site: Any, live: Any) -> None:
    def f(a=1, *, key="k"):  # type: ignore[no-untyped-def]
        return a

    with pytest.raises(LookupError):
        set_default(site, 0, "t.py", {("t.py", "f", 1): [f]} if live is None else live)
    assert f() == 1
