"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for tests of the real SDK path.

Stdlib only. Replies and failures are queued first in, first out; rules (checked
first) answer every request they match. With nothing scripted the server answers
500 "script exhausted", so a test that under-scripts fails loudly::

    with FakeOpenAIServer() as server:
        server.enqueue("hello")
        ... point a client at server.base_url ...
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, TypeAlias

RequestPredicate: TypeAlias = Callable[[dict[str, Any]], bool]


@dataclass(frozen=True)
class FakeReply:
    """A 200 chat completion; ``delay`` seconds pass before it is sent."""

    text: str
    logprobs: tuple[tuple[str, float], ...] | None = None
    top_logprobs: tuple[tuple[tuple[str, float], ...], ...] | None = None
    usage: tuple[int, int] | None = None
    omit_usage: bool = False
    finish_reason: str = "stop"
    delay: float = 0.0


@dataclass(frozen=True)
class FakeFailure:
    """An HTTP error with an OpenAI-shaped JSON error body."""

    status: int = 500
    retry_after: float | None = None
    message: str = "injected failure"


@dataclass(frozen=True)
class FakeRaw:
    """Raw bytes; a ``declared_length`` above ``len(body)`` makes a truncated response."""

    body: bytes
    status: int = 200
    declared_length: int | None = None


Action: TypeAlias = FakeReply | FakeFailure | FakeRaw


class FakeOpenAIServer:
    """Serves ``POST /v1/chat/completions`` and ``GET /v1/models`` from a script."""

    def __init__(self, model: str = "fake-model") -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str | None] = []
        self._queue: deque[Action] = deque()
        self._rules: list[tuple[RequestPredicate, Action]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind 127.0.0.1 on a free port and serve in a daemon thread (idempotent)."""
        if self._httpd is None:
            self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler, self)
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},  # shutdown() waits up to one poll
                name="fake-openai",
                daemon=True,
            )
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, cut delayed replies short and join the handler threads."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, for the client's ``base_url``."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not started; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    # -- scripting -------------------------------------------------------------

    def enqueue(
        self,
        text: str,
        *,
        logprobs: Sequence[tuple[str, float]] | None = None,
        top_logprobs: Sequence[Sequence[tuple[str, float]]] | None = None,
        usage: tuple[int, int] | None = None,
        omit_usage: bool = False,
        finish_reason: str = "stop",
    ) -> FakeOpenAIServer:
        """Queue a reply; ``usage`` is (prompt, completion) tokens, estimated when None."""
        tops = None if top_logprobs is None else tuple(tuple(alts) for alts in top_logprobs)
        return self.push(
            FakeReply(
                text,
                logprobs=None if logprobs is None else tuple(logprobs),
                top_logprobs=tops,
                usage=usage,
                omit_usage=omit_usage,
                finish_reason=finish_reason,
            )
        )

    def fail(
        self, status: int = 500, *, retry_after: float | None = None, message: str | None = None
    ) -> FakeOpenAIServer:
        """Queue an HTTP error, with a ``Retry-After`` header when given."""
        return self.push(FakeFailure(status, retry_after, message or f"injected HTTP {status}"))

    def delay(self, seconds: float, text: str = "(late reply)") -> FakeOpenAIServer:
        """Queue a reply sent only after ``seconds`` (to trip client timeouts)."""
        return self.push(FakeReply(text, delay=seconds))

    def truncated(self) -> FakeOpenAIServer:
        """Queue a 200 whose Content-Length promises more than is sent before closing."""
        body = b'{"id": "chatcmpl-cut", "object": "chat.completion", "choi'
        return self.push(FakeRaw(body, declared_length=len(body) + 512))

    def invalid_json(self) -> FakeOpenAIServer:
        """Queue a complete 200 response whose JSON body is malformed."""
        return self.push(FakeRaw(b'{"id": "chatcmpl-bad", "choices": [oops'))

    def push(self, action: Action) -> FakeOpenAIServer:
        """Queue any action (reply, failure, raw bytes)."""
        with self._lock:
            self._queue.append(action)
        return self

    def add_rule(self, predicate: RequestPredicate, reply: str | Action) -> FakeOpenAIServer:
        """Answer ``reply`` to every request whose JSON body satisfies ``predicate``."""
        action = FakeReply(reply) if isinstance(reply, str) else reply
        with self._lock:
            self._rules.append((predicate, action))
        return self

    @property
    def pending(self) -> int:
        """Queued actions not served yet."""
        with self._lock:
            return len(self._queue)

    # -- serving (called from handler threads) ----------------------------------

    def _take(self, body: dict[str, Any], authorization: str | None) -> Action | None:
        with self._lock:
            self.requests.append(body)
            self.authorizations.append(authorization)
            for predicate, action in self._rules:
                if predicate(body):
                    return action
            return self._queue.popleft() if self._queue else None

    def _wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    def _completion(self, reply: FakeReply, request: dict[str, Any]) -> dict[str, Any]:
        return completion_json(
            reply,
            model=str(request.get("model") or self.model),
            number=next(self._ids),
            prompt_chars=_prompt_chars(request),
        )


def completion_json(
    reply: FakeReply, *, model: str, number: int = 1, prompt_chars: int = 0
) -> dict[str, Any]:
    """The OpenAI ``chat.completion`` JSON for ``reply``."""
    prompt, completion = reply.usage or (prompt_chars // 4, len(reply.text) // 4)
    data: dict[str, Any] = {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": reply.finish_reason,
                "logprobs": _logprobs_json(reply),
            }
        ],
    }
    if not reply.omit_usage:
        data["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return data


def _logprobs_json(reply: FakeReply) -> dict[str, Any] | None:
    if reply.logprobs is None:
        return None
    content: list[dict[str, Any]] = []
    for index, (token, logprob) in enumerate(reply.logprobs):
        tops = reply.top_logprobs[index] if reply.top_logprobs else ((token, logprob),)
        entry = _token_json(token, logprob)
        entry["top_logprobs"] = [_token_json(alt, alt_logprob) for alt, alt_logprob in tops]
        content.append(entry)
    return {"content": content, "refusal": None}


def _token_json(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8"))}


def _prompt_chars(request: dict[str, Any]) -> int:
    messages = request.get("messages")
    if not isinstance(messages, list):
        return 0
    return sum(len(str(m.get("content") or "")) for m in messages if isinstance(m, dict))


def _error_json(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _HTTPServer(ThreadingHTTPServer):
    # Handler threads are joined on close; delayed replies wake on the stop event.
    daemon_threads = False
    block_on_close = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        fake: FakeOpenAIServer,
    ) -> None:
        super().__init__(address, handler)
        self.fake = fake


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    # HTTP/1.0: one request per connection, so no idle keep-alive thread outlives a test.
    protocol_version = "HTTP/1.0"
    timeout = 10

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet; tests read ``requests`` instead of a log."""

    def do_GET(self) -> None:
        """List models, as ``GET /v1/models`` does."""
        if self.path.rstrip("/") != "/v1/models":
            self._send_json(404, _error_json(f"no route GET {self.path}", "invalid_request_error"))
            return
        model = {"id": self.server.fake.model, "object": "model", "created": 0, "owned_by": "fake"}
        self._send_json(200, {"object": "list", "data": [model]})

    def do_POST(self) -> None:
        """Answer a chat completion from the script."""
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send_json(404, _error_json(f"no route POST {self.path}", "invalid_request_error"))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            self._send_json(400, _error_json("request body is not JSON", "invalid_request_error"))
            return
        if not isinstance(body, dict):
            self._send_json(400, _error_json("request body must be an object", "invalid_request"))
            return
        self._answer(body)

    def _answer(self, body: dict[str, Any]) -> None:
        fake = self.server.fake
        action = fake._take(body, self.headers.get("Authorization"))
        if action is None:
            message = f"FakeOpenAIServer script exhausted at request #{len(fake.requests)}"
            self._send_json(500, _error_json(message, "server_error", "script_exhausted"))
        elif isinstance(action, FakeReply):
            fake._wait(action.delay)
            self._send_json(200, fake._completion(action, body))
        elif isinstance(action, FakeFailure):
            self._send_failure(action)
        else:
            self._send_bytes(action.status, action.body, action.declared_length)

    def _send_failure(self, failure: FakeFailure) -> None:
        headers = {}
        if failure.retry_after is not None:
            headers["Retry-After"] = f"{failure.retry_after:g}"
        error = _error_json(failure.message, "server_error" if failure.status >= 500 else "error")
        self._send_json(failure.status, error, headers)

    def _send_json(
        self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        self._send_bytes(status, json.dumps(data).encode("utf-8"), None, headers)

    def _send_bytes(
        self,
        status: int,
        body: bytes,
        declared_length: int | None,
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(declared_length or len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            # The client gave up (e.g. timed out during a delay): nothing left to tell it.
            self.close_connection = True


__all__ = [
    "FakeFailure",
    "FakeOpenAIServer",
    "FakeRaw",
    "FakeReply",
    "completion_json",
]
