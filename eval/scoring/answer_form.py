"""Whether an answer reads as whole sentences (issue 27): the share of its sentences that are
fragments — a sentence that starts lower-case or with punctuation (the middle of a sentence),
or has no sentence end. Citations ("[Source 2]") are not part of a sentence; a sentence made
only of citations or code is not counted. One splitter for every answerer (rag.sentences),
so answers written before and after a change are judged alike.

The rule is the issue's and is strict: a whole sentence that begins with a lower-case command
name ("dpkg is …") counts as a fragment too.
"""

from __future__ import annotations

import re

from rag.text import ends_sentence, split_sentences

_CITATION = re.compile(r"\s*\[Source \d+(?:\s*,\s*\d+)*\]")
_CITED_END = re.compile(r"(\s*\[Source [^\]]*\])+([.!?])")  # "… works [Source 1]." ends at the stop
_OPENERS = "\"'“‘(*_"


def answer_sentences(answer: str) -> list[str]:
    """The answer's sentences without their citations (a citation after the full stop belongs
    to the sentence before it)."""
    found = []
    answer = _CITED_END.sub(lambda m: m.group(2) + m.group(0)[: -1], answer)
    for segment in _CITATION.split(answer):  # a citation closes what comes before it
        for sentence in split_sentences(segment):
            text = sentence.text.strip()
            if re.search(r"[A-Za-z]", text) and not text.startswith(("```", "~~~")):
                found.append(text)
    return found


def is_fragment(sentence: str) -> bool:
    """Starts lower-case or with punctuation (mid-sentence), or has no sentence end."""
    first = sentence.lstrip(_OPENERS)[:1]
    starts_mid = (first.isalpha() and first.islower()) or first in ",;:.)]}…-–—"
    return starts_mid or not ends_sentence(sentence)


def fragment_share(answer: str) -> float | None:
    """Share of the answer's sentences that are fragments; None for an answer with none."""
    sentences = answer_sentences(answer)
    if not sentences:
        return None
    return sum(is_fragment(s) for s in sentences) / len(sentences)
