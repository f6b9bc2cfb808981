"""What you score is what runs: for every preset, the ranking eval's retrieval mode scores (and a
sweep point re-scores from cached heads) is exactly the `select` stage's output of a full
`run_query` of that preset on the same query and collection (LLM stages off: no endpoint).

Embeddings come from the hashing backend: parity does not depend on embedding quality, and every
preset's own chunking gets its own collection without loading a model.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from eval.data.beir import load_beir
from eval.runs.beir_index import beir_collection, eval_config, make_searcher, retrieval_searcher
from eval.runs.candidates import retrieve_all
from eval.runs.preset_run import deepest_cutoff, search_all
from eval.runs.sweep import rescore
from rag.config import available_presets, load_preset, with_overrides
from rag.index.hits import Candidate, RankedList, RetrieverHit
from rag.pipeline import run_query
from rag.retrieve.stage import SelectOutput
from rag.settings.retrieval import FilterConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "rag"))
from pipeline_collection import make_chunks

DATASET = Path(__file__).resolve().parents[3] / "datasets" / "beir_sample"
NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)  # one clock: EchoMind's time decay must not drift
QUERIES = 6  # per preset: enough to see different rankings, small enough to stay quick


@pytest.mark.parametrize("preset", available_presets())
def test_retrieval_mode_ranks_what_the_pipeline_selects(preset: str, hashing_presets: None) -> None:
    dataset = load_beir(DATASET)
    config = load_preset(preset)
    collection = beir_collection(dataset, config, progress=False)
    pointed = eval_config(config, dataset)
    search = make_searcher(dataset, config, "retrieval", progress=False, now=NOW)
    queries = list(dataset.queries.items())[:QUERIES]
    for _, text in queries:
        scored = [(c.chunk_id, c.score) for c in search(text)]
        trace = run_query(text, pointed, collection, now=NOW)
        selected = trace.output(SelectOutput)
        assert selected is not None, f"{preset}: select did not run for {text!r}"
        assert scored == [(c.chunk_id, c.score) for c in selected.candidates], (preset, text)
    # a sweep point re-scores cached heads through the same tail: the same document rankings
    few = replace(dataset, queries=dict(queries))
    heads, _ = retrieve_all(few, pointed, collection, pointed.retrieval.depth, False, NOW)
    swept = rescore(few, pointed, heads, collection, ["ndcg@10"], 10, 0, preset, NOW)
    direct = search_all(few, search, preset, limit=deepest_cutoff(["ndcg@10"]))
    assert [(o.qid, dict(o.ranking)) for o in swept.outcomes] == [
        (o.qid, dict(o.ranking)) for o in direct]


class SwappedLists:
    """A collection whose BM25 and dense lists disagree on a document and a transcript of the
    same meeting (BM25 puts the document first, dense the transcript), so fusion nearly ties
    them — the case EchoMind's authority tie-break decides."""

    name = "swapped-lists"

    def __init__(self) -> None:
        text = "Quarterly budget review: travel costs rose and hiring slowed."
        chunks = {c.chunk_id: c for c in make_chunks({"transcript": text, "document": text,
                                                      "other": "A note about tomatoes."})}
        sources = {"transcript": "transcript_0412.txt", "document": "budget-review.pdf",
                   "other": "garden.txt"}
        self.chunks = {cid: replace(c, metadata=MappingProxyType({"source": sources[cid]}))
                       for cid, c in chunks.items()}

    def _ranked(self, name: str, order: tuple[str, ...]) -> RankedList:
        return RankedList(name, tuple(
            Candidate(self.chunks[cid], 1.0 / rank, {name: RetrieverHit(name, rank, 1.0 / rank)})
            for rank, cid in enumerate(order, start=1)))

    def sparse_search(self, query: str, depth: int, filters: FilterConfig) -> RankedList:
        return self._ranked("bm25", ("document", "transcript", "other")[:depth])

    def dense_search(self, vector: np.ndarray, depth: int, filters: FilterConfig) -> RankedList:
        return self._ranked("dense", ("transcript", "document", "other")[:depth])


def test_echomind_authority_tie_break_shows_in_retrieval_mode(hashing_presets: None) -> None:
    query = "quarterly budget review travel costs"
    echomind = load_preset("echomind")
    assert echomind.postprocess.prefer_authoritative
    ranked = [c.chunk_id for c in retrieval_searcher(echomind, SwappedLists(), NOW)(query)]
    plain = with_overrides(echomind, {"postprocess.prefer_authoritative": False})
    unbroken = [c.chunk_id for c in retrieval_searcher(plain, SwappedLists(), NOW)(query)]
    assert unbroken[:2] == ["transcript", "document"]  # dense carries more weight (0.6)
    assert ranked[:2] == ["document", "transcript"]  # within 1 %: the document goes first
