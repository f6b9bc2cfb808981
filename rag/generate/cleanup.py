"""Response clean-up (Adaptive "Response Assembly"): strip preambles, pull out suggested questions,
normalize citation variants to Axiom's [Source N]; and the repairs small models need: repeated
sentences or phrases removed, a sentence cut off by the token limit dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.llm.repeats import without_repeats
from rag.text import split_sentences

_PREAMBLES = (
    r"(?:sure|certainly|of course|absolutely|okay|ok|great question|good question)(?=[\s!,.])[!,.]*\s*",
    r"(?:i'?d|i would|i'?ll|i will) be (?:happy|glad) to help(?: with that)?[!,.:]*\s*",
    r"(?:here(?:'s| is) (?:the |an? |my )?(?:answer|response|summary)[^:\n]*:)\s*",
    r"(?:based on|according to|from) the (?:provided |given )?(?:context|sources?|documents?|"
    r"information|excerpts?)(?: provided)?[,:]?\s*",
)
_PREAMBLE = re.compile(r"^\s*(?:" + "|".join(_PREAMBLES) + r")", re.I)
_SUGGESTED = re.compile(r"^\s*\**\s*suggested[ _]questions?\s*\**\s*:?\**\s*(.*)$", re.I | re.M | re.S)
_NUMBERS = r"(\d+(?:\s*(?:,|and|&)\s*(?:source\s*)?\d+)*)"
_VARIANTS = (
    re.compile(r"\[\s*sources?\s*:?\s*" + _NUMBERS + r"\s*\]", re.I),  # [source 1], [Sources 1, 2]
    re.compile(r"\(\s*sources?\s*:?\s*" + _NUMBERS + r"\s*\)", re.I),  # (Source 1)
    re.compile(r"【\s*" + _NUMBERS + r"\s*】"),  # 【1】
    re.compile(r"\[\s*" + _NUMBERS + r"\s*\]"),  # [1], [1, 2]
)
_CITED = re.compile(r"\[Source (\d+)\]")
_ENDS_SENTENCE = re.compile(r"""[.!?:)\]"'”]\s*$""")


@dataclass(frozen=True)
class Cleaned:
    text: str
    suggested_questions: tuple[str, ...]
    preamble_removed: str = ""
    repairs: tuple[str, ...] = ()  # what was removed to make a degenerate reply usable


def drop_cut_sentence(text: str) -> tuple[str, str]:
    """(`text` without a last sentence the token limit cut off, the dropped piece). Kept when it
    is the only sentence: something unfinished beats nothing."""
    sentences = split_sentences(text)
    if len(sentences) < 2 or _ENDS_SENTENCE.search(sentences[-1].text):
        return text, ""
    return text[: sentences[-2].end].rstrip(), sentences[-1].text


def strip_preamble(text: str) -> tuple[str, str]:
    """(text without leading pleasantries / "Based on the context", what was removed)."""
    removed = ""
    while (match := _PREAMBLE.match(text)) is not None and match.end() > 0:
        removed += match.group(0)
        text = text[match.end() :]
    if removed and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text.strip(), removed.strip()


def split_suggestions(text: str) -> tuple[str, tuple[str, ...]]:
    """Remove a SUGGESTED_QUESTIONS block: `q1 | q2 | q3` on one line, or one question per line."""
    match = _SUGGESTED.search(text)
    if match is None:
        return text, ()
    tail = match.group(1)
    parts = tail.split("|") if "|" in tail else tail.splitlines()
    questions = tuple(q for q in (re.sub(r"^[\s\-*•\d.)]+", "", p).strip(" *") for p in parts) if q)
    return text[: match.start()].rstrip(), questions


def normalize_citations(text: str) -> str:
    """[source 1], [1], (Source 1), [Sources 1, 2], 【1】 → [Source 1] / [Source 1][Source 2]."""

    def expand(match: re.Match[str]) -> str:
        return "".join(f"[Source {n}]" for n in re.findall(r"\d+", match.group(1)))

    for pattern in _VARIANTS:
        text = pattern.sub(expand, text)
    return text


def cited_numbers(text: str) -> tuple[int, ...]:
    """[Source N] numbers in order of first use."""
    return tuple(dict.fromkeys(int(n) for n in _CITED.findall(text)))


def clean_response(raw: str, cut_off: bool = False) -> Cleaned:
    """`cut_off`: the reply stopped at the token limit, so its last sentence may be unfinished."""
    text, questions = split_suggestions(raw)
    text, removed = strip_preamble(text)
    text, repeats = without_repeats(text)
    repairs = [f"{repeats} repetition(s) removed"] if repeats else []
    if cut_off:
        text, dropped = drop_cut_sentence(text)
        if dropped:
            repairs.append(f"sentence cut off by the token limit dropped: {dropped[:60]!r}")
    return Cleaned(normalize_citations(text), questions, removed, tuple(repairs))
