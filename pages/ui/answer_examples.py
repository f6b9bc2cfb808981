"""Example questions for the Answer page's intro, taken from the collection itself: questions its
documents ask (FAQ lines ending in "?"), else "What does <title> say?" per document."""

from __future__ import annotations

import re

import streamlit as st

from rag.index import Collection

_QUESTION = re.compile(r"(?:^|\n)\s*(?:Q:\s*|#+\s*)?([A-Z][^\n?]{12,90}\?)")


def example_questions(collection: Collection, n: int = 3) -> list[str]:
    """Up to `n` questions, one per document where possible (cached per manifest version)."""
    return list(_examples(collection.name, collection.manifest.updated_at, n))


@st.cache_data(max_entries=16, show_spinner=False)
def _examples(name: str, version: str, n: int) -> tuple[str, ...]:
    from pages.ui.resources import cached_collection  # late: resources imports this page's peers

    collection = cached_collection(name)
    found: dict[str, str] = {}  # source -> its first question
    for chunk in collection.chunks():
        source = str(chunk.metadata.get("source", chunk.doc_id))
        if source not in found and (match := _QUESTION.search(chunk.text)):
            found[source] = match.group(1).strip()
    questions = list(dict.fromkeys(found.values()))
    titles = [d.title for d in collection.manifest.documents.values() if d.title]
    questions += [f"What does “{t}” cover?" for t in titles]
    return tuple(dict.fromkeys(questions))[:n]
