"""A small local OpenAI-compatible HTTP server for tests: chat (plain and SSE streaming) and embeddings.

Nothing outside the machine is faked except the endpoint itself: the product code talks HTTP to it
exactly as it would to a real provider.

Usage (any test file; `tests/` is on sys.path because it holds the root conftest):

    from fake_openai import FakeOpenAI, reply, status, hang, invalid_json, empty

    with FakeOpenAI() as server:                 # 127.0.0.1, random free port
        server.script(status(429), reply("Paris is the capital. [Source 1]"))
        client = make_client(base_url=server.base_url, api_key="sk-test")   # base_url ends in /v1
        ...
        server.requests[-1].body["messages"]     # what the client sent (list of Received)

or the pytest fixture (re-export it from a conftest: `from fake_openai import fake_openai  # noqa: F401`):

    def test_x(fake_openai: FakeOpenAI) -> None: ...

Scripting: `script(*behaviours)` queues one behaviour per request (chat or embeddings), first in first
out. When the queue is empty the server answers normally: chat text comes from `responder(body)`
(default: the first sentence of the prompt's "[Source 1]" block plus " [Source 1]", else "OK.");
embeddings are deterministic hashed bags of words (similar texts get similar vectors).

Behaviours:
    reply(text)                 a normal answer with this text (streamed word by word when asked)
    status(code, message="")    an HTTP error with an OpenAI-style error body (429, 500, 401 …)
    hang(seconds=30)            accept the request, send nothing for `seconds` (client timeout)
    hang_mid_stream(text, after_tokens)  stream some tokens, then stall (streaming requests)
    pings(seconds=30)           stream no token, only SSE keep-alive comments for `seconds` (what
                                llama.cpp's server sends while it reads a long prompt)
    invalid_json()              200 with a body (or SSE event) that is not JSON
    empty()                     200 with an empty completion ("" content / no deltas)
    echo_key()                  answers with the request's API key in the text (split when streamed)
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

from rag.llm.judge_probes import RELEVANCE_PROBES, SUPPORT_PROBES

Kind = Literal["reply", "status", "hang", "hang_mid_stream", "pings", "invalid_json", "empty",
               "echo_key"]


@dataclass(frozen=True)
class Behaviour:
    """What the server does with one request."""

    kind: Kind
    text: str = ""
    code: int = 200
    seconds: float = 30.0
    after_tokens: int = 0


def reply(text: str) -> Behaviour:
    return Behaviour("reply", text=text)


def status(code: int, message: str = "") -> Behaviour:
    return Behaviour("status", code=code, text=message or f"fake error {code}")


def hang(seconds: float = 30.0) -> Behaviour:
    return Behaviour("hang", seconds=seconds)


def hang_mid_stream(text: str, after_tokens: int = 2, seconds: float = 30.0) -> Behaviour:
    return Behaviour("hang_mid_stream", text=text, after_tokens=after_tokens, seconds=seconds)


def pings(seconds: float = 30.0) -> Behaviour:
    return Behaviour("pings", seconds=seconds)


def invalid_json() -> Behaviour:
    return Behaviour("invalid_json")


def empty() -> Behaviour:
    return Behaviour("empty")


def echo_key() -> Behaviour:
    """A misbehaving provider: the answer contains the API key the request carried (streamed in
    4-character pieces, so the key is split over several tokens)."""
    return Behaviour("echo_key")


@dataclass(frozen=True)
class Received:
    """One request the server got: path, parsed JSON body and headers (lower-cased names)."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def default_responder(body: dict[str, Any]) -> str:
    """First sentence of the "[Source 1]" block in the last message, cited; else "OK."."""
    messages = body.get("messages") or [{}]
    prompt = str(messages[-1].get("content", ""))
    match = re.search(r"\[Source 1[^\]]*\]\s*\n(.+?)(?:(?<=[.!?])\s|\n|$)", prompt, re.S)
    return f"{match.group(1).strip()} [Source 1]" if match else "OK."


def competent_judge(body: dict[str, Any]) -> str | None:
    """The right answer to a judge-check probe, or None for any other request: a model fit to
    judge, so tests of the stages run as before the check existed."""
    messages = body.get("messages") or [{}]
    prompt = str(messages[-1].get("content", ""))
    for probe in RELEVANCE_PROBES:
        if probe.question not in prompt:
            continue
        if "Rate how relevant each excerpt" in prompt:  # LLM rerank: "[n] passage" lines
            numbers = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M)
            return "\n".join(f"{n}: {10 if text.startswith(probe.relevant[:40]) else 0}"
                              for n, text in numbers)
        relevant = probe.relevant.split(".")[0] in prompt
        if "Is the passage relevant to the question" in prompt:  # Self-RAG grade
            return "10" if relevant else "0"
        if "numbered sentence per line" in prompt:  # llm_select
            return "1, 2" if relevant else "NONE"
        if "Copy, verbatim" in prompt:  # llm compression
            return probe.relevant if relevant else "NONE"
    for support in SUPPORT_PROBES:
        if f"1. {support.claim}" in prompt and support.context in prompt:
            return f"1: {'YES' if support.supported else 'NO'} 0.9"
    return None


def hashed_embedding(text: str, dim: int = 64) -> list[float]:
    """Deterministic bag-of-words vector: each lower-cased word adds 1 to a hashed slot."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        slot = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % dim
        vector[slot] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class FakeOpenAI:
    """The server. Start with `start()` or a `with` block; `base_url` is ready once started."""

    def __init__(
        self, responder: Callable[[dict[str, Any]], str] = default_responder, embedding_dim: int = 64,
        judge: Callable[[dict[str, Any]], str | None] | None = competent_judge,
    ) -> None:
        self.responder = responder
        # answers the judge check's probes (rag.llm.judge_probes) outside the script;
        # None sends them through the script like any request
        self.judge = judge
        self.probe_requests: list[Received] = []
        self.embedding_dim = embedding_dim
        self.requests: list[Received] = []
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()  # releases hanging handlers on close()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    # -- scripting ---------------------------------------------------------------------------
    def script(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self._queue.extend(behaviours)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next(self, received: Received) -> Behaviour | None:
        with self._lock:
            if self.judge is not None and (answer := self.judge(received.body)) is not None:
                self.probe_requests.append(received)  # not the test's: script and log untouched
                return Behaviour("reply", text=answer)
            self.requests.append(received)
            return self._queue.popleft() if self._queue else None

    def _wait(self, seconds: float) -> None:
        self._stop.wait(seconds)


def _words(text: str) -> Iterator[str]:
    """Split into stream tokens that concatenate back to `text` exactly."""
    yield from re.findall(r"\s*\S+|\s+", text)


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # no Nagle delay: headers and body go out at once (else ~40 ms per request)
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            return

        def do_GET(self) -> None:  # /v1/models
            self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            headers = {k.lower(): v for k, v in self.headers.items()}
            behaviour = fake._next(Received(self.path, body, headers)) or Behaviour("reply")
            if behaviour.kind == "echo_key":
                key = headers.get("authorization", "").removeprefix("Bearer ")
                behaviour = Behaviour("echo_key", text=f"Paris is the capital. Your key is {key}. [Source 1]")
            try:
                self._serve(body, behaviour)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client gave up (timeout): nothing left to send

        def _serve(self, body: dict[str, Any], b: Behaviour) -> None:
            if b.kind == "status":
                error = {"message": b.text, "type": "fake_error", "code": str(b.code)}
                self._json(b.code, {"error": error})
            elif b.kind == "hang" or (b.kind == "pings" and not body.get("stream")):
                fake._wait(b.seconds)
                self._json(504, {"error": {"message": "hung", "type": "fake_error"}})
            elif b.kind == "invalid_json" and not body.get("stream"):
                self._send(200, b"{this is not json", "application/json")
            elif self.path.endswith("/embeddings"):
                self._embeddings(body)
            else:
                text = b.text if b.kind in ("reply", "hang_mid_stream", "echo_key") and b.text else ""
                if b.kind == "reply" and not b.text:
                    text = fake.responder(body)
                if body.get("stream"):
                    self._stream(body, b, text)
                else:
                    self._json(200, _completion(body, text))

        def _embeddings(self, body: dict[str, Any]) -> None:
            inputs = body.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else list(inputs)
            data = [
                {"object": "embedding", "index": i, "embedding": hashed_embedding(str(t), fake.embedding_dim)}
                for i, t in enumerate(inputs)
            ]
            self._json(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model", ""),
                    "usage": {"prompt_tokens": 0, "total_tokens": 0},
                },
            )

        def _stream(self, body: dict[str, Any], b: Behaviour, text: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if b.kind == "invalid_json":
                self._event(b"{not json")
                return
            self._event(_chunk(body, {"role": "assistant", "content": ""}))
            if b.kind == "pings":  # no token, but the connection is never idle long enough to time out
                until = time.monotonic() + b.seconds
                while time.monotonic() < until and not fake._stop.is_set():
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
                    fake._wait(0.2)
                return
            tokens = [text[i:i + 4] for i in range(0, len(text), 4)] if b.kind == "echo_key" else _words(text)
            for i, token in enumerate(tokens):
                if b.kind == "hang_mid_stream" and i == b.after_tokens:
                    fake._wait(b.seconds)
                    return
                self._event(_chunk(body, {"content": token}))
            self._event(_chunk(body, {}, finish="stop"))
            self._event(b"[DONE]")

        def _event(self, payload: dict[str, Any] | bytes) -> None:
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.wfile.write(b"data: " + data + b"\n\n")
            self.wfile.flush()

        def _json(self, code: int, payload: dict[str, Any]) -> None:
            self._send(code, json.dumps(payload).encode(), "application/json")

        def _send(self, code: int, data: bytes, content_type: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {
            "prompt_tokens": 0,
            "completion_tokens": len(text.split()),
            "total_tokens": len(text.split()),
        },
    }


def _chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started FakeOpenAI; closed (hanging handlers released) after the test."""
    with FakeOpenAI() as server:
        yield server


TEST_KEY = "sk-test-secret-ABCDEFGHIJ0123456789"  # what the `llm` fixture exports as the API key


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """The LLM stages talk to a started FakeOpenAI for this test (OPENAI_BASE_URL / _API_KEY)."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    yield fake_openai
