"""Answer relevance: an answer that addresses the question scores above one that is grounded
elsewhere; ragas answer relevancy with an LLM (a scripted chat model) reads its questions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from rag.abstain.relevance import (
    answer_relevance,
    offline_relevance,
    parse_questions,
    term_overlap,
)
from rag.embed import get_embedder
from rag.llm.base import Completion, LLMError, Message
from rag.llm.structured import ReplySchema
from rag.settings.embedding import EmbeddingConfig

QUESTION = "How long do deleted notes stay in the Trash?"


@pytest.fixture(scope="module")
def embedder():
    return get_embedder(EmbeddingConfig(backend="hashing"))


class Scripted:
    """A chat model that returns fixed replies (the LLM is the only thing tests fake)."""

    def __init__(self, *replies: str | LLMError) -> None:
        self.replies = list(replies)

    def chat(self, messages: Sequence[Message], max_tokens: int | None = None,
             schema: ReplySchema | None = None) -> Completion:
        item = self.replies.pop(0)
        if isinstance(item, LLMError):
            raise item
        return Completion(item, "primary", "fake", ())

    def stream(self, messages: Sequence[Message], max_tokens: int | None = None) -> Iterable[str]:
        yield self.chat(messages).text


def test_answer_that_answers_scores_above_one_that_does_not(embedder) -> None:
    good = offline_relevance(QUESTION, "Deleted notes stay in the Trash for 30 days [Source 1].", embedder)
    beside = offline_relevance(QUESTION, "Conflict copies are created by LumenSync [Source 1].", embedder)
    assert good.score > beside.score + 0.3
    assert good.overlap == pytest.approx(term_overlap(QUESTION, "deleted notes stay trash"))
    assert beside.overlap == 0


def test_empty_answer_is_irrelevant(embedder) -> None:
    assert offline_relevance(QUESTION, "[Source 1]", embedder).score == 0


def test_parse_questions_and_noncommittal_flag() -> None:
    questions, flag = parse_questions("1. How long are notes kept?\n- Where do deleted notes go?\n"
                                      "NONCOMMITTAL: no", 3)
    assert questions == ("How long are notes kept?", "Where do deleted notes go?") and not flag
    assert parse_questions("What?\nNONCOMMITTAL: yes", 3)[1]


def test_llm_relevancy_is_the_mean_cosine_of_generated_questions(embedder) -> None:
    same = answer_relevance(QUESTION, "30 days.", embedder,
                            chat=Scripted(f"{QUESTION}\n{QUESTION}\nNONCOMMITTAL: no"))
    other = answer_relevance(QUESTION, "30 days.", embedder,
                             chat=Scripted("What colour is the sky?\nNONCOMMITTAL: no"))
    assert same.method == "llm" and same.score == pytest.approx(1.0, abs=1e-6)
    assert other.score < same.score
    evasive = answer_relevance(QUESTION, "I don't know.", embedder,
                               chat=Scripted(f"{QUESTION}\nNONCOMMITTAL: yes"))
    assert evasive.score == 0 and evasive.noncommittal


def test_failed_llm_falls_back_to_the_offline_figure_and_says_so(embedder) -> None:
    found = answer_relevance(QUESTION, "Deleted notes stay 30 days.", embedder,
                             chat=Scripted(LLMError("server", "500")))
    assert found.method == "offline" and found.score > 0 and "failed" in found.warnings[0]
