"""The answer model's ranking (rag.generate.answer_rank): the question's shape, the ranking
score, the support that caps confidence, and the extractive answerer re-ranked by it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rag.generate.answer_rank import (
    SUPPORT_RANGE,
    answer_scores,
    asked_subject,
    has_subject,
    support,
)


@pytest.mark.parametrize(("question", "subject"), [
    ("What does lintian do?", "lintian"),
    ("What is the experimental distribution for?", "experimental distribution"),
    ("What is a binary-only NMU?", "binary-only nmu"),
    ("What is the purpose of the debian-devel mailing list?", "debian-devel mailing list"),
    ("What is the magic file used for?", "magic file"),
    ("How do I orphan a package?", None),
    ("Is libtasn1 thread-safe?", None),
])
def test_asked_subject(question: str, subject: str | None) -> None:
    assert asked_subject(question) == subject


def test_has_subject_reads_past_a_section_number_and_an_article() -> None:
    assert has_subject("lintian", "9.2.1 lintian lintian dissects Debian packages and emits information.")
    assert not has_subject("lintian", "Run lintian on the changes file.")
    assert has_subject("experimental distribution", "The experimental distribution is a special one.")
    # named, but not what the sentence is about
    assert not has_subject("lintian", "You can run it as follows, and then pass the output to lintian.")


def _similarity(scores: dict[str, float]):
    def similarity(question: str, sentences: Sequence[str]) -> Sequence[float]:
        return [scores[s] for s in sentences]
    return similarity


def test_model_score_orders_candidates_and_the_subject_adds() -> None:
    sentences = ["The file starts with the magic string.", "lintian dissects Debian packages.",
                 "Run lintian on the changes file."]
    found = answer_scores("What does lintian do?", sentences,
                          _similarity({sentences[0]: 0.80, sentences[1]: 0.85, sentences[2]: 0.86}))
    assert found.cosine == (0.80, 0.85, 0.86)
    first, second, third = found.score
    assert first is not None and second is not None and third is not None
    assert second > third > first  # the subject bonus outweighs a 0.01 cosine lead


def test_only_the_first_candidates_are_read() -> None:
    from rag.generate import answer_rank

    sentences = [f"Sentence number {i}." for i in range(answer_rank.CANDIDATES + 5)]
    found = answer_scores("What is it?", sentences, _similarity(dict.fromkeys(sentences, 0.8)))
    assert found.score[answer_rank.CANDIDATES - 1] is not None
    assert found.score[answer_rank.CANDIDATES:] == (None,) * 5


def test_support_maps_the_cosine_range() -> None:
    low, high = SUPPORT_RANGE
    assert support(None) is None
    assert support(low - 0.05) == 0.0
    assert support(high + 0.05) == 1.0
    assert support((low + high) / 2) == pytest.approx(0.5)
