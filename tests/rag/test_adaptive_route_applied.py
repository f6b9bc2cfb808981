"""The adaptive router through the runner: it reads only its own section, and each later stage
applies the route to its own (retrieve keeps the route's retrievers when the preset has them,
select caps the route's top_k at retrieval.depth, context expands by document only when it
expands nothing itself) — issue 38, clause 3."""

from __future__ import annotations

import pytest
from hashing_presets import use_hashing_presets
from pipeline_collection import MemoryCollection, make_chunks

from rag.config import load_preset, with_overrides
from rag.embed import get_embedder
from rag.pipeline import run_query
from rag.retrieve.search import Retrieved, clear_candidate_cache
from rag.trace import Trace


def _adaptive_run(question: str, monkeypatch: pytest.MonkeyPatch, **settings: object) -> Trace:
    use_hashing_presets(monkeypatch)
    clear_candidate_cache()
    cfg = with_overrides(load_preset("adaptive"), {"query.cache.enabled": False,
                                                   "query.spell.enabled": False, **settings})
    memory = MemoryCollection("mem", make_chunks(), get_embedder(cfg.embedding))
    return run_query(question, cfg, memory)


def test_through_the_runner_each_stage_applies_the_route_to_its_own_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fusion = _adaptive_run("How does reciprocal rank fusion work?", monkeypatch)  # depth 15
    select = fusion.stage("select")
    assert select is not None and select.settings["top_k"] == 15
    assert "the route's top_k 20 capped at retrieval.depth 15" in select.reason
    dense = _adaptive_run("What is a vault?", monkeypatch)
    retrieved = dense.output(Retrieved)
    assert retrieved is not None and set(retrieved.lists) == {"dense"}
    assert dense.stage("rerank").status == "skipped"  # type: ignore[union-attr]
    sparse = _adaptive_run("What is a vault?", monkeypatch, **{"retrieval.retrievers": ["bm25"]})
    lists = sparse.output(Retrieved)
    assert lists is not None and set(lists.lists) == {"bm25"}
    assert any("no such retriever" in w for w in sparse.warnings)
    summary = _adaptive_run("Summarize the handbook", monkeypatch, **{"context.enabled": True})
    context = summary.stage("context")
    assert context is not None and context.settings["routed_expansion"] == "document"
