"""TREC-style depth pooling over a collection: the union of the top `depth` passages of several
configurations, each run through the one pipeline runner in eval's retrieval mode
(eval.runs.own_corpus.collection_searcher), deduplicated by span.

Chunkers differ between presets, so the same text comes back as different chunks. A passage is a
span of one document; a hit whose span overlaps a passage already pooled for that document
counts as that passage (the better-ranked span stays what is judged), so overlapping chunks of
one document are judged once and every system that retrieved them is credited.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from eval.judging.store import Passage
from eval.runs.own_corpus import collection_searcher, document_name
from eval.runs.preset_run import Searcher, unless_refused
from rag.config import load_preset
from rag.index import Collection
from rag.text import STOPWORDS, words

# bm25, dense and hybrid baselines, then the five seed systems' presets
DEFAULT_SYSTEMS = ("bm25", "dense", "hybrid", "axiom", "echomind", "adaptive", "vexora",
                   "intellidocs")
DEFAULT_DEPTH = 10  # Evaluate scores nDCG@10: a depth-10 pool judges every system's scored top 10


@dataclass(frozen=True)
class Hit:
    """One system's ranked chunk, as a span of a document."""

    system: str
    rank: int  # 1-based
    doc: str
    start: int
    end: int
    text: str


def merge_hits(hits: Sequence[Hit]) -> list[Passage]:
    """Passages from hits, best-ranked first: a hit overlapping an already pooled span of its
    document joins that passage (its system and rank are added), else it opens a new one."""
    order = sorted(hits, key=lambda h: (h.rank, h.system))
    kept: list[tuple[Hit, dict[str, int]]] = []
    for hit in order:
        home = next((systems for first, systems in kept if first.doc == hit.doc
                     and first.start < hit.end and hit.start < first.end), None)
        if home is None:
            kept.append((hit, {hit.system: hit.rank}))
        else:
            home[hit.system] = min(home.get(hit.system, hit.rank), hit.rank)
    return [Passage(h.doc, h.start, h.end, h.text, systems) for h, systems in kept]


def system_hits(system: str, search: Searcher, question: str, depth: int) -> list[Hit]:
    """The first `depth` chunks `search` ranks for the question, as document spans (none when
    the system's guard refuses the question)."""
    return [Hit(system, rank, document_name(c), c.chunk.start, c.chunk.end, c.chunk.text)
            for rank, c in enumerate(unless_refused(search, question)[:depth], start=1)]


def pool_searchers(
    collection: Collection, systems: Sequence[str] = DEFAULT_SYSTEMS,
) -> dict[str, Searcher]:
    """One retrieval-mode searcher per preset over the collection (derived indexes are built on
    first use, from the collection's kept text)."""
    return {name: collection_searcher(load_preset(name), collection, "retrieval")
            for name in systems}


@dataclass(frozen=True)
class Pool:
    """A question's pooled passages, and the systems that failed on it (name -> error)."""

    passages: tuple[Passage, ...]
    failed: Mapping[str, str]


def pool_question(
    question: str, searchers: Mapping[str, Searcher], depth: int = DEFAULT_DEPTH,
    on_system: Callable[[str], None] | None = None,
) -> Pool:
    """The depth-`depth` pool of one question over every searcher, deduplicated by span. A
    system that raises is left out of this question's pool and named in `failed`."""
    hits: list[Hit] = []
    failed: dict[str, str] = {}
    for name, search in searchers.items():
        if on_system is not None:
            on_system(name)
        try:
            hits.extend(system_hits(name, search, question, depth))
        except Exception as exc:  # noqa: BLE001 -- one system's failure leaves the others' pool
            failed[name] = f"{type(exc).__name__}: {exc}"
    return Pool(tuple(merge_hits(hits)), failed)


def question_terms(question: str) -> list[str]:
    """The question's content words (no stopwords), the terms a judge sees marked."""
    return list(dict.fromkeys(w for w in words(question) if w not in STOPWORDS and len(w) > 2))


def term_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Character spans of `terms` in `text`, whole words, case-insensitive, in order."""
    if not terms:
        return []
    pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in terms) + r")\w*", re.IGNORECASE)
    return [(m.start(), m.end()) for m in pattern.finditer(text)]
