"""The fragment share of an answer: sentences that start mid-sentence or have no end."""

from __future__ import annotations

from eval.scoring.answer_form import answer_sentences, fragment_share, is_fragment


def test_the_issue_examples_are_fragments_and_whole_sentences_are_not() -> None:
    answer = ("Use INTEGER PRIMARY KEY AUTOINCREMENT. [Source 1] automatically updated if required "
              "when new entries are inserted to an. [Source 2] It is sent to the editor [Source 1]")
    assert answer_sentences(answer) == [
        "Use INTEGER PRIMARY KEY AUTOINCREMENT.",
        "automatically updated if required when new entries are inserted to an.",
        "It is sent to the editor",
    ]
    assert fragment_share(answer) == 2 / 3


def test_citations_before_the_full_stop_and_abbreviations_keep_a_sentence_whole() -> None:
    answer = "Install it, e.g. with apt [Source 1]. Then run v3.6.19 [Source 1][Source 2]."
    assert fragment_share(answer) == 0.0
    assert fragment_share("[Source 1]") is None
    assert is_fragment(", and then it stops.") and not is_fragment('"Quoted" sentences count.')
