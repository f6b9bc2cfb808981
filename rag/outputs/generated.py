"""Shapes of the generation stage: the generated answer, its quotes, and the stage's output
(GenerateOutput: the answer, its token limit, the endpoints tried)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rag.llm.base import Attempt, Message

AnswerMode = Literal["llm", "extractive", "no_rag", "error"]
# The generate stage answering again, with the settings, context and template it answered with,
# given feedback and a client (rag.llm.client.LLMClient): what grounding's retry calls.
AnswerAgain = Callable[[str, Any], "GeneratedAnswer"]
# a field no trace, JSON or cache keeps (rag.trace.NOT_IN_TRACE, which sits above this module)
_LIVE: Mapping[str, bool] = {"in_trace": False}


@dataclass(frozen=True)
class Quote:
    """One sentence of an extractive answer: the whole sentence as quoted, the block it is cited
    as ([Source n]) and where it stands in that block's document."""

    text: str
    n: int
    doc_id: str
    start: int  # the sentence's span in the document (in the block's text when not `located`)
    end: int
    # taken from the document beyond the block's span: a sentence the block cut, extended to its
    # start or end, or its section's opening before the block (rag.generate.whole_sentences)
    completed: bool = False
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
    # extractive answers: the answering sentence's semantic support on 0-1, which caps the
    # confidence (rag.generate.answer_rank); None when no answer model read it
    support: float | None = None

    @property
    def label(self) -> str:
        """How the page and the trace name the answer's origin."""
        return {
            "llm": f"LLM ({self.model})",
            "extractive": "Extractive (offline): sentences copied from the sources, no LLM",
            "no_rag": "No relevant context: answered without documents",
            "error": "Generation failed",
        }[self.mode]


@dataclass(frozen=True)
class GenerateOutput:
    """The answer, how it was produced (mode, attempts, messages), its token limit and the
    endpoints that were tried; `again` answers once more with feedback (grounding's retry reads
    it, not the generation section). A trace or cache read back has no `again`."""

    answer: GeneratedAnswer
    max_tokens: int
    endpoints: tuple[Mapping[str, str], ...] = ()  # name, base_url, model, breaker: no keys
    again: AnswerAgain | None = field(default=None, compare=False, repr=False, metadata=_LIVE)
