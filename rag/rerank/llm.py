"""LLM reranker (EchoMind `RAG_RERANK_*`): the model grades each excerpt 0–10 for relevance to
the question, a batch of excerpts per call. Any failed or unparsable call raises
RerankCallFailed, so the stage keeps the input order and says why."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.fence import data_rule, fence
from rag.llm.judge_probes import RELEVANCE_PROBES
from rag.llm.structured import GRADES_0_10, as_lines, numbered_schema
from rag.llm.usability import record_reply
from rag.rerank.base import RerankCallFailed, ScoreBatch

RERANK_PROMPT = """Question: {question}

Rate how relevant each excerpt is to the question, from 0 (irrelevant) to 10 (answers it
directly).

{excerpts}
{rule}

Reply with one line per excerpt in the form "<number>: <score>" and nothing else."""

_LINE = re.compile(r"^\s*\[?(\d+)\]?\s*[:=.)-]\s*(-?\d+(?:\.\d+)?)", re.M)


def parse_grades(reply: str, expected: int) -> tuple[list[float], list[str]]:
    """Grades for excerpts 1..expected from "<n>: <score>" lines; warnings for clamped values.

    Raises RerankCallFailed when an excerpt has no grade."""
    grades: dict[int, float] = {}
    warnings: list[str] = []
    for number, value in _LINE.findall(as_lines(reply)):
        index, grade = int(number), float(value)
        if 1 <= index <= expected and index not in grades:
            if not 0 <= grade <= 10:
                warnings.append(f"excerpt {index}: grade {grade:g} clamped to 0-10")
                grade = min(10.0, max(0.0, grade))
            grades[index] = grade
    missing = [i for i in range(1, expected + 1) if i not in grades]
    if missing:
        raise RerankCallFailed(
            f"LLM reply graded {expected - len(missing)} of {expected} excerpts "
            f"(missing {missing[:5]}): {reply[:120]!r}"
        )
    return [grades[i] for i in range(1, expected + 1)], warnings


RANKING_PROBE = "ranking-v1"


def ranking_signal(chat: ChatModel, question: str, passages: Sequence[str], relevant: set[int]
                   ) -> float | None:
    """The share of the top-graded passages (ties included) that are relevant — the chance a
    pick among them is right; None when the reply was unusable. One call for all passages."""
    try:
        scores = LLMScorer(chat, "judge", batch_size=len(passages)).score(question, passages).scores
    except RerankCallFailed:
        return None
    best = [i for i, s in enumerate(scores) if s == max(scores)]
    return sum(i in relevant for i in best) / len(best)


def ranking_probe(chat: ChatModel) -> Iterator[float | None]:
    """The judge check's probe for LLM rerank: each relevance probe's relevant passage among
    three others, at a rotating position."""
    probes = RELEVANCE_PROBES
    for i, probe in enumerate(probes):
        others = [probes[(i + k) % len(probes)].irrelevant for k in (1, 2, 3)]
        at = i % 4
        yield ranking_signal(chat, probe.question, [*others[:at], probe.relevant, *others[at:]], {at})


class LLMScorer:
    """Grades passages in batches of `batch_size` with one chat call per batch."""

    name = "llm"

    def __init__(self, chat: ChatModel, model: str, batch_size: int = 10,
                 max_passage_chars: int = 800) -> None:
        self.chat = chat
        self.model = model
        self.batch_size = batch_size
        self.max_passage_chars = max_passage_chars

    def _prompt(self, query: str, passages: Sequence[str]) -> str:
        excerpts = "\n\n".join(
            f"[{i}] {' '.join(p.split())[: self.max_passage_chars]}"
            for i, p in enumerate(passages, 1)
        )
        return RERANK_PROMPT.format(
            question=query, excerpts=fence(excerpts, "excerpts"), rule=data_rule("excerpts"))

    def score(self, query: str, passages: Sequence[str]) -> ScoreBatch:
        start = time.perf_counter()
        scores: list[float] = []
        warnings: list[str] = []
        for first in range(0, len(passages), self.batch_size):
            batch = passages[first : first + self.batch_size]
            try:
                reply = self.chat.chat([Message("user", self._prompt(query, batch))],
                                       max_tokens=8 * len(batch) + 16,
                                       schema=numbered_schema("grades", len(batch), GRADES_0_10)).text
            except LLMError as exc:
                record_reply("rerank.grades", "fallback", f"call failed ({exc.kind})")
                raise RerankCallFailed(
                    f"LLM call for excerpts {first + 1}-{first + len(batch)} failed "
                    f"({exc.kind}): {exc}") from exc
            try:
                grades, notes = parse_grades(reply, len(batch))
            except RerankCallFailed:
                record_reply("rerank.grades", "fallback", "an excerpt without a grade")
                raise
            record_reply("rerank.grades", "repaired" if notes else "ok", "grade out of 0-10")
            scores.extend(grades)
            warnings.extend(f"batch {first // self.batch_size + 1}: {n}" for n in notes)
        return ScoreBatch(tuple(scores), "grade10", self.model, time.perf_counter() - start,
                          tuple(warnings))
