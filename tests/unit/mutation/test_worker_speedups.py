"""The worker's shortcuts give exactly what the slow way gives (graft.Blocks, CodeCache,
TraceFromImport)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tddforge.mutation.generate import find_mutants
from tddforge.target.blocks import Blocks, find_code
from tddforge.target.codecache import CodeCache
from tddforge.target.source import apply_mutant, line_offsets
from tddforge.target.tracing import Targets, TraceFromImport, line_count

SOURCES = {
    "plain function": """\
        def add(a, b=1):
            return a + b if a > 0 else b - a
        """,
    "decorated, after the module docstring and an import": '''\
        """Doc."""
        import functools


        @functools.lru_cache(maxsize=None)
        @staticmethod
        def twice(x):
            return x * 2
        ''',
    "method using super() and a class attribute": """\
        class Base:
            def size(self):
                return 1


        class Box(Base):
            LIMIT = 3

            def size(self):
                return super().size() + self.LIMIT if self.LIMIT > 2 else 0
        """,
    "closure and a nested function": """\
        def outer(n):
            step = 2

            def inner(x):
                return x + step * n

            return inner(n) < 10
        """,
    "future annotations": """\
        from __future__ import annotations


        def typed(x: Undefined) -> Undefined:
            return x - 1
        """,
    "defined under a top-level if": """\
        import sys

        if sys.version_info >= (3, 0):
            def pick(a, b):
                return a if a >= b else b
        else:
            def pick(a, b):
                return b
        """,
    "a call statement over several lines": """\
        def log(items):
            items.append(
                "one",
            )
            return len(items) != 0
        """,
    "async function and a loop": """\
        async def drain(queue):
            total = 0
            for item in queue:
                if item is None:
                    break
                total += item
            return total
        """,
}


@pytest.mark.parametrize("name", SOURCES)
def test_blocks_compile_the_same_code_as_the_whole_mutated_module(name: str) -> None:
    source = textwrap.dedent(SOURCES[name])
    offsets = line_offsets(source)
    blocks = Blocks(source, offsets)
    grafts = [m.to_data() for m in find_mutants(source)]
    grafts = [m for m in grafts if m["strategy"] == "graft"]
    assert grafts, "the sample must have mutants inside functions"
    for m in grafts:
        whole = compile(apply_mutant(source, offsets, m), "target.py", "exec", dont_inherit=True)
        key = (m["graft_name"], m["graft_firstlineno"])
        expected = find_code(whole, *key)
        assert expected is not None
        assert find_code(blocks.compile(m, "target.py"), *key) == expected, m


def test_blocks_refuse_a_mutant_that_does_not_match_the_source() -> None:
    source = "def f():\n    return 1\n"
    (m,) = [m.to_data() for m in find_mutants(source) if m.replacement == "2"]
    with pytest.raises(ValueError, match="does not match"):
        Blocks(source.replace("1", "7"), line_offsets(source)).compile(m, "target.py")


@pytest.fixture()
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("cached_mod", "watched_mod"):
        sys.modules.pop(name, None)


def _import_fresh(name: str) -> object:
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


@pytest.fixture()
def cache() -> Iterator[CodeCache]:
    """An installed cache; the import system and pytest are restored afterwards."""
    cache = CodeCache()
    cache.install()
    try:
        yield cache
    finally:
        loader = importlib.machinery.SourceFileLoader
        loader.source_to_code = cache._compile  # type: ignore[method-assign]
        if cache._rewrite is not None:
            rewrite._rewrite_test = cache._rewrite


def test_code_cache_serves_unchanged_modules_and_never_stale_ones(
    module_dir: Path, cache: CodeCache
) -> None:
    path = module_dir / "cached_mod.py"
    path.write_text("VALUE = 1\n")
    cache.add_module(str(path))
    calls: list[str] = []
    original = cache._compile

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(str(args[2]))
        return original(*args, **kwargs)

    cache._compile = counting
    assert _import_fresh("cached_mod").VALUE == 1  # type: ignore[attr-defined]
    assert calls == []  # served from the cache, not compiled again
    path.write_text("VALUE = 2\n")
    assert _import_fresh("cached_mod").VALUE == 2  # type: ignore[attr-defined]
    assert calls == [str(path)]  # edited: compiled anew


def test_code_cache_serves_rewritten_tests_for_the_same_config_only(
    tmp_path: Path, cache: CodeCache, pytestconfig: pytest.Config
) -> None:
    path = tmp_path / "test_sample.py"
    path.write_text("def test_one():\n    assert 1 == 1\n")
    cache.add_test(str(path), pytestconfig)
    answer = rewrite._rewrite_test(path, pytestconfig)
    assert answer is cache.tests[str(path)][2]
    other = rewrite._rewrite_test(path, None)  # type: ignore[arg-type]
    assert other is not answer and other[1] == answer[1]
    path.write_text("def test_one():\n    assert 2 == 2\n")
    edited = rewrite._rewrite_test(path, pytestconfig)
    assert edited is not answer and edited[1] != answer[1]


def test_trace_from_import_starts_tracing_at_the_targets_import(module_dir: Path) -> None:
    path = module_dir / "watched_mod.py"
    path.write_text("def f():\n    return 1\n\nX = f()\n")
    traced: list[str] = []

    def trace(frame, event, arg):  # type: ignore[no-untyped-def]
        traced.append(frame.f_code.co_name)

    watch = TraceFromImport(Targets([str(path)]), trace)
    sys.meta_path.insert(0, watch)
    try:
        importlib.import_module("json.tool")  # another module: no tracing starts
        assert not watch.fired and sys.gettrace() is None
        _import_fresh("watched_mod")
    finally:
        sys.settrace(None)
        sys.meta_path.remove(watch)
    assert watch.fired and "<module>" in traced and "f" in traced
    assert not watch.missed()


def test_trace_from_import_notices_a_target_imported_behind_its_back(module_dir: Path) -> None:
    path = module_dir / "watched_mod.py"
    path.write_text("X = 1\n")
    watch = TraceFromImport(Targets([str(path)]), lambda *a: None)
    spec = importlib.util.spec_from_file_location("watched_mod", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["watched_mod"] = module
    spec.loader.exec_module(module)
    assert watch.missed()  # the baseline then counts every line as run at collection
    assert line_count(str(path)) == 1
