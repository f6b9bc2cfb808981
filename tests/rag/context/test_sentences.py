"""The sentence splitter on real-document text: abbreviations, versions, code, list items, PDF
line wrapping; offsets always point back into the text."""

from __future__ import annotations

import pytest

from rag.text import ends_sentence, split_sentences


def texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use a tool, e.g. apt or dpkg. Then run it.", ["Use a tool, e.g. apt or dpkg.", "Then run it."]),
        ("See e.g. Debian for details. Next one.", ["See e.g. Debian for details.", "Next one."]),
        ("Install v3.6.19 first. It works.", ["Install v3.6.19 first.", "It works."]),
        ("Upgrade to 3.6.19. Then reboot.", ["Upgrade to 3.6.19.", "Then reboot."]),
        ("Edit config.txt on www.debian.org. Done.", ["Edit config.txt on www.debian.org.", "Done."]),
        ("J. Smith wrote it. Dr. Knuth too.", ["J. Smith wrote it.", "Dr. Knuth too."]),
        ("It syncs hourly. it syncs again.", ["It syncs hourly.", "it syncs again."]),
        ("Files, logs, etc. Then more.", ["Files, logs, etc.", "Then more."]),
    ],
)
def test_abbreviations_versions_and_initials_do_not_end_a_sentence(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_code_is_never_cut() -> None:
    assert texts("Run `apt. Update` now. Done!") == ["Run `apt. Update` now.", "Done!"]
    fenced = "Type this:\n```\nrm -rf x. Y\nls\n```\nThen check."
    assert texts(fenced) == ["Type this:", "```\nrm -rf x. Y\nls\n```", "Then check."]


def test_list_items_headings_and_table_rows_are_units() -> None:
    assert texts("Steps:\n- install it\n- run it\n1. check it") == ["Steps:", "- install it", "- run it",
                                                                      "1. check it"]
    assert texts("Steps:\n1. Install it.\n2) Run it. Then rest.") == ["Steps:", "1. Install it.",
                                                                      "2) Run it.", "Then rest."]
    assert texts("# Sync\nNotes sync hourly.") == ["# Sync", "Notes sync hourly."]
    assert texts("| a | b |\n| 1 | 2 |") == ["| a | b |", "| 1 | 2 |"]


def test_pdf_line_wrapping_stays_inside_a_sentence_but_a_title_line_is_cut_off() -> None:
    wrapped = "An AUTOINCREMENT column is updated\nwhen new entries are inserted. Next."
    assert texts(wrapped) == ["An AUTOINCREMENT column is updated\nwhen new entries are inserted.", "Next."]
    assert texts("Creating columns\nTo create a column, run it.") == ["Creating columns",
                                                                      "To create a column, run it."]
    # a short line that ends in a word the next line continues is wrapping, not a title
    assert texts("You can get the package from\nDebian mirrors.") == [
        "You can get the package from\nDebian mirrors."]
    # a narrow column's wrapped line before a name reads as prose, not as a title
    assert texts("The Debian project was founded by Ian\nMurdock in August 1993. He left.") == [
        "The Debian project was founded by Ian\nMurdock in August 1993.", "He left."]
    assert texts("Installing The Debian Base System\nThe installer asks first.") == [
        "Installing The Debian Base System", "The installer asks first."]


def test_offsets_point_into_the_text() -> None:
    text = "  First one, e.g. this.\n\nSecond `x. Y` here!  - item\n- next"
    for sentence in split_sentences(text):
        assert text[sentence.start : sentence.end] == sentence.text


def test_ends_sentence() -> None:
    assert ends_sentence("It works.") and ends_sentence('He said "yes."') and ends_sentence("Why?")
    assert not ends_sentence("when new entries are inserted to an")


def test_a_stop_inside_a_quoted_name_before_a_lower_case_word_ends_no_sentence() -> None:
    text = 'CGI program (any one of "program.*") on the web server executes itself. Then it exits.'
    assert texts(text) == ['CGI program (any one of "program.*") on the web server executes itself.',
                           "Then it exits."]
    assert texts('He said "stop." Then he left.') == ['He said "stop."', "Then he left."]
