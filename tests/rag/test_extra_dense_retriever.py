"""A further dense retriever with its own embedder: searched exactly, fused like any list."""

from __future__ import annotations

import numpy as np
import pytest
from pipeline_collection import MemoryCollection, make_chunks

from rag.chunking.base import Chunk
from rag.config import PipelineConfig, PresetError, config_from_dict
from rag.embed import EmbeddingConfig, get_embedder
from rag.pipeline import run_head, run_tail
from rag.retrieve.fusion.base import alpha_weights
from rag.retrieve.stage import FuseOutput
from rag.settings.retrieval import FilterConfig

HASHING = {"backend": "hashing", "cache": False}


class ChunkCollection:
    """The in-memory collection plus what an extra dense search reads: chunks and filters."""

    def __init__(self) -> None:
        self.inner = MemoryCollection("mem", make_chunks(), get_embedder(EmbeddingConfig(**HASHING)))
        self.name = "mem"
        self.dense_search = self.inner.dense_search
        self.sparse_search = self.inner.sparse_search

    def chunks(self) -> list[Chunk]:
        return list(self.inner.chunks)

    def matching_ids(self, filters: FilterConfig | None) -> set[str] | None:
        if filters is None or not filters.tags:
            return None
        return {c.chunk_id for c in self.inner.chunks if set(c.metadata["tags"]) & set(filters.tags)}


def config(**retrieval: object) -> PipelineConfig:
    return config_from_dict({
        "embedding": HASHING,
        "retrieval": {"retrievers": ["bm25", "dense", "dense_two"],
                      "embedders": {"dense_two": {**HASHING, "passage_prefix": "p "}},
                      "depth": 6, "top_k": 6, **retrieval},
    })


def collection() -> ChunkCollection:
    return ChunkCollection()


def test_the_extra_list_is_exact_cosine_under_its_own_embedder() -> None:
    cfg = config()
    head = run_head("how does dense retrieval rank passages", cfg, collection())
    assert set(head.state.lists) == {"bm25", "dense", "dense_two"}
    extra = cfg.retrieval.embedders["dense_two"]
    chunks = make_chunks()
    embedder = get_embedder(extra)
    scores = embedder.embed_documents([c.text for c in chunks]) @ embedder.embed_query(
        "how does dense retrieval rank passages")
    expected = [chunks[i].chunk_id for i in np.argsort(-scores, kind="stable")]
    got = head.state.lists["dense_two"].candidates
    assert [c.chunk_id for c in got] == expected
    assert [c.hits["dense_two"].rank for c in got] == list(range(1, 7))
    fused = run_tail(head.state, cfg).trace.output(FuseOutput)
    assert fused is not None and all("dense_two" in c.contributions for c in fused.candidates)


def test_filters_apply_to_the_extra_list() -> None:
    cfg = config(filters={"tags": ["bm25", "rrf"]})
    head = run_head("ranking", cfg, collection())
    assert {c.chunk_id for c in head.state.lists["dense_two"].candidates} == {"bm25", "rrf"}


def test_extra_dense_lists_are_on_the_dense_side_of_alpha() -> None:
    assert alpha_weights(["bm25", "dense", "dense_two"], 0.8) == pytest.approx(
        {"bm25": 0.2, "dense": 0.4, "dense_two": 0.4})


@pytest.mark.parametrize(("retrieval", "message"), [
    ({"retrievers": ["bm25", "colbert"]}, "unknown retriever 'colbert'; valid: bm25, dense"),
    ({"retrievers": ["e5"], "embedders": {"e5": HASHING}}, "'e5' must be named dense_<something>"),
])
def test_bad_retriever_names_are_refused(retrieval: dict[str, object], message: str) -> None:
    with pytest.raises(PresetError, match=message):
        config_from_dict({"retrieval": retrieval})
