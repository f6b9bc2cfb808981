"""Answer relevance: does the answer address the question (not: is it supported — that is
grounding)? An answer can be fully grounded and beside the point ("Conflict copies" for "What is
the capital of France?"); this is the figure that says so.

Offline: cosine of the question and the answer (the preset's embedder; citations removed), mixed
with term overlap (share of the question's content words the answer uses). With an LLM: ragas
answer relevancy (Es et al. 2023, RAGAS §3): the LLM writes questions the answer would answer,
the score is their mean cosine with the real question, 0 when the answer is noncommittal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from rag.generate.answer_fit import answer_fit
from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.usability import record_reply
from rag.text import content_words, strip_citations


class TextVectors(Protocol):
    """The part of rag.embed's Embedder relevance needs."""

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class AnswerRelevance:
    """How well the answer addresses the question, in [0, 1], and what it is made of."""

    score: float
    method: Literal["offline", "llm"]
    embedding: float  # offline: cosine(question, answer); llm: mean cosine of generated questions
    overlap: float  # share of the question's content words the answer uses
    generated_questions: tuple[str, ...] = ()
    noncommittal: bool = False
    warnings: tuple[str, ...] = ()


def cosines(embedder: TextVectors, query: str, texts: Sequence[str]) -> list[float]:
    """Cosine of `query` with each text (vectors normalized here, whatever the embedder does)."""
    if not texts:
        return []
    vectors = np.asarray(embedder.embed_documents([query, *texts]), dtype=np.float64)
    vectors = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    return [float(v) for v in vectors[1:] @ vectors[0]]


def term_overlap(question: str, answer: str) -> float:
    """Share of the question's distinct content words that occur in the answer."""
    asked = set(content_words(question))
    return len(asked & set(content_words(answer))) / len(asked) if asked else 0.0


def offline_relevance(
    question: str, answer: str, embedder: TextVectors, embedding_weight: float = 0.5
) -> AnswerRelevance:
    text = strip_citations(answer).strip()
    if not text:
        return AnswerRelevance(0.0, "offline", 0.0, 0.0)
    cosine = max(0.0, cosines(embedder, question, [text])[0])
    overlap = term_overlap(question, text)
    score = embedding_weight * cosine + (1 - embedding_weight) * overlap
    fit = answer_fit(question, text)
    if fit.restated or fit.contents:  # close to the question in words and vector, answering nothing
        return AnswerRelevance(0.0, "offline", cosine, overlap, warnings=(fit.reason,))
    if fit.missing_terms:
        return AnswerRelevance(min(score, fit.score), "offline", cosine, overlap, warnings=(fit.reason,))
    return AnswerRelevance(min(1.0, score), "offline", cosine, overlap)


QUESTIONS_PROMPT = """Answer:
{answer}

Write {n} different questions that this answer answers, one per line, without numbering.
Then one last line: NONCOMMITTAL: yes if the answer is evasive or says it does not know, else no."""

_NONCOMMITTAL = re.compile(r"^\s*noncommittal\s*:\s*(yes|no)\b", re.I | re.M)


def parse_questions(reply: str, n: int) -> tuple[tuple[str, ...], bool]:
    """(up to `n` questions, noncommittal flag) from the LLM's reply."""
    flag = _NONCOMMITTAL.search(reply)
    body = reply[: flag.start()] if flag else reply
    lines = (re.sub(r"^[\s\-*•\d.)]+", "", line).strip() for line in body.splitlines())
    questions = tuple(q for q in lines if q)[:n]
    return questions, bool(flag and flag.group(1).lower() == "yes")


def llm_relevance(
    question: str, answer: str, chat: ChatModel, embedder: TextVectors, n: int = 3
) -> AnswerRelevance:
    """ragas answer relevancy; raises LLMError when the call fails or yields no question."""
    text = strip_citations(answer).strip()
    overlap = term_overlap(question, text)
    reply = chat.chat([Message("user", QUESTIONS_PROMPT.format(answer=text, n=n))]).text
    questions, noncommittal = parse_questions(reply, n)
    if not questions:
        raise LLMError("invalid_response", f"no questions in the reply {reply[:80]!r}")
    mean = float(np.mean(cosines(embedder, question, list(questions))))
    score = 0.0 if noncommittal else max(0.0, min(1.0, mean))
    return AnswerRelevance(score, "llm", mean, overlap, questions, noncommittal)


def answer_relevance(
    question: str,
    answer: str,
    embedder: TextVectors,
    *,
    chat: ChatModel | None = None,
    n_questions: int = 3,
    embedding_weight: float = 0.5,
) -> AnswerRelevance:
    """ragas answer relevancy when `chat` is given (offline figure, with a warning, if it fails),
    else the offline figure."""
    if chat is not None:
        try:
            found = llm_relevance(question, answer, chat, embedder, n_questions)
            record_reply("abstain.relevance", "ok")
            return found
        except LLMError as exc:
            record_reply("abstain.relevance", "fallback", exc.kind)
            found = offline_relevance(question, answer, embedder, embedding_weight)
            why = f"LLM answer relevancy failed ({exc.kind}: {exc}); offline figure instead"
            return AnswerRelevance(found.score, "offline", found.embedding, found.overlap,
                                   warnings=(why,))
    return offline_relevance(question, answer, embedder, embedding_weight)
