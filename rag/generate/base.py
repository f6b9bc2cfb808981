"""Shapes of the generation stage: chat messages, LLM attempts and errors, the generated answer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from rag.generate.structured import ReplyFormat, ReplySchema

Role = Literal["system", "user", "assistant"]
AnswerMode = Literal["llm", "extractive", "no_rag", "error"]
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
    reply_format: ReplyFormat = "text"  # how the reply was constrained (rag.generate.structured)


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


@dataclass(frozen=True)
class Quote:
    """One sentence of an extractive answer: the whole sentence as quoted, the block it is cited
    as ([Source n]) and where it stands in that block's document."""

    text: str
    n: int
    doc_id: str
    start: int  # the sentence's span in the document (in the block's text when not `located`)
    end: int
    completed: bool = False  # extended beyond the block's span to the sentence's start or end
    located: bool = True


@dataclass(frozen=True)
class GeneratedAnswer:
    """The answer after clean-up, how it was produced, and the messages it was produced from."""

    text: str
    mode: AnswerMode
    raw_text: str = ""
    template: str = ""
    provider: str = ""
    model: str = ""
    cited: tuple[int, ...] = ()  # [Source N] numbers the answer cites, in order of first use
    suggested_questions: tuple[str, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    messages: tuple[Message, ...] = ()
    warnings: tuple[str, ...] = ()
    feedback: str = ""  # grounding feedback this answer was generated with (retry)
    quotes: tuple[Quote, ...] = ()  # extractive answers: each sentence and where it comes from

    @property
    def label(self) -> str:
        """How the page and the trace name the answer's origin."""
        return {
            "llm": f"LLM ({self.model})",
            "extractive": "Extractive (offline): sentences copied from the sources, no LLM",
            "no_rag": "No relevant context: answered without documents",
            "error": "Generation failed",
        }[self.mode]
