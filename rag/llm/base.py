"""Shapes of an LLM call: chat messages, attempts, completions and errors, and the ChatModel protocol."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from rag.llm.structured import ReplyFormat, ReplySchema

Role = Literal["system", "user", "assistant"]
FailureKind = Literal[
    "rate_limit",
    "server",
    "timeout",
    "connection",
    "invalid_response",
    "empty",
    "circuit_open",
    "client_error",
    "not_configured",
    "deadline",
]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Attempt:
    """One HTTP call: which provider, how it ended and how long it took (never the key)."""

    provider: str  # "primary" or "fallback"
    model: str
    number: int  # 1-based attempt on that provider
    outcome: Literal["ok"] | FailureKind
    wall_ms: float
    detail: str = ""
    backoff_s: float = 0.0  # sleep before the next attempt


@dataclass(frozen=True)
class Completion:
    """The text a provider returned, and every attempt it took to get it."""

    text: str
    provider: str
    model: str
    attempts: tuple[Attempt, ...]
    finish_reason: str = ""  # "length": the token limit cut the reply off
    reply_format: ReplyFormat = "text"  # how the reply was constrained (rag.llm.structured)


class LLMError(RuntimeError):
    """Every provider failed; `kind` says how (the last failure), `attempts` says everything."""

    def __init__(self, kind: FailureKind, message: str, attempts: tuple[Attempt, ...] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts


class ChatModel(Protocol):
    """What LLM-backed stages need: a chat call and a streamed one (tokens as they arrive)."""

    def chat(self, messages: Sequence[Message], max_tokens: int | None = None,
             schema: ReplySchema | None = None) -> Completion: ...

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> Iterable[str]: ...
