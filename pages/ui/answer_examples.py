"""Example questions for the Answer page's intro, taken from the collection itself: questions its
documents ask (FAQ lines ending in "?"), else "What does <title> say?" per document."""

from __future__ import annotations

import re

import streamlit as st

from pages.ui.state import SAMPLE_COLLECTION
from rag.index import Collection
from rag.privacy import visible_to

_QUESTION = re.compile(r"(?:^|\n)\s*(?:Q:\s*|#+\s*)?([A-Z][^\n?]{12,90}\?)")


def opening_question(collection: Collection, sample_question: str) -> str:
    """The question a stage page opens with: its own (written for the bundled samples) on the
    sample collection, else one from the user's collection, so the first run finds something."""
    if collection.name == SAMPLE_COLLECTION:
        return sample_question
    found = example_questions(collection, 1)
    return found[0] if found else sample_question


def example_questions(collection: Collection, n: int = 3) -> list[str]:
    """Up to `n` questions, one per document where possible (cached per manifest version)."""
    return list(_examples(collection.name, collection.manifest.updated_at, n))


@st.cache_data(max_entries=16, show_spinner=False)
def _examples(name: str, version: str, n: int) -> tuple[str, ...]:
    from pages.ui.resources import cached_collection  # late: resources imports this page's peers

    collection = cached_collection(name)
    found: dict[str, str] = {}  # source -> its first question
    titles: dict[str, str] = {}
    for chunk in collection.chunks():
        if not visible_to(chunk.metadata, None):  # the intro is shown to anyone: public only
            continue
        source = str(chunk.metadata.get("source", chunk.doc_id))
        titles.setdefault(source, str(chunk.metadata.get("title") or ""))
        if source not in found and (match := _QUESTION.search(chunk.text)):
            found[source] = match.group(1).strip()
    questions = list(dict.fromkeys(found.values()))
    questions += [f"What does “{t}” cover?" for t in titles.values() if t]
    return tuple(dict.fromkeys(questions))[:n]
