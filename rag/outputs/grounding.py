"""The ground stage's output: per-sentence support with spans, the answer-level report, and the
best-grounded answer of the retry rounds (GroundedAnswer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rag.outputs.generated import GeneratedAnswer

Verdict = Literal["supported", "unsupported", "ambiguous", "not_checked"]
Method = Literal["lexical", "embedding", "llm", "none"]
ConfidenceLevel = Literal["high", "medium", "low"]


@dataclass(frozen=True)
class Span:
    """The best supporting passage for a sentence: `[Source n]`'s text[start:end]."""

    n: int
    chunk_id: str
    start: int  # offsets into the block text as sent (ContextBlock.text)
    end: int
    text: str
    lexical: float  # Axiom score of the sentence against this passage


@dataclass(frozen=True)
class SentenceCheck:
    """One answer sentence: where it is in the answer, its scores, verdict and evidence."""

    index: int
    text: str
    start: int  # offsets into the answer text
    end: int
    cited: tuple[int, ...]
    lexical: float  # Axiom score against the whole context
    score: float  # the score the verdict rests on (lexical, embedding cosine or LLM score)
    verdict: Verdict
    method: Method  # which check decided
    support: Span | None = None
    embedding: float | None = None
    llm: float | None = None
    citation_ok: bool | None = None  # None: the sentence cites nothing
    citation_problem: str = ""
    note: str = ""  # why a rule decided (e.g. a number the context never states)


@dataclass(frozen=True)
class Sufficiency:
    """Adaptive's context-sufficiency check: how much of the question the context covers."""

    coverage: float  # share of the query's content words found in the context
    is_sufficient: bool
    has_conflicts: bool  # a block was marked [Conflicting] by compression
    missing: tuple[str, ...]  # query content words the context never mentions


@dataclass(frozen=True)
class GroundingReport:
    sentences: tuple[SentenceCheck, ...]
    grounded_share: float  # supported / checked sentences (1.0 when nothing needed checking)
    is_grounded: bool
    relevance: float  # query coverage of the best block, in [0, 1]
    sufficiency: Sufficiency
    confidence: float  # Adaptive: relevance × grounding, relevance capped by the answer's fit
    confidence_level: ConfidenceLevel
    citation_problems: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()  # which checks ran ("lexical", "embedding", "llm")
    warnings: tuple[str, ...] = ()
    # how the answer meets the question (rag.generate.answer_fit): 0 for a restated question or a
    # contents entry; a well-grounded answer to another question is not a confident one
    answer_fit: float = 1.0
    answer_fit_reason: str = ""
    # an extractive answer's semantic support (rag.generate.answer_rank): also caps the confidence
    answer_support: float | None = None

    @property
    def unsupported(self) -> tuple[SentenceCheck, ...]:
        return tuple(s for s in self.sentences if s.verdict == "unsupported")

    def feedback(self) -> str:
        """Axiom's retry feedback: claims not shown to be supported, and citation problems."""
        lines = [f'- "{s.text}"' for s in self.sentences if s.verdict in ("unsupported", "ambiguous")]
        lines += [f"- {p}" for p in self.citation_problems]
        return "\n".join(lines)


@dataclass(frozen=True)
class Iteration:
    """One generate → check round."""

    number: int  # 1 = the first answer
    answer: GeneratedAnswer
    report: GroundingReport


@dataclass(frozen=True)
class GroundedAnswer:
    answer: GeneratedAnswer  # the best-grounded iteration's answer
    report: GroundingReport
    iterations: tuple[Iteration, ...]

    @property
    def retried(self) -> int:
        return len(self.iterations) - 1
