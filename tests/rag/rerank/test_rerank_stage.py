"""The rerank stage inside the pipeline: trace record, over-fetch window, skip and LLM paths."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, reply
from tiny_cross_encoder import build_tiny_cross_encoder

from rag.config import PipelineConfig, load_preset, with_overrides
from rag.embed import get_embedder
from rag.index.hits import Candidate
from rag.pipeline import ranked_candidates, run_query
from rag.rerank.base import RerankResult
from rag.rerank.rerank import clear_score_cache
from rag.retrieve.search import clear_candidate_cache
from rag.retrieve.stage import FuseOutput
from rag.trace import Trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/rag: the shared collection
from pipeline_collection import CORPUS, MemoryCollection, make_chunks

QUERY = "how does reciprocal rank fusion combine lists"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    """Hashed bag-of-words embeddings and scripted chat replies from a local server."""
    with FakeOpenAI() as fake:
        saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = fake.base_url, "sk-test"
        yield fake
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def config(**overrides: object) -> PipelineConfig:
    base = {"embedding.backend": "openai", "embedding.model": "hashed-bow-rerank-tests",
            "rerank.enabled": True, "rerank.top_n": 2, "rerank.overfetch": 2}
    return with_overrides(load_preset("hybrid"), {**base, **overrides})


@pytest.fixture
def collection(server: FakeOpenAI) -> MemoryCollection:
    clear_candidate_cache()
    return MemoryCollection("mem", make_chunks(), get_embedder(config().embedding))


def fused_of(trace: Trace) -> tuple[Candidate, ...]:
    fuse = trace.output(FuseOutput)
    assert fuse is not None
    return fuse.candidates


def test_cross_encoder_rerank_is_recorded_with_both_rankings(
    collection: MemoryCollection, tmp_path: Path
) -> None:
    model = build_tiny_cross_encoder(tmp_path / "ce", [*CORPUS.values(), QUERY])
    trace = run_query(QUERY, config(**{"rerank.model": str(model)}), collection)
    record = trace.stage("rerank")
    assert record is not None and record.status == "ok", record.reason if record else ""
    fused = fused_of(trace)
    result = trace.output(RerankResult)
    assert result is not None and result is record.output and result.path == "cross_encoder"
    before, after = result.before, result.after
    assert result.candidates == after
    assert [c.chunk_id for c in before] == [c.chunk_id for c in fused[:4]]  # 2 x overfetch 2
    assert len(after) == 2 and all("rerank" in c.stage_scores for c in after)
    assert ranked_candidates(trace) == tuple(after)
    assert result.pairs == 4 and (result.pairs_per_second or 0) > 0
    assert record.settings["model"] == str(model)
    exported = Trace.from_dict(json.loads(trace.to_json()))  # every score survives the export
    assert [c.stage_scores for c in ranked_candidates(exported)] == [c.stage_scores for c in after]
    assert exported.output(RerankResult) == result


def test_without_a_model_the_stage_is_skipped_and_the_ranking_kept(collection: MemoryCollection) -> None:
    trace = run_query(QUERY, config(), collection)
    record = trace.stage("rerank")
    assert record is not None and record.status == "skipped"
    assert "rerank.model" in record.reason and any("rerank.model" in w for w in trace.warnings)
    fused = fused_of(trace)
    assert ranked_candidates(trace) == tuple(fused[:10])  # select's top_k, untouched by rerank
    result = trace.output(RerankResult)
    assert result is not None and result.status == "skipped" and result.pairs == 0
    assert result.candidates == result.before == tuple(fused[:4])  # the input, handed on


def test_llm_rerank_in_the_pipeline_and_its_failure(server: FakeOpenAI, collection: MemoryCollection) -> None:
    llm = config(**{"rerank.method": "llm"})
    get_embedder(llm.embedding).embed_query(QUERY)  # cached now: scripted replies go to chat only
    server.reset()
    server.script(reply("1: 1\n2: 2\n3: 8\n4: 3"))
    trace = run_query(QUERY, llm, collection)
    fused = fused_of(trace)
    assert ranked_candidates(trace)[0].chunk_id == fused[2].chunk_id
    result = trace.output(RerankResult)
    assert result is not None and result.path == "llm" and result.pairs == 4
    clear_candidate_cache()
    clear_score_cache()  # else the window's grades come from the score cache, with no call
    server.script(reply("no grades today"))
    failed = run_query(QUERY, llm, collection)
    assert failed.stage("rerank").status == "fallback"
    assert [c.chunk_id for c in ranked_candidates(failed)] == [c.chunk_id for c in fused[:2]]
