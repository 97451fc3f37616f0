"""A stand-in model for trying prompts end to end: each request becomes a file, a reply file answers it.

Usage: python tools/model_bridge.py DIR [--port N]

It serves an OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1 (the URL is
printed and written to ``DIR/base_url``). Each request is written to
``DIR/NNN.request.md`` (every message under its role), and the bridge waits until
``DIR/NNN.reply.md`` exists, then answers with its text. Whoever writes the replies
(a person, or an agent told to answer from the request's text alone) stands in for a
live model; ``tddforge kata/build/cover --model M --base-url URL`` runs against it
unchanged. Stop it with Ctrl-C or by creating ``DIR/STOP``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tddforge.llm.fakeserver import FakeReply, completion_json

POLL_SECONDS = 0.5


class Bridge(ThreadingHTTPServer):
    """The server: numbers requests and waits for their replies in ``folder``."""

    def __init__(self, folder: Path, port: int) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.folder = folder
        self.counter = itertools.count(1)
        self.lock = threading.Lock()

    def ask(self, body: dict[str, Any]) -> str | None:
        """Write the request, wait for its reply; None when the bridge is stopped."""
        with self.lock:
            number = next(self.counter)
        request = self.folder / f"{number:03d}.request.md"
        reply = self.folder / f"{number:03d}.reply.md"
        messages = body.get("messages", [])
        text = "\n".join(f"## {m.get('role')}\n\n{m.get('content', '')}\n" for m in messages)
        request.write_text(text, encoding="utf-8")
        print(f"request {number:03d} waiting for {reply.name}", file=sys.stderr, flush=True)
        while not reply.exists():
            if (self.folder / "STOP").exists():
                return None
            time.sleep(POLL_SECONDS)
        time.sleep(POLL_SECONDS)  # let the writer finish the file
        return reply.read_text(encoding="utf-8")


class Handler(BaseHTTPRequestHandler):
    """POST /v1/chat/completions → the reply file's text."""

    server: Bridge

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the bridge prints its own lines."""

    def do_POST(self) -> None:
        """Answer one chat completion request."""
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        text = self.server.ask(body)
        if text is None:
            self._send(503, {"error": {"message": "the bridge was stopped", "type": "stopped"}})
            return
        chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        model = str(body.get("model", "bridge"))
        self._send(200, completion_json(FakeReply(text), model=model, prompt_chars=chars))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    """Serve until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    bridge = Bridge(args.folder.resolve(), args.port)
    url = f"http://127.0.0.1:{bridge.server_address[1]}/v1"
    (args.folder / "base_url").write_text(url + "\n", encoding="utf-8")
    print(f"serving {url}; requests and replies in {args.folder}", file=sys.stderr, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        bridge.serve_forever(poll_interval=POLL_SECONDS)


if __name__ == "__main__":
    main()
