"""A call that leaves a thread running (not a daemon) is noticed: a test of it never ends,
pytest waiting for that thread as it exits (pykka's ``ThreadingActor().start()``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from tddforge.target.calls import threads_left


@pytest.fixture
def stop() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()  # the threads left waiting end with the test


def _started(target: Callable[[], object], daemon: bool = False) -> None:
    threading.Thread(target=target, daemon=daemon).start()


@pytest.mark.parametrize(
    ("case", "left"),
    [
        ("waits for what never comes", True),
        ("a daemon waiting", False),  # the interpreter does not wait for it
        ("ends at once", False),
        ("ends within the grace", False),
        ("started nothing", False),
    ],
)
def test_threads_left(case: str, left: bool, stop: threading.Event) -> None:
    running = {t.ident for t in threading.enumerate()}
    if case == "waits for what never comes":
        _started(stop.wait)
    elif case == "a daemon waiting":
        _started(stop.wait, daemon=True)
    elif case == "ends at once":
        _started(lambda: None)
    elif case == "ends within the grace":
        _started(lambda: stop.wait(0.05))
    assert threads_left(running) is left


def test_a_thread_running_before_the_call_is_not_the_calls(stop: threading.Event) -> None:
    _started(stop.wait)
    assert threads_left({t.ident for t in threading.enumerate()}) is False
