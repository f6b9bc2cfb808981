"""Response clean-up: preambles, citation variants, suggested questions (Adaptive response assembly)."""

from __future__ import annotations

import pytest

from rag.generate.cleanup import (
    cited_numbers,
    clean_response,
    drop_cut_sentence,
    normalize_citations,
    split_suggestions,
    strip_preamble,
)
from rag.llm.repeats import without_repeats


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


@pytest.mark.parametrize(
    ("raw", "expected", "removed"),
    [
        ("It syncs hourly. It syncs hourly. it syncs  hourly. Notes stay.",
         "It syncs hourly. Notes stay.", 2),
        ("Export to PDF to PDF to PDF to PDF to PDF and more.", "Export to PDF and more.", 4),
        ("Trash keeps notes for 30 days then the app is the app is the app is",
         "Trash keeps notes for 30 days then the app is", 2),
        ("Go to Settings > Sync. Then press Sync now [Source 1].",
         "Go to Settings > Sync. Then press Sync now [Source 1].", 0),
    ],
)
def test_repeated_sentences_and_looping_phrases_are_said_once(raw: str, expected: str, removed: int) -> None:
    assert without_repeats(raw) == (expected, removed)


def test_a_reply_cut_by_the_token_limit_loses_its_unfinished_sentence() -> None:
    raw = "Sure! Notes stay 30 days [1]. Notes stay 30 days [1]. After that they are perman"
    cleaned = clean_response(raw, cut_off=True)
    assert cleaned.text == "Notes stay 30 days [Source 1]."
    assert cleaned.repairs == ("1 repetition(s) removed",
                               "sentence cut off by the token limit dropped: 'After that they are perman'")
    assert clean_response(raw).text.endswith("they are perman")  # stopped on its own: kept
    assert drop_cut_sentence("Only one unfinished sent") == ("Only one unfinished sent", "")
