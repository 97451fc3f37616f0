"""The mutation worker's entry: one request (cold), or warm mode (``--serve``).

``worker CONFIG`` scores one request; ``worker --serve`` keeps this pristine
process (pytest imported, nothing of the project) alive and takes one config
per stdin line, answering one line per request on stdout: re-scoring then
skips interpreter start-up and imports. Each request is scored in a forked,
quiet child, so this process stays pristine.
"""

from __future__ import annotations

import gc
import json
import os
import time

from .codecache import CODE_CACHE
from .hosting import Starter
from .journal import Journal, read_events
from .preimported import forget_preimported
from .processes import fork_child, quiet
from .protocol import BASELINE, SOURCES, ServeAnswer, SourcesEvent, WorkerConfig
from .request import targets_of
from .session import guarded, score_request


def run_request(config: WorkerConfig, starter: Starter | None = None) -> None:
    """Score one request in a forked, quiet child, so this process stays pristine (warm mode)."""

    def child() -> int:
        quiet()  # before pytest's capture saves the real stdout
        forget_preimported(targets_of(config))  # a target pytest itself imported as it started
        journal = Journal(config["results"])
        return guarded(lambda: score_request(config, starter), journal)

    os.waitpid(fork_child(child), 0)


def serve() -> None:
    """Warm mode: one config per stdin line; answer one JSON line per request on stdout."""
    # pytest's global capture, started when a config is prepared here, takes over fds 0-2:
    # requests and answers travel on duplicates made first, and it saves /dev/null.
    requests = os.fdopen(os.dup(0), "r")
    out = os.fdopen(os.dup(1), "w")
    quiet()
    starters: dict[str, Starter] = {}
    for line in requests:
        if not line.strip():
            continue
        started = time.monotonic()
        config: WorkerConfig = json.loads(line)
        starter = _starter_for(config, starters)
        run_request(config, starter)
        answer = ServeAnswer(done=True, elapsed=time.monotonic() - started)
        out.write(json.dumps(answer) + "\n")
        out.flush()
        _keep_compiled(config["results"], starter)
        gc.collect()
        gc.freeze()  # the next request's collections then skip all of this process's heap


def _keep_compiled(results: str, starter: Starter | None) -> None:
    """Warm mode: compile here what the last request's collection imported, so the next
    request's children (its baseline's collection first) start with it compiled.

    An entry serves only the exact bytes it was compiled from (``CodeCache``),
    so a file edited since is compiled anew.
    """
    sources = _collected_sources(results)
    if sources is not None:
        CODE_CACHE.add_sources(sources, starter.prepared if starter is not None else None)


def _collected_sources(results: str) -> SourcesEvent | None:
    """The request's sources events, merged: written as its collection ended and as its
    tests did, so before its baseline event (the verdicts after it need not be read)."""
    found = None
    try:
        for event in read_events(results):
            if event["event"] == SOURCES:  # the collection's, then what the tests imported
                found = event if found is None else _merged(found, event)
            elif event["event"] == BASELINE:
                break
    except OSError:
        return None
    return found


def _merged(first: SourcesEvent, then: SourcesEvent) -> SourcesEvent:
    return SourcesEvent(
        event=first["event"],
        modules=[*first["modules"], *then["modules"]],
        tests=[*first["tests"], *then["tests"]],
    )


def _starter_for(config: WorkerConfig, starters: dict[str, Starter]) -> Starter | None:
    """A config prepared in this process and kept while its key holds (warm mode only).

    Preparing loads conftests here; when one imports the target, nothing is kept
    and each request prepares its own (this process must stay pristine).
    """
    key = config.get("config_key")
    if not key:
        return None
    if key not in starters:
        starters.clear()
        forget_preimported(targets_of(config))
        if not _prepares_cleanly(config):
            return None
        starter = Starter(config)
        starter.prepare(targets_of(config))
        starters[key] = starter
    return starters[key]


def _prepares_cleanly(config: WorkerConfig) -> bool:
    """Prepare pytest's config in a throwaway child: does it work without importing the target?"""

    def child() -> int:
        starter = Starter(config)
        starter.prepare(targets_of(config))
        return 0 if starter.prepared is not None else 1

    _, status = os.waitpid(fork_child(child), 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def main(argv: list[str]) -> int:
    """``worker CONFIG`` or ``worker --serve``."""
    args = argv[1:]
    if args[:1] == ["--serve"]:
        serve()
        return 0
    config = await_config(args[0])
    if config is not None:
        run_request(config)
    return 0


def await_config(path: str, patience: float = 3600.0) -> WorkerConfig | None:
    """The request at ``path``, once the host has written it: it starts this process
    first and makes the mutants meanwhile. None when the host had none to give (bad
    input, ``abort``), or went away, or did not write it within ``patience`` seconds."""
    parent = os.getppid()
    deadline = time.monotonic() + patience
    while not os.path.exists(path):
        if os.getppid() != parent or time.monotonic() > deadline:
            return None
        time.sleep(0.002)
    with open(path, encoding="utf-8") as handle:
        config = json.load(handle)
    return None if config.get("abort") else config
