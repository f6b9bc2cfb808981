"""Does a sentence answer the question, or only echo it? Two shapes that share every word with
the question and answer nothing: the question restated ("Listing the contents of a database" for
"How do I list the contents of a database?") and an entry of a table of contents or list
("2.3 Listing tables . . . . 12"). The extractive answerer never quotes them, and answer
relevance (hence confidence) is 0 for an answer that opens with one; otherwise relevance is the
share of the question's content words the answer uses, on light stems ("listing" = "list").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.generate.answer_rank import asked_subject, has_subject
from rag.text import content_words, split_sentences

RESTATE_COVERAGE = 0.6  # the sentence holds at least this share of the question's words …
# … and adds no content word of its own ("Paris is the capital of France" adds "Paris": an answer)
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:\s\.){3,}")
_SECTION_NUMBER = re.compile(r"(?:^|\s)\d+(?:\.\d+)+\.?\s+[A-Z]")
_NUMBERED_TITLE = re.compile(r"(?:^|\s)\d+(?:\.\d+)*\.?\s+[A-Z][a-z]")
_CONTENTS_HEAD = re.compile(r"^\s*(?:table of )?contents\b", re.I)
# an index or contents line the sentence splitter cut at its dot leaders: "7 asn1Parser program ."
_LEADER_CUT = re.compile(r"\s\.$")
_TERM = re.compile(r"\b(?:\w+_\w+|[a-z]+[A-Z]\w*|[A-Z]{2,}\w*|\w*\d\w*|\w+-\w+)\b")
TERM_MISSING_CAP = 0.4  # an answer without any of the question's named terms fits at most this
# an answer of the wrong shape fits at most this (below a confident 0.8): "What is X?" answered by
# a sentence that does not have X as its subject ("There is also another type, namely the
# binary-only NMU"; "Read the WNPP web pages"), and a "How do I …?" asking for a procedure,
# which a few quoted sentences rarely give whole (on the real-PDF development sets every such
# answer read as partly right at best)
SHAPE_CAP = 0.6
_PROCEDURE = re.compile(r"^\s*how\s+(?:do|can|should|must|would|could)\s+(?:i|you|we|one)\b", re.I)
_TRAILING_PAGE = re.compile(r"[A-Za-z)]\s+\d{1,4}\s*$")
_SUFFIXES = ("ings", "ing", "edly", "ed", "s", "ly")
CONTENTS_MAX_WORDS = 14
# "Orphan all your packages, as described in Orphaning a package.": the question again, and a
# pointer to where the answer is
_POINTER = re.compile(r",?\s*\b(?:as (?:described|explained|shown|detailed) in|see|refer to|described in)\b",
                      re.I)
# a running header's or title's label before its words ("Chapter 2: ASN.1 structure handling",
# "Section 4.2 …", "2.3 …"): not words of its own that would make a restated question an answer
_LABEL = re.compile(r"^(?:(?:chapter|section|part|appendix)\s+[\dA-Z]+(?:\.\d+)*[.:]?\s+)?"
                    r"(?:\d+(?:\.\d+)*\.?\s+)?", re.I)
_CITED = re.compile(r"\s*\[Source \d+(?:\s*,\s*\d+)*\]")


def uncited(text: str) -> str:
    """`text` without [Source N] citations and the space before each ("tall [Source 1]." →
    "tall."), so a space before a full stop is the document's own (a cut dot leader)."""
    return _CITED.sub("", text)


def stem(word: str) -> str:
    """A light stem: one common English suffix off, then a final "e" ("listing" → "list",
    "packages" and "package" → "packag", "shared" and "share" → "shar")."""
    for suffix in _SUFFIXES:
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


_YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|should|must|may|will|would|has|have|"
                     r"had)\b", re.I)


def restates_question(question: str, sentence: str) -> bool:
    """The sentence is the question again: it holds most of its words and adds next to none. A
    yes/no question's answer may repeat it as a statement ("C-style comments are not
    supported"), so for those only a question counts."""
    asked, said = stems(question), stems(_LABEL.sub("", sentence.strip()))
    if not asked or not said or sentence.rstrip().endswith("?"):
        return bool(asked and said)
    pointer = _POINTER.search(sentence)
    if pointer and pointer.start() > 0 and restates_question(question, sentence[: pointer.start()]):
        return True
    if _YES_NO.match(question):
        return False
    novel = said - asked
    covered = len(asked & said) / len(asked)
    return covered >= RESTATE_COVERAGE and not novel


def contents_entry(sentence: str) -> bool:
    """A line of a table of contents, an index or a list of sections: dot leaders, several
    numbered section titles run together, or a short title ending in a page number."""
    text = " ".join(uncited(sentence).split())
    if _DOT_LEADER.search(text) or len(_SECTION_NUMBER.findall(text)) >= 2 or _CONTENTS_HEAD.match(text):
        return True
    if len(_NUMBERED_TITLE.findall(text)) >= 3:  # "1 Scope 3 2 Applying to Become a Member 5 …"
        return True
    if len(text.split()) <= 8 and _LEADER_CUT.search(text):
        return True
    short = len(text.split()) <= CONTENTS_MAX_WORDS
    return short and bool(_TRAILING_PAGE.search(text)) and not re.search(r"[.!?]\s", text)


@dataclass(frozen=True)
class AnswerFit:
    """How an answer meets its question: score in [0, 1] and why."""

    score: float
    coverage: float  # share of the question's content words (stems) the answering sentence uses
    restated: bool = False  # the answering sentence restates the question
    contents: bool = False  # the answering sentence is a contents/list entry
    missing_terms: tuple[str, ...] = ()  # the question's named terms, none of which the answer has
    shape: str = ""  # why the answer's shape does not fit the question's (SHAPE_CAP), if it does not

    @property
    def reason(self) -> str:
        if self.restated:
            return "the answer restates the question"
        if self.contents:
            return "the answer is a table-of-contents or list entry"
        if self.missing_terms:
            return f"the answer names none of {', '.join(self.missing_terms)}"
        if self.shape:
            return self.shape
        return f"the answer uses {self.coverage:.0%} of the question's words"


def answer_fit(question: str, answer: str) -> AnswerFit:
    """The fit of `answer` (its first sentence is the answering one) to `question`."""
    text = uncited(answer).strip()
    sentences = [s.text for s in split_sentences(text)] or ([text] if text else [])
    if not sentences:
        return AnswerFit(0.0, 0.0)
    asked = stems(question)
    head = sentences[0]  # the answering sentence: the rest supports it
    coverage = len(asked & stems(head)) / len(asked) if asked else 0.0
    if contents_entry(sentences[0]) or contents_entry(text):
        return AnswerFit(0.0, coverage, contents=True)
    if restates_question(question, text):  # the whole answer: a restating lead-in may be followed
        return AnswerFit(0.0, coverage, restated=True)  # by the answer, in an LLM's reply
    terms = named_terms(question)
    if terms and not any(t in head.lower() for t in terms):
        return AnswerFit(min(coverage, TERM_MISSING_CAP), coverage, missing_terms=tuple(sorted(terms)))
    shape = misshaped(question, head)
    return AnswerFit(min(coverage, SHAPE_CAP) if shape else coverage, coverage, shape=shape)


def misshaped(question: str, head: str) -> str:
    """Why the answering sentence `head` has the wrong shape for `question` ("" when it fits):
    a definition asked and the sentence not about the thing, or a procedure asked."""
    subject = asked_subject(question)
    if subject and not has_subject(subject, head):
        return f"the answer does not say what {subject} is or does"
    if _PROCEDURE.match(question):
        return "a procedure asked: a few quoted sentences rarely give it whole"
    return ""


def named_terms(question: str) -> set[str]:
    """The question's names of things: identifiers (asn1_create_element, asn1Parser), acronyms
    (DELAYED, DER), words with digits or hyphens (source-only): an answer about something else
    lacks them all."""
    return {t.lower() for t in _TERM.findall(question) if len(t) >= 3}
