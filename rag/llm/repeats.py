"""A small model's looping reply, said once: the repair every parser of free-text replies needs
(the answer's clean-up, multi-query expansion). In rag.llm so the query stages need not import
the answerer."""

from __future__ import annotations

import re

from rag.text import split_sentences

# a phrase of 2+ words said three or more times in a row (a small model's loop)
_LOOP = re.compile(r"(\b\w+(?:\W+\w+)+?\W+)(?:\1){2,}", re.I)


def without_repeats(text: str) -> tuple[str, int]:
    """(`text` with looping phrases said once and repeated sentences dropped, how many
    repetitions were removed); sentences compare case- and whitespace-insensitively."""
    removed = 0

    def once(match: re.Match[str]) -> str:
        nonlocal removed
        removed += len(match.group(0)) // max(1, len(match.group(1))) - 1
        return match.group(1)

    text = _LOOP.sub(once, text + " ")  # the last repetition has no separator after it
    seen: set[str] = set()
    pieces: list[str] = []
    position = 0
    for sentence in split_sentences(text):
        key = " ".join(sentence.text.lower().split())
        if key in seen:
            removed += 1
            pieces.append(text[position : sentence.start].rstrip(" "))
        else:
            seen.add(key)
            pieces.append(text[position : sentence.end])
        position = sentence.end
    return ("".join(pieces) + text[position:]).strip(), removed
