"""The openai-compatible client: the official SDK, our own retries, provider errors mapped once.

The SDK is imported when a client is built, never when this module is imported
(it is slow to import, and the offline paths never need it). The SDK's own
retries are off (``max_retries=0``) so that retry policy, waits and the error a
user sees are decided here, in one place.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from tddforge.config import Settings
from tddforge.errors import ConfigError, LLMError
from tddforge.llm.base import ChatMessage, Completion, CostMeter, TokenLogprob, Usage

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
    from openai.types.chat.chat_completion import Choice

BACKOFF_BASE = 0.5
BACKOFF_FACTOR = 2.0
BACKOFF_CAP = 20.0
RETRY_AFTER_CAP = 60.0
TOP_LOGPROBS = 5
# Local servers (Ollama, vLLM, llama.cpp, LM Studio) ignore the key, but the SDK insists on one.
PLACEHOLDER_API_KEY = "not-needed"
_LOGPROB_ARGS: dict[str, Any] = {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
NO_MODEL = "no model configured: set --model, TDDFORGE_MODEL or [tool.tddforge] model"

ErrorRow: TypeAlias = "tuple[type[Exception], bool, str]"


class NotAChatCompletion(Exception):
    """The endpoint answered 200 with something that is not a chat completion."""


def error_table(sdk: Any) -> tuple[ErrorRow, ...]:
    """Provider errors as (exception type, retryable, message); first match wins, subclasses first.

    ``sdk`` is the imported ``openai`` module (passed in so this module never imports it).
    Message fields: url, model, status, timeout, detail.
    """
    rejected = "model endpoint rejected the request ({status}): {detail}"
    return (
        (sdk.APITimeoutError, True, "model endpoint at {url} did not answer within {timeout:g} s"),
        (sdk.APIConnectionError, True, "connection to model endpoint {url} failed: {detail}"),
        (sdk.AuthenticationError, False, "model endpoint refused the API key ({status})"),
        (sdk.PermissionDeniedError, False, "model endpoint denied access to {model!r} ({status})"),
        (sdk.NotFoundError, False, "model endpoint at {url} has no model {model!r} ({status})"),
        (sdk.BadRequestError, False, rejected),
        (sdk.UnprocessableEntityError, False, rejected),
        (sdk.ConflictError, True, "model endpoint reported a conflict ({status}): {detail}"),
        (sdk.RateLimitError, True, "model endpoint is rate limiting requests ({status}): {detail}"),
        (sdk.InternalServerError, True, "model endpoint failed ({status}): {detail}"),
        (sdk.APIStatusError, False, "model endpoint answered HTTP {status}: {detail}"),
        (sdk.APIResponseValidationError, True, "model endpoint sent a malformed reply: {detail}"),
        (json.JSONDecodeError, True, "model endpoint at {url} sent invalid JSON: {detail}"),
        (NotAChatCompletion, True, "model endpoint at {url} sent {detail}"),
        (sdk.OpenAIError, False, "openai SDK error: {detail}"),
    )


def retry_delay(
    attempt: int, retry_after: float | None, jitter: Callable[[], float] = random.random
) -> float:
    """Seconds before retry ``attempt + 1``: Retry-After (capped) or jittered exponential backoff."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), RETRY_AFTER_CAP)
    backoff = min(BACKOFF_CAP, BACKOFF_BASE * BACKOFF_FACTOR**attempt)
    # "Equal jitter": at least half the backoff, so retries never collapse to zero.
    return backoff * (0.5 + 0.5 * jitter())


def retry_after_seconds(exc: BaseException) -> float | None:
    """The ``Retry-After`` seconds of a 429/503 response error, if the server sent them."""
    if getattr(exc, "status_code", None) not in (429, 503):
        return None
    response = getattr(exc, "response", None)
    value = None if response is None else response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP-date: fall back to backoff
        return None


def error_detail(exc: BaseException) -> str:
    """The most telling short text of an SDK error: the server's message, else the cause."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    if exc.__cause__ is not None and str(exc.__cause__):
        return str(exc.__cause__)
    return str(exc) or type(exc).__name__


class OpenAIClient:
    """An ``LLMClient`` for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp...)."""

    def __init__(
        self,
        settings: Settings,
        meter: CostMeter | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not settings.model:
            raise ConfigError(NO_MODEL)
        import openai  # deliberately lazy: slow to import, unused offline
        from openai.types.chat import ChatCompletion

        self._settings = settings
        self._model: str = settings.model
        self._meter = meter if meter is not None else CostMeter(settings.prices, settings.max_cost)
        self._sleep = sleep
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or PLACEHOLDER_API_KEY,
            timeout=settings.request_timeout,
            max_retries=0,
        )
        self._base_url = settings.base_url or str(self._client.base_url)
        self._errors = error_table(openai)
        self._catch = tuple(row[0] for row in self._errors)
        self._completion_type = ChatCompletion

    @property
    def total_cost(self) -> float:
        """Dollars charged to this client's meter so far."""
        return self._meter.spent

    @property
    def total_usage(self) -> Usage:
        """Tokens charged to this client's meter so far."""
        return self._meter.usage

    @property
    def meter(self) -> CostMeter:
        """The cost meter this client charges."""
        return self._meter

    def complete(
        self, messages: Sequence[ChatMessage], *, logprobs: bool | None = None
    ) -> Completion:
        """Send ``messages``; retry transient failures; charge the meter; return the reply."""
        self._meter.check_budget()
        want = self._settings.collect_logprobs if logprobs is None else logprobs
        response = self._send(messages, want)
        return self._to_completion(response, want)

    def close(self) -> None:
        """Close the SDK's HTTP connections."""
        self._client.close()

    def __enter__(self) -> OpenAIClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _send(self, messages: Sequence[ChatMessage], want_logprobs: bool) -> ChatCompletion:
        attempt = 0
        while True:
            try:
                return self._create(messages, want_logprobs)
            except self._catch as exc:
                error = self._translate(exc)
                if not error.retryable:
                    raise error from exc
                if attempt >= self._settings.max_retries:
                    raise _gave_up(error, attempt + 1) from exc
                self._sleep(retry_delay(attempt, retry_after_seconds(exc)))
                attempt += 1

    def _create(self, messages: Sequence[ChatMessage], want_logprobs: bool) -> ChatCompletion:
        payload = [{"role": m.role, "content": m.content} for m in messages]
        response = self._client.chat.completions.create(
            model=self._model,
            messages=cast("list[ChatCompletionMessageParam]", payload),
            temperature=self._settings.temperature,
            top_p=self._settings.top_p,
            **(_LOGPROB_ARGS if want_logprobs else {}),
        )
        # Without strict validation the SDK passes through whatever a server sends.
        if not isinstance(response, self._completion_type):
            raise NotAChatCompletion(f"a {type(response).__name__}, not a chat completion")
        if not getattr(response, "choices", None):
            raise NotAChatCompletion("a chat completion without choices")
        return response

    def _translate(self, exc: Exception) -> LLMError:
        _, retryable, template = next(row for row in self._errors if isinstance(exc, row[0]))
        status = getattr(exc, "status_code", None)
        message = template.format(
            url=self._base_url,
            model=self._model,
            status=status,
            timeout=self._settings.request_timeout,
            detail=error_detail(exc),
        )
        return LLMError(message, retryable=retryable, status=status)

    def _to_completion(self, response: ChatCompletion, want_logprobs: bool) -> Completion:
        choice = response.choices[0]
        usage = _usage(getattr(response, "usage", None))
        message = getattr(choice, "message", None)
        return Completion(
            text=getattr(message, "content", None) or "",
            model=getattr(response, "model", None) or self._model,
            usage=usage,
            cost=self._meter.charge(self._model, usage),
            logprobs=_logprobs(choice) if want_logprobs else None,
            finish_reason=getattr(choice, "finish_reason", None),
        )


def _gave_up(error: LLMError, attempts: int) -> LLMError:
    if attempts == 1:
        return error
    return LLMError(
        f"{error} (gave up after {attempts} attempts)", retryable=True, status=error.status
    )


def _usage(usage: Any) -> Usage:
    # Some local servers omit usage, or send nulls inside it.
    if usage is None:
        return Usage()
    prompt = getattr(usage, "prompt_tokens", None) or 0
    completion = getattr(usage, "completion_tokens", None) or 0
    return Usage(int(prompt), int(completion))


def _logprobs(choice: Choice) -> tuple[TokenLogprob, ...] | None:
    block = getattr(choice, "logprobs", None)
    content = getattr(block, "content", None)
    if content is None:
        return None
    return tuple(
        TokenLogprob(
            token=item.token,
            logprob=float(item.logprob),
            top=tuple((alt.token, float(alt.logprob)) for alt in (item.top_logprobs or ())),
        )
        for item in content
    )
