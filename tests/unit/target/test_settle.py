"""Items located before the children fork: each child then reuses the parent's answer."""

from __future__ import annotations

from functools import cached_property

from tddforge.target.hosting import settle


class Item:
    def __init__(self, name: str) -> None:
        self.name = name
        self.computed = 0

    @cached_property
    def location(self) -> tuple[str, int, str]:
        self.computed += 1
        return ("test_x.py", 3, self.name)


class Unlocatable(Item):
    @cached_property
    def location(self) -> tuple[str, int, str]:
        raise AttributeError("no reportinfo")


def test_settle_fills_each_items_location_cache_once() -> None:
    items = [Item("test_a"), Item("test_b")]
    settle(items)
    assert [item.__dict__.get("location") for item in items] == [
        ("test_x.py", 3, "test_a"),
        ("test_x.py", 3, "test_b"),
    ]
    settle(items)
    assert [item.computed for item in items] == [1, 1]


def test_an_item_that_cannot_locate_itself_leaves_the_others_settled() -> None:
    items = [Unlocatable("odd"), Item("test_b")]
    settle(items)
    assert "location" not in items[0].__dict__
    assert items[1].__dict__["location"] == ("test_x.py", 3, "test_b")
