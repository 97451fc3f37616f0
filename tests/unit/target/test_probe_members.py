"""What the probe reports of a class's members: decorated methods still count."""

from __future__ import annotations

import functools

from tddforge.target.probe import describe_class


class Table:
    def __init__(self, rows: dict[str, int]) -> None:
        self.rows = rows

    @functools.lru_cache(maxsize=8)  # noqa: B019 - the decorator under test
    def __getitem__(self, key: str) -> int:
        return self.rows[key]

    @functools.lru_cache(maxsize=8)  # noqa: B019
    def lookup(self, key: str, default: int = 0) -> int:
        return self.rows.get(key, default)

    @functools.cached_property
    def total(self) -> int:
        return sum(self.rows.values())

    @property
    def size(self) -> int:
        return len(self.rows)


def test_a_cached_method_is_a_method_and_a_cached_property_a_property() -> None:
    described = describe_class("Table", Table)
    methods = {m["name"]: m for m in described["methods"]}
    assert set(methods) == {"__getitem__", "lookup"}
    assert methods["lookup"]["kind"] == "method"
    assert [p["name"] for p in methods["lookup"]["parameters"]] == ["key", "default"]
    assert sorted(described["properties"]) == ["size", "total"]
