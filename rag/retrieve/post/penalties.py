"""Content-type penalties (Adaptive): glossary -30 %, table of contents -50 %, image credits -40 %.

The seed names the types but not how it spots them; these text heuristics look for a telling
heading on the first line, or for most lines having the type's shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from rag.records.hits import Candidate
from rag.retrieve.post.base import POST_STEPS, PostContext, PostStep, StepResult, rescale, result
from rag.settings.retrieval import ContentType, PostprocessConfig

_HEADINGS: dict[ContentType, re.Pattern[str]] = {
    "toc": re.compile(r"^\W*(table of contents|contents)\W*$", re.I),
    "image_credits": re.compile(
        r"^\W*((image|photo|picture|illustration)s?\s+)?credits?\W*$", re.I
    ),
    "glossary": re.compile(r"^\W*(glossary|references|bibliography|works cited|index)\W*$", re.I),
}
_LINES: dict[ContentType, re.Pattern[str]] = {
    # "Introduction ........ 3", "2.1 Setup    14"
    "toc": re.compile(r"^.{2,}?(\.{2,}|…|\s{2,}|\t)\s*\d{1,4}\s*$"),
    # "Photo: Jane Doe / Getty Images", "Image courtesy of NASA", "© 2021 Reuters"
    "image_credits": re.compile(
        r"(\b(image|photo|picture|figure|illustration|cover)s?\s*(credit|courtesy|by|:)"
        r"|\bcourtesy of\b|©|\b(getty images|shutterstock|unsplash|wikimedia|istock|alamy)\b)",
        re.I,
    ),
    # "Term: definition", "Term — definition", "[3] Smith, J. (2020). Title."
    "glossary": re.compile(
        r"^(\s*[\w][\w ()/-]{0,40}\s*(:|—|–| - )\s+\S"
        r"|\s*\[\d+\]\s+\S|\s*[A-Z][\w'-]+, [A-Z]\..*\(\d{4}\))"
    ),
}
_ORDER: tuple[ContentType, ...] = ("toc", "image_credits", "glossary")
_MIN_LINES = 3  # a line-shape verdict needs a few lines to mean anything
_SHARE = 0.5  # ...and most of them


@lru_cache(maxsize=65_536)  # the same chunks come back on every slider move
def detect_content_type(text: str) -> ContentType | None:
    """The content type a chunk looks like, or None for ordinary prose."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    for kind in _ORDER:
        if _HEADINGS[kind].match(lines[0]):
            return kind
    if len(lines) < _MIN_LINES:
        return None
    for kind in _ORDER:
        matching = sum(1 for line in lines if _LINES[kind].search(line))
        if matching / len(lines) >= _SHARE:
            return kind
    return None


def apply_penalties(
    candidates: tuple[Candidate, ...], factors: Mapping[ContentType, float]
) -> StepResult:
    """Multiply the score of each glossary / TOC / image-credit chunk by its type's factor."""
    multipliers, notes, decisions = {}, {}, {}
    for cand in candidates:
        kind = detect_content_type(cand.chunk.text)
        if kind is None or kind not in factors:
            decisions[cand.chunk_id] = "prose: unchanged"
            continue
        multipliers[cand.chunk_id] = factors[kind]
        notes[cand.chunk_id] = f"content penalty: {kind} ×{factors[kind]}"
        decisions[cand.chunk_id] = f"{kind}: ×{factors[kind]}"
    penalized = rescale(candidates, "content_penalty", multipliers, notes)
    return result("content_penalty", candidates, penalized, decisions)


def _apply(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, ctx: PostContext
) -> StepResult:
    return apply_penalties(candidates, config.content_penalty_factors)


def _off(config: PostprocessConfig) -> str | None:
    return None if config.content_penalties else "postprocess.content_penalties is false"


POST_STEPS.add("content_penalty", PostStep("content_penalty", _apply, _off))
