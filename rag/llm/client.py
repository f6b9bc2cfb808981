"""One OpenAI-compatible chat client (plain and streaming) with timeouts, exponential backoff with
jitter on 429 / 5xx / timeouts, a circuit breaker per endpoint and a fallback provider (Adaptive)."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # the SDK (and its transport, httpx2) take long to import: loaded on first need
    import openai
    import openai.types.chat

from rag.hidden_chars import clean
from rag.llm import read_speed
from rag.llm.base import Attempt, Completion, FailureKind, LLMError, Message
from rag.llm.breaker import CircuitBreaker, breaker_for
from rag.llm.deadline import Redactor, current_deadline, record_call
from rag.llm.structured import FORMAT_SUPPORT, ReplyFormat, ReplySchema, refusal_of_format
from rag.settings.llm import LLMSettings

RETRYABLE: frozenset[FailureKind] = frozenset({"rate_limit", "server", "timeout", "connection"})
MIN_SECRET_CHARS = 8  # no provider issues shorter keys
NO_KEY = "not-needed"  # local servers (Ollama, vLLM) accept any key; the SDK insists on one


@dataclass(frozen=True)
class Endpoint:
    """Where to send calls. The key is excluded from repr and from `describe()`."""

    name: str  # "primary" or "fallback"
    base_url: str
    model: str
    api_key: str = field(default=NO_KEY, repr=False)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "base_url": self.base_url, "model": self.model}


def endpoints_from(settings: LLMSettings, env: Mapping[str, str] | None = None) -> tuple[Endpoint, ...]:
    """Primary and (when configured) fallback endpoints from the environment variables the
    settings name; empty when no base URL is set."""
    env = os.environ if env is None else env
    endpoints = []
    if url := env.get(settings.base_url_env):
        endpoints.append(Endpoint("primary", url, settings.model, env.get(settings.api_key_env) or NO_KEY))
    fallback_url = env.get(settings.fallback_base_url_env) or (url if settings.fallback_model else None)
    if fallback_url and settings.fallback_model:
        key = env.get(settings.fallback_api_key_env) or env.get(settings.api_key_env) or NO_KEY
        endpoints.append(Endpoint("fallback", fallback_url, settings.fallback_model, key))
    return tuple(endpoints)


def classify(exc: BaseException) -> FailureKind:
    """Map an SDK / transport / parsing exception to a failure kind."""
    import httpx2
    import openai

    if isinstance(exc, openai.RateLimitError):
        return "rate_limit"
    if isinstance(exc, openai.APIStatusError):
        return "server" if exc.status_code >= 500 else "client_error"
    if isinstance(exc, (openai.APITimeoutError, httpx2.TimeoutException)):
        return "timeout"
    if isinstance(exc, (openai.APIConnectionError, httpx2.TransportError)):
        return "connection"
    return "invalid_response"  # JSON errors, validation errors, missing fields


@cache
def call_errors() -> tuple[type[BaseException], ...]:
    """What one call can raise that we classify; anything else is a bug and propagates."""
    import httpx2
    import openai

    return (
        openai.OpenAIError,
        httpx2.HTTPError,
        json.JSONDecodeError,
        KeyError,
        IndexError,
        AttributeError,
        TypeError,
    )


class LLMClient:
    """Calls go to the primary endpoint, then the fallback; each with retries, behind its breaker."""

    def __init__(
        self,
        settings: LLMSettings,
        endpoints: Sequence[Endpoint] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.endpoints = tuple(endpoints) if endpoints is not None else endpoints_from(settings)
        if not self.endpoints:
            raise LLMError(
                "not_configured", f"no LLM endpoint: set {settings.base_url_env} (generation.base_url_env)"
            )
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._sdk: dict[str, openai.OpenAI] = {}

    # -- public API ----------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], max_tokens: int | None = None,
             schema: ReplySchema | None = None) -> Completion:
        """A complete answer, or LLMError naming the last failure and listing every attempt.
        With `schema` (and generation.structured_replies on) the endpoint is asked to constrain
        the reply to it, where it can (rag.llm.structured)."""
        use_schema = schema if self.settings.structured_replies else None
        stream = LLMStream(self, messages, max_tokens, streaming=False, schema=use_schema)
        for _ in stream:
            pass
        return stream.completion()

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> LLMStream:
        """Tokens as they arrive; `completion()` afterwards says who answered after which attempts."""
        return LLMStream(self, messages, max_tokens, streaming=True)

    def breaker(self, endpoint: Endpoint) -> CircuitBreaker:
        s = self.settings
        return breaker_for(f"{endpoint.base_url}|{endpoint.model}", s.breaker_failures, s.breaker_cooldown_s)

    def describe(self) -> list[dict[str, str]]:
        """Endpoints and breaker states for a trace (no keys)."""
        return [{**e.describe(), "breaker": self.breaker(e).state} for e in self.endpoints]

    # -- internals ------------------------------------------------------------------------------
    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential backoff with jitter (Brooker, AWS Architecture Blog 2015): base·2^(n-1),
        capped, of which a `jitter` fraction is drawn uniformly; a server's Retry-After wins."""
        s = self.settings
        delay = min(s.backoff_max_s, s.backoff_base_s * 2 ** (attempt - 1))
        if retry_after is not None:
            return min(s.backoff_max_s, retry_after)
        return delay * (1 - s.jitter) + self._rng.uniform(0, delay * s.jitter)

    def sdk(self, endpoint: Endpoint) -> openai.OpenAI:
        import openai

        if endpoint.name not in self._sdk:
            # max_retries=0: we retry ourselves so that every attempt lands in the trace
            self._sdk[endpoint.name] = openai.OpenAI(
                base_url=endpoint.base_url,
                api_key=endpoint.api_key,
                timeout=self.settings.timeout_s,
                max_retries=0,
            )
        return self._sdk[endpoint.name]

    def secrets(self) -> tuple[str, ...]:
        """The keys of every endpoint: masked wherever text from a provider goes. A key shorter
        than MIN_SECRET_CHARS is a local server's placeholder (it takes any key: "x", "local"),
        and masking it would cut those letters out of every answer."""
        return tuple(e.api_key for e in self.endpoints
                     if e.api_key != NO_KEY and len(e.api_key) >= MIN_SECRET_CHARS)

    def redact(self, text: str) -> str:
        return Redactor(self.secrets()).redact(text)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class LLMStream:
    """Iterate for tokens. Retries and provider fallback happen before the first token; a failure
    after tokens have been yielded raises LLMError (a partial answer is never silently completed)."""

    def __init__(
        self, client: LLMClient, messages: Sequence[Message], max_tokens: int | None, streaming: bool,
        schema: ReplySchema | None = None,
    ) -> None:
        self._client = client
        self._schema = schema
        self.reply_format: ReplyFormat = "text"
        # the last edge before the wire: no hidden character leaves the process, whichever stage
        # or setting built the prompt (the question and passages were stripped earlier already)
        self._messages = [{**m.as_dict(), "content": clean(m.content)} for m in messages]
        # generation.max_tokens caps every call: a stage may ask for fewer, never for more
        self._max_tokens = min(max_tokens or client.settings.max_tokens, client.settings.max_tokens)
        self._streaming = streaming
        self.attempts: list[Attempt] = []
        self.text = ""
        self.finish_reason = ""
        self._answered_by: Endpoint | None = None

    def completion(self) -> Completion:
        assert self._answered_by is not None, "iterate the stream to the end first"
        e = self._answered_by
        return Completion(self.text, e.name, e.model, tuple(self.attempts), self.finish_reason,
                          self.reply_format)

    def __iter__(self) -> Iterator[str]:
        last: tuple[FailureKind, str] = ("not_configured", "no endpoint tried")
        for endpoint in self._client.endpoints:
            breaker = self._client.breaker(endpoint)
            caught: tuple[type[BaseException], ...] = (_Empty, _DeadlineHit, *call_errors())
            for number in range(1, self._client.settings.retries + 2):
                if not breaker.allow():
                    last = ("circuit_open", f"{endpoint.name}: circuit open, call not sent")
                    self.attempts.append(
                        Attempt(endpoint.name, endpoint.model, number, "circuit_open", 0.0, last[1])
                    )
                    break
                self._check_deadline(endpoint, number)
                started = time.perf_counter()
                yielded = False
                redactor = Redactor(self._client.secrets())  # the key never leaves in an answer
                try:
                    for piece in self._redacted(self._call(endpoint), redactor):
                        yielded = True
                        self.text += piece
                        yield piece
                    if not self.text.strip():
                        raise _Empty()
                except caught as exc:
                    kind: FailureKind = (
                        "empty" if isinstance(exc, _Empty) else "deadline" if isinstance(exc, _DeadlineHit)
                        else classify(exc)
                    )
                    detail = self._client.redact(f"{type(exc).__name__}: {exc}"[:300])
                    if kind == "deadline" and yielded and self.text.strip():
                        # the budget ended a streamed answer: what came is kept, cut back to
                        # its last whole sentence by the answerer's clean-up (finish "deadline")
                        self.finish_reason = "deadline"
                        self.attempts.append(Attempt(endpoint.name, endpoint.model, number, "ok",
                                                     _ms(started), f"cut by the deadline: {detail}"))
                        record_call(_ms(started) / 1000)
                        self._answered_by = endpoint
                        return
                    if kind != "deadline":  # our budget ended the call: not the endpoint's failure
                        breaker.record_failure()
                    retry = kind in RETRYABLE and number <= self._client.settings.retries
                    delay = self._client.backoff(number, _retry_after(exc)) if retry and not yielded else 0.0
                    self.attempts.append(
                        Attempt(endpoint.name, endpoint.model, number, kind, _ms(started), detail, delay)
                    )
                    record_call(_ms(started) / 1000)
                    last = (kind, detail)
                    if yielded:  # tokens already went out: do not splice another answer in
                        raise LLMError(
                            kind, f"stream broke after {len(self.text)} chars: {detail}", tuple(self.attempts)
                        ) from None
                    if not retry:
                        break
                    deadline = current_deadline()
                    if deadline is not None and deadline.remaining() < delay:
                        delay = max(0.0, deadline.remaining())  # the next check ends it
                    self._client._sleep(delay)
                    continue
                breaker.record_success()
                self.attempts.append(Attempt(endpoint.name, endpoint.model, number, "ok", _ms(started)))
                record_call(_ms(started) / 1000)
                self._answered_by = endpoint
                return
        raise LLMError(last[0], f"every LLM provider failed; last: {last[1]}", tuple(self.attempts))

    def _check_deadline(self, endpoint: Endpoint, number: int) -> None:
        """Raise LLMError("deadline") when the query's LLM deadline has passed: no call is sent."""
        deadline = current_deadline()
        if deadline is None or deadline.remaining() > 0:
            return
        detail = (f"{deadline.describe()} reached (generation.deadline_s); "
                  f"{len(self.attempts)} earlier attempt(s)")
        self.attempts.append(Attempt(endpoint.name, endpoint.model, number, "deadline", 0.0, detail))
        raise LLMError("deadline", detail, tuple(self.attempts))

    def _redacted(self, tokens: Iterator[str], redactor: Redactor) -> Iterator[str]:
        """Tokens with secrets masked; a deadline passing mid-stream ends the call (a plain call is
        bounded by its timeout, and its one answer is kept)."""
        deadline = current_deadline() if self._streaming else None
        for token in tokens:
            if piece := redactor.feed(token):
                yield piece
            if deadline is not None and deadline.remaining() <= 0:
                raise _DeadlineHit(f"{deadline.describe()} reached mid-answer")
        if tail := redactor.flush():
            yield tail

    def _call(self, endpoint: Endpoint) -> Iterator[str]:
        sdk = self._client.sdk(endpoint)
        s = self._client.settings
        # role/content dicts
        messages = cast("list[openai.types.chat.ChatCompletionMessageParam]", self._messages)
        model, temperature, max_tokens = endpoint.model, s.temperature, self._max_tokens
        deadline = current_deadline()
        timeout = s.timeout_s if deadline is None else max(0.01, min(s.timeout_s, deadline.remaining()))
        if not self._streaming:
            response = self._create_structured(endpoint, messages, max_tokens, timeout)
            self.finish_reason = response.choices[0].finish_reason or ""
            if text := response.choices[0].message.content:
                yield text
            return
        sent = time.perf_counter()
        try:  # a server still reading the prompt sends no headers: the timeout can fire here
            stream = sdk.chat.completions.create(
                model=model, messages=messages, temperature=temperature, max_tokens=max_tokens,
                stream=True, timeout=timeout,
            )
        except Exception as exc:
            if deadline is not None and deadline.remaining() <= 0:
                self._still_reading(endpoint, sent)
                raise _DeadlineHit(f"{deadline.describe()} reached before the reply began") from exc
            raise
        # The read timeout never fires while a server sends keep-alive pings (llama.cpp's does,
        # every 15 s, while it reads a long prompt) and no token comes to check the deadline at:
        # close the stream when the deadline passes.
        passed = threading.Event()
        hit = f"{deadline.describe()} reached mid-call" if deadline else ""

        def close_at_deadline() -> None:
            passed.set()
            stream.close()

        watchdog = threading.Timer(max(0.0, deadline.remaining()), close_at_deadline) if deadline else None
        if watchdog is not None:
            watchdog.daemon = True
            watchdog.start()
        first: float | None = None
        written = 0
        try:
            for chunk in stream:
                if chunk.choices and chunk.choices[0].finish_reason:
                    self.finish_reason = chunk.choices[0].finish_reason
                if chunk.choices and (piece := chunk.choices[0].delta.content):
                    if first is None:
                        first = time.perf_counter()
                        read_speed.record("reading", endpoint.base_url, model, self._prompt_chars(),
                                          first - sent)
                    written += len(piece)
                    yield piece
        except Exception as exc:  # whatever reading a stream closed under it raises
            # the read timeout is the deadline too: whichever of it and the watchdog fires
            # first, a call that ends after its deadline ended because of it
            if passed.is_set() or (deadline is not None and deadline.remaining() <= 0):
                if first is None:
                    self._still_reading(endpoint, sent)
                raise _DeadlineHit(hit) from exc
            raise
        finally:
            if watchdog is not None:
                watchdog.cancel()
        if passed.is_set() and not self.finish_reason:
            raise _DeadlineHit(hit)
        if first is not None:
            read_speed.record("writing", endpoint.base_url, model, written, time.perf_counter() - first)

    def _still_reading(self, endpoint: Endpoint, sent: float) -> None:
        """Time ran out before the first token: this endpoint reads at most this fast."""
        read_speed.record("reading", endpoint.base_url, endpoint.model, self._prompt_chars(),
                          time.perf_counter() - sent)

    def _prompt_chars(self) -> int:
        return sum(len(str(m.get("content") or "")) for m in self._messages)

    def _create_structured(
        self, endpoint: Endpoint, messages: list[openai.types.chat.ChatCompletionMessageParam],
        max_tokens: int, timeout: float,
    ) -> openai.types.chat.ChatCompletion:
        """One plain call, constrained to the schema in the first dialect the endpoint has not
        refused; a refusal of the format (not of the request) moves on to the next, then to text."""
        import openai

        sdk, s = self._client.sdk(endpoint), self._client.settings
        # per schema: an endpoint may take one schema and refuse another's keywords
        key = f"{endpoint.base_url}|{endpoint.model}|{self._schema.name if self._schema else ''}"
        dialects = FORMAT_SUPPORT.candidates(key) if self._schema is not None else ("text",)
        for dialect in dialects:
            # sent as a body field: llama-cpp-python's dialect is not in the SDK's types
            extra = None if dialect == "text" or self._schema is None else {
                "response_format": self._schema.response_format(dialect)}
            try:
                response = sdk.chat.completions.create(
                    model=endpoint.model, messages=messages, temperature=s.temperature,
                    max_tokens=max_tokens, timeout=timeout, extra_body=extra,
                )
            except openai.APIStatusError as exc:
                if dialect == "text" or not refusal_of_format(exc.status_code, str(exc)):
                    raise
                FORMAT_SUPPORT.refuse(key, dialect)
                continue
            self.reply_format = dialect
            return response
        raise AssertionError("the text dialect is always last")  # pragma: no cover


class _DeadlineHit(Exception):
    """The query's LLM deadline passed while a call was under way."""


class _Empty(Exception):
    """The provider answered 200 with no text."""


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def make_client(
    settings: LLMSettings, env: Mapping[str, str] | None = None
) -> tuple[LLMClient | None, str]:
    """(client, note): no client in extractive mode or without an endpoint; the note says why
    when the config asked for an LLM."""
    if settings.mode == "extractive":
        return None, ""
    endpoints = endpoints_from(settings, env)
    if not endpoints:
        note = (
            f"mode 'llm' but {settings.base_url_env} is not set: extractive answer"
            if settings.mode == "llm"
            else ""
        )
        return None, note
    return LLMClient(settings, endpoints), ""
