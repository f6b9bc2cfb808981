"""Response clean-up: preambles, citation variants, suggested questions (002 response assembly)."""

from __future__ import annotations

import pytest

from rag.generate.cleanup import (
    cited_numbers,
    clean_response,
    normalize_citations,
    split_suggestions,
    strip_preamble,
)


@pytest.mark.parametrize(
    "preamble",
    [
        "Sure! ",
        "Certainly, ",
        "Of course. I'd be happy to help! ",
        "Based on the context, ",
        "According to the provided sources: ",
        "Here is the answer:\n",
        "Great question! Based on the documents, ",
    ],
)
def test_preambles_are_stripped_and_the_answer_recapitalized(preamble: str) -> None:
    text, removed = strip_preamble(preamble + "the tower is 330 metres tall.")
    assert text == "The tower is 330 metres tall."
    assert removed == preamble.strip()


def test_an_answer_without_preamble_is_untouched() -> None:
    assert strip_preamble("Sure-footed goats climb cliffs.") == ("Sure-footed goats climb cliffs.", "")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a [source 1].", "a [Source 1]."),
        ("a [Source1].", "a [Source 1]."),
        ("a (Source 2).", "a [Source 2]."),
        ("a [1].", "a [Source 1]."),
        ("a [1, 3].", "a [Source 1][Source 3]."),
        ("a [Sources 1 and 2].", "a [Source 1][Source 2]."),
        ("a 【4】.", "a [Source 4]."),
        ("a [Source 1][Source 2].", "a [Source 1][Source 2]."),
    ],
)
def test_citation_variants_become_source_n(raw: str, expected: str) -> None:
    assert normalize_citations(raw) == expected


def test_suggested_questions_are_pulled_out_in_either_format() -> None:
    one_line = "Answer. [Source 1]\nSUGGESTED_QUESTIONS: Why? | How tall? | When?"
    assert split_suggestions(one_line) == ("Answer. [Source 1]", ("Why?", "How tall?", "When?"))
    listed = "Answer.\n\n**Suggested questions:**\n1. What else?\n- Who built it?"
    assert split_suggestions(listed) == ("Answer.", ("What else?", "Who built it?"))
    assert split_suggestions("No suggestions here.") == ("No suggestions here.", ())


def test_clean_response_does_all_three_and_cited_numbers_keep_first_use_order() -> None:
    cleaned = clean_response(
        "Sure! Based on the context, B is true [2] and A [source 1] too [2].\nSUGGESTED_QUESTIONS: More?"
    )
    assert cleaned.text == "B is true [Source 2] and A [Source 1] too [Source 2]."
    assert cleaned.suggested_questions == ("More?",)
    assert cited_numbers(cleaned.text) == (2, 1)
