"""An answer must answer (issue 39), on real cases collected from Debian's PDFs (libtasn1-doc's
libtasn1.pdf, shared-mime-info's spec, developers-reference.pdf; datasets/pdf_answer_questions.jsonl):
contents entries and restated questions never answer and score 0; an answer about something
else scores low; a better-supported passage in the context is the one quoted."""

from __future__ import annotations

import pytest

from rag.context.builder import context_from_passages
from rag.generate.answer_fit import answer_fit, contents_entry, restates_question
from rag.generate.extractive import extractive_answer
from rag.grounding.check import check_answer
from rag.settings.grounding import GroundingConfig

# what the answerer quoted before this change, each with confidence 1.00
CONTENTS = [
    "CONTENTS 1 Scope of This Document 3 2 Applying to Become a Member 5 2.1 Getting started .",
    "A asn1Coding program .",
    "7 asn1Parser program .",
    "2.3 Simple parsing . . . . . . . . . . . . . . . . . . . . . . . . 4",
    "3.1 Invoking asn1Parser 5 3.2 Invoking asn1Coding 5 3.3 Invoking asn1Decoding 7",
]
SENTENCES = [
    "The default weight value is 50, and the maximum is 100.",
    "This is version 0.21 of the Shared MIME-info Database specification, last updated 2 October 2018.",
    "The C-style /*, */ comments are not supported.",
]
DEBDIFF = ("9.2.4 debdiff\ndebdiff (from the devscripts package) compares file lists and control files of "
           "two packages. It is a simple regression test, as it will help you notice if the number of "
           "binary packages has changed since the last upload.")
OVERRIDE = ("Where the information from these files is conflicting, information from directories lower in "
            "the list takes precedence. Any file named Override.xml takes precedence over all other files "
            "in the same packages directory.")
PRECEDENCE = "Which file takes precedence over all other files in the same packages directory?"


@pytest.mark.parametrize("line", CONTENTS)
def test_contents_entries_are_recognised(line: str) -> None:
    assert contents_entry(line) and answer_fit("How do I apply to become a Debian member?", line).score == 0


@pytest.mark.parametrize("sentence", SENTENCES)
def test_sentences_ending_in_numbers_are_not_contents(sentence: str) -> None:
    assert not contents_entry(sentence) and not contents_entry(sentence + " [Source 1]")


def test_a_restated_question_scores_zero_and_an_answer_does_not() -> None:
    assert restates_question("How do I orphan a package?", "Orphaning a package.")
    assert answer_fit("How do I orphan a package?", "Orphaning a package. [Source 1]").restated
    assert not restates_question("What is the capital of France?", "Paris is the capital of France.")
    # the question again with a pointer to where the answer is (developers-reference.pdf)
    assert restates_question("How do I orphan a package?", "Orphan all your packages, as described in "
                                                           "Orphaning a package.")
    assert not restates_question("How do I orphan a package?", "To orphan a package, retitle its WNPP bug "
                                                               "to O:, as described in the BTS page.")
    # a yes/no question is answered by its own words as a statement
    assert not restates_question("Are C-style comments supported by the ASN.1 parser?", SENTENCES[2])
    fit = answer_fit("Does the shared MIME database store user preferences?",
                     "The MIME database is NOT intended to store user preferences. [Source 1]")
    assert fit.score >= 0.8 and fit.reason.startswith("the answer uses")


def test_an_answer_about_another_thing_scores_low() -> None:
    off = answer_fit(PRECEDENCE, DEBDIFF.split("\n")[1])
    assert off.score <= 0.5
    wrong = answer_fit("What does asn1_create_element do?",
                       "Returns: ASN1_SUCCESS if DER encoding OK, ASN1_ELEMENT_NOT_FOUND if ELEMENT is NULL.")
    assert wrong.score <= 0.4 and wrong.missing_terms == ("asn1_create_element",)


def test_confidence_is_low_for_a_contents_entry_however_grounded() -> None:
    ctx = context_from_passages("How do I apply to become a Debian member?", [CONTENTS[0]])
    report = check_answer(ctx.query, CONTENTS[0] + " [Source 1]", ctx, GroundingConfig(model_check="none"))
    assert report.relevance >= 0.5 and report.confidence == 0 and "contents" in report.answer_fit_reason


def test_the_answer_draws_from_the_better_supported_passage() -> None:
    """The debdiff section's first sentence (better-ranked, the lead of its section) shares
    "file" and "packages"; the Override.xml sentence, deeper in Source 2, holds the question."""
    ctx = context_from_passages(PRECEDENCE, [DEBDIFF, OVERRIDE])
    found = extractive_answer(PRECEDENCE, ctx)
    assert found.text.startswith("Any file named Override.xml takes precedence")
    assert found.quotes[0].n == 2


def test_a_running_header_restating_the_question_scores_zero() -> None:
    # libtasn1.pdf's running header (every page of chapter 2): its label is not an answer's word
    question = "How does libtasn1 handle ASN.1 structures?"
    header = "Chapter 2: ASN.1 structure handling"
    assert restates_question(question, header)
    assert answer_fit(question, f"{header}. [Source 1]").score == 0
    assert not restates_question(question, "Chapter 2 explains how libtasn1 stores ASN.1 structures "
                                           "in asn1_node trees.")
