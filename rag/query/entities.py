"""Offline entity spotting for routing and follow-up rewriting (Vexora `QueryRouter` extracts
entities with a model; this is the deterministic stand-in): quoted phrases, capitalized runs,
acronyms, mixed-case names (LumenSync), tags and tokens with digits (v4.0, BM25)."""

from __future__ import annotations

import re

from rag.text import QUESTION_WORDS, STOPWORDS

_QUOTED = re.compile(r"[\"“«']([^\"”»']{2,60})[\"”»']")
_TOKEN = re.compile(r"#[\w/-]+|[\w][\w.+/-]*[\w+]|\w")
# Leading words that are capitalized only because they start the sentence.
_SENTENCE_VERBS = frozenset(
    "is are was were do does did can could should would will tell show give explain list "
    "compare summarize summarise describe find please and also what".split()
)


def _is_name(token: str, first: bool) -> bool:
    if token.startswith("#") or (any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token)):
        return True  # tags, versions, BM25
    if not token[:1].isupper():
        return any(ch.isupper() for ch in token[1:])  # iOS, eBook
    lower = token.lower()
    if first and (lower in STOPWORDS or lower in QUESTION_WORDS or lower in _SENTENCE_VERBS):
        return False
    return lower not in STOPWORDS or (token.isupper() and len(token) > 1)


def extract_entities(text: str) -> tuple[str, ...]:
    """Entity strings in order of appearance, without duplicates (case-insensitive)."""
    found: list[str] = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    unquoted = _QUOTED.sub(" ", text)
    for sentence in re.split(r"(?<=[.!?])\s+", unquoted):
        run: list[str] = []
        last_end = 0
        for index, match in enumerate(_TOKEN.finditer(sentence)):
            token = match.group(0)
            if run and sentence[last_end : match.start()].strip():  # punctuation ends a name
                found.append(" ".join(run))
                run = []
            last_end = match.end()
            if _is_name(token, first=index == 0):
                run.append(token)
            elif run:
                found.append(" ".join(run))
                run = []
        if run:
            found.append(" ".join(run))
    seen: set[str] = set()
    unique = []
    for entity in found:
        key = entity.lower()
        if key not in seen:
            seen.add(key)
            unique.append(entity)
    return tuple(unique)
