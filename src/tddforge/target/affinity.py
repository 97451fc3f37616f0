"""Which covering tests name what a mutant changes: those are tried first.

A mutant no neighbour has told about runs its covering tests fastest first,
and the fastest test running a line is mostly the one that fails on it. Not
always: ``self.__module__ = getattr(func, '__module__', None)`` runs under
every test that makes a ``curry``, and only the one or two that read
``__module__`` fail when it is mutated; run by speed, a hundred pass first.
So among the covering tests, those whose code names a rare word of the
mutant's lines (an attribute, a global, a string) move ahead of the tests that
cost more than their time over their chance to fail, which grows with the
rarity of the shared words; the rest keep their order. Only the order changes,
never which tests run.

A test's words are read from its function's code objects (``co_names`` and
the words in its string constants, nested functions included), not from its
source: nothing is parsed.
"""

from __future__ import annotations

import keyword
import math
import re
import types
from typing import Any, FrozenSet, Iterable, Mapping, Sequence

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RARE = 0.25  # a word in more of the covering tests than this says nothing
COMMON = frozenset(keyword.kwlist) | {"self", "cls", "None", "True", "False"}

Words = FrozenSet[str]


def code_words(code: types.CodeType) -> Words:
    """The names ``code`` (and the functions inside it) looks up, and its strings' words."""
    found: set[str] = set()
    todo = [code]
    while todo:
        current = todo.pop()
        found.update(n for n in current.co_names if n.isidentifier())  # not pytest's @py_
        for const in current.co_consts:
            if isinstance(const, types.CodeType):
                todo.append(const)
            elif isinstance(const, str) and len(const) < 200:
                found.update(WORD.findall(const))
    return frozenset(found - COMMON)


def words_of_tests(items: Iterable[Any]) -> dict[str, Words]:
    """Per collected test item, the words of its test function (none for other items)."""
    found: dict[str, Words] = {}
    cache: dict[types.CodeType, Words] = {}
    for item in items:
        code = getattr(getattr(item, "obj", None), "__code__", None)
        if isinstance(code, types.CodeType):
            if code not in cache:
                cache[code] = code_words(code)
            found[item.nodeid] = cache[code]
    return found


def line_words(source: str, offsets: Sequence[int], first: int, last: int) -> Words:
    """The words of lines ``first`` to ``last`` (1-based, inclusive) of ``source``, whose
    lines start at ``offsets``."""
    end = offsets[last] if last < len(offsets) else len(source)
    return frozenset(set(WORD.findall(source[offsets[first - 1] : end])) - COMMON)


def grouped(words: Mapping[str, Words]) -> list[list[list[str]]]:
    """``words`` as ``[words, nodeids]`` pairs, one per distinct set (a parametrized
    test's cases share their function's): what the baseline sends."""
    groups: dict[Words, list[str]] = {}
    for nodeid, found in words.items():
        groups.setdefault(found, []).append(nodeid)
    return [[sorted(found), nodeids] for found, nodeids in groups.items()]


class Affinity:
    """Covering tests reordered by the rare words they share with a mutant's lines."""

    def __init__(
        self,
        words: Mapping[str, Words] | None = None,
        durations: Mapping[str, float] | None = None,
    ):
        self.durations = durations or {}
        self.having: dict[str, set[str]] = {}
        for nodeid, found in (words or {}).items():
            for word in found:
                self.having.setdefault(word, set()).add(nodeid)

    @classmethod
    def of(
        cls, groups: Sequence[Sequence[Sequence[str]]], durations: Mapping[str, float]
    ) -> Affinity:
        """The affinity of ``grouped``'s pairs, the tests taking ``durations``."""
        words = {n: frozenset(found) for found, nodeids in groups for n in nodeids}
        return cls(words, durations)

    def first(self, wanted: Words, nodeids: list[str]) -> list[str]:
        """``nodeids`` with the tests naming rare words of ``wanted`` moved forward.

        A test's score is the sum of its shared words' rarity (``log`` of how many
        tests run per test naming it). Taking a test's chance to fail as growing with
        ``1 + score``, the order that spends least before the failing test goes by
        time per chance: a named test goes before every test of the rest, from where
        it would stand, that costs more than its own time over ``1 + score``. The
        rest keep their order (fastest first, or the caller's)."""
        if not wanted or len(nodeids) < 2:
            return nodeids
        chosen = set(nodeids)
        score: dict[str, float] = {}
        for word in wanted:
            with_word = self.having.get(word)
            if not with_word:
                continue
            naming = with_word & chosen
            if not naming or len(naming) > RARE * len(nodeids):
                continue
            weight = math.log(len(nodeids) / len(naming))
            for nodeid in naming:
                score[nodeid] = score.get(nodeid, 0.0) + weight
        if not score:
            return nodeids
        place = {n: i for i, n in enumerate(nodeids)}
        cost = {n: self.durations.get(n, 0.0) / (1.0 + score[n]) for n in score}
        named = sorted(score, key=lambda n: (cost[n], -score[n], place[n]))
        rest = [n for n in nodeids if n not in score]
        ordered: list[str] = []
        taken = 0
        for nodeid in named:
            while taken < len(rest) and self.durations.get(rest[taken], 0.0) < cost[nodeid]:
                ordered.append(rest[taken])
                taken += 1
            ordered.append(nodeid)
        return ordered + rest[taken:]
