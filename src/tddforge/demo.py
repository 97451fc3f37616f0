"""``tddforge demo``: the RED stage on a bundled example, with no key and no network.

The model's reply is recorded (``examples/red_reply.md``) and served by the
loopback fake server, so the real openai SDK, sandbox, pytest run, validation
and traceability all run for real on the bundled spec.
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path

from tddforge.config import load_settings
from tddforge.errors import InputError
from tddforge.llm import make_client
from tddforge.llm.fakeserver import FakeOpenAIServer
from tddforge.orchestration.red_stage import RedOptions, run_red
from tddforge.outcome import Outcome
from tddforge.runner import interpreter_for
from tddforge.spec import load_spec
from tddforge.types import Progress


def _prepare(project: Path | None) -> Path:
    if project is None:
        return Path(tempfile.mkdtemp(prefix="tddforge-demo-"))
    if project.exists() and any(project.iterdir()):
        raise InputError(f"demo needs an empty or new directory: {project} is not empty")
    project.mkdir(parents=True, exist_ok=True)
    return project.resolve()


def run_demo(project: Path | None, progress: Progress) -> Outcome:
    """Run the demo: the RED stage's outcome (its goal is a valid RED)."""
    root = _prepare(project)
    examples = resources.files("tddforge") / "examples"
    spec_path = root / "spec.yaml"
    with resources.as_file(examples / "red_spec.yaml") as src:
        shutil.copyfile(src, spec_path)
    reply = (examples / "red_reply.md").read_text(encoding="utf-8")
    progress(f"demo project: {root} (model replies are recorded, served on 127.0.0.1)")
    with FakeOpenAIServer(model="recorded-demo") as server:
        server.enqueue(reply)
        settings = load_settings(
            root, {}, {"model": "recorded-demo", "base_url": server.base_url, "api_key": "demo"}
        )
        options = RedOptions(root, interpreter_for(root, None))
        return run_red(load_spec(spec_path), make_client(settings), settings, options, progress)
