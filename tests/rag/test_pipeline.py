"""The pipeline runner: stage order, trace records (with skip reasons), caching, failures."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fake_openai import FakeOpenAI
from pipeline_collection import MemoryCollection, make_chunks

from rag.config import PipelineConfig, load_preset, with_overrides
from rag.embed import get_embedder
from rag.pipeline import (
    STAGE_ORDER,
    PipelineState,
    StageEnv,
    StageRegistry,
    StageResult,
    StageSpec,
    fuse_and_filter,
    initial_state,
    ranked_candidates,
    retrieve_candidates,
    run_query,
    run_stages,
)
from rag.retrieve.search import clear_candidate_cache
from rag.trace import Trace

EMBEDDING = {"embedding.backend": "openai", "embedding.model": "hashed-bow-pipeline-tests"}


@pytest.fixture(scope="module")
def hashed_embeddings() -> Iterator[None]:
    """Embeddings from a local OpenAI-compatible server (deterministic hashed bags of words)."""
    with FakeOpenAI() as server:
        saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.base_url, "sk-test"
        yield
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def hybrid(**overrides: object) -> PipelineConfig:
    return with_overrides(load_preset("hybrid"), {**EMBEDDING, **overrides})


@pytest.fixture
def collection(hashed_embeddings: None) -> MemoryCollection:
    clear_candidate_cache()
    return MemoryCollection("mem", make_chunks(), get_embedder(hybrid().embedding))


def test_every_stage_is_recorded_in_order_and_skips_say_why(collection: MemoryCollection) -> None:
    trace = run_query("how does reciprocal rank fusion work", hybrid(), collection)
    assert [r.stage for r in trace.records] == list(STAGE_ORDER)
    status = {r.stage: r for r in trace.records}
    for name in ("retrieve", "fuse", "select"):
        assert status[name].status == "ok", status[name].reason
    assert status["postprocess"].status == "skipped"
    assert status["postprocess"].reason == "no post-retrieval step is enabled in postprocess"
    for record in trace.records:
        assert record.status != "skipped" or record.reason, f"{record.stage} skipped silently"
    assert trace.collection == "mem"
    assert trace.preset == "hybrid"


def test_fused_candidates_carry_every_score(collection: MemoryCollection) -> None:
    trace = run_query("reciprocal rank fusion", hybrid(**{"retrieval.top_k": 3}), collection)
    lists = trace.stage("retrieve").outputs["lists"]
    assert set(lists) == {"bm25", "dense"}
    fused = trace.stage("fuse").outputs["candidates"]
    top = fused[0]
    assert top.chunk_id == "rrf"
    assert set(top.hits) == {"bm25", "dense"}
    assert top.score == pytest.approx(sum(top.contributions.values()))
    assert top.score == pytest.approx(
        1 / (60 + top.hits["bm25"].rank) + 1 / (60 + top.hits["dense"].rank)
    )
    final = ranked_candidates(trace)
    assert len(final) == 3 and final == tuple(fused[:3])
    assert trace.stage("select").outputs["dropped"] == len(fused) - 3


def test_trace_json_round_trips(collection: MemoryCollection) -> None:
    trace = run_query("dense cosine similarity", hybrid(), collection)
    exported = json.loads(trace.to_json())
    assert exported["records"][STAGE_ORDER.index("fuse")]["outputs"]["method"] == "rrf"
    rebuilt = Trace.from_dict(exported)
    assert rebuilt.to_dict() == trace.to_dict()
    live = ranked_candidates(trace)
    assert [(c.chunk_id, c.score, dict(c.contributions)) for c in ranked_candidates(rebuilt)] == [
        (c.chunk_id, c.score, dict(c.contributions)) for c in live
    ]


def test_lists_are_cached_and_fusion_settings_do_not_search_again(
    collection: MemoryCollection,
) -> None:
    run_query("bm25 term frequency", hybrid(), collection)
    searches = len(collection.searches)
    again = run_query("bm25 term frequency", hybrid(**{"fusion.k": 5}), collection)
    assert len(collection.searches) == searches
    assert again.stage("retrieve").status == "cache_hit"
    run_query("bm25 term frequency", hybrid(**{"retrieval.depth": 50}), collection)
    assert len(collection.searches) == searches + 2  # depth changes the lists: both re-run


def test_fuse_and_filter_matches_the_pipeline(collection: MemoryCollection) -> None:
    config = hybrid(
        **{"fusion.method": "weighted_rrf", "fusion.weights": {"dense": 0.6, "bm25": 0.4}}
    )
    lists = retrieve_candidates("qdrant payload filtering", config, collection)
    result = fuse_and_filter(lists, config)
    trace = run_query("qdrant payload filtering", config, collection)
    assert result.top == ranked_candidates(trace)
    assert result.filtered == result.fused  # no post steps on


def test_threshold_fallback_is_a_warning_and_the_run_goes_on(collection: MemoryCollection) -> None:
    config = hybrid(**{"postprocess.threshold": 0.99, "postprocess.threshold_fallback_n": 2})
    trace = run_query("chunk offsets", config, collection)
    post = trace.stage("postprocess")
    assert post.status == "fallback"
    assert any("threshold" in w for w in trace.warnings)
    assert len(ranked_candidates(trace)) == 2
    assert trace.stage("select").status == "ok"


def test_dedupe_gets_vectors_from_the_embedder(collection: MemoryCollection) -> None:
    twin = replace(collection.chunks[0], chunk_id="rrf-copy")
    doubled = MemoryCollection(
        "twins", [*collection.chunks, twin], get_embedder(hybrid().embedding)
    )
    config = hybrid(**{"postprocess.dedupe_threshold": 0.95})
    trace = run_query("reciprocal rank fusion", config, doubled)
    step = {s.step: s for s in trace.stage("postprocess").outputs["steps"]}["dedupe"]
    assert step.status == "ok"
    dropped = set(step.removed)
    assert dropped & {"rrf", "rrf-copy"} and len(dropped & {"rrf", "rrf-copy"}) == 1


def test_fusion_none_over_two_lists_falls_back_to_the_first(collection: MemoryCollection) -> None:
    trace = run_query("vectors", hybrid(**{"fusion.method": "none"}), collection)
    fuse = trace.stage("fuse")
    assert fuse.status == "fallback"
    assert "passed 'bm25' through" in fuse.reason
    assert trace.stage("select").status == "ok"


def test_bm25_preset_never_embeds(hashed_embeddings: None) -> None:
    clear_candidate_cache()
    memory = MemoryCollection("sparse-only", make_chunks(), embedder=None)
    trace = run_query("document spans offsets", load_preset("bm25"), memory)
    assert [s[0] for s in memory.searches] == ["bm25"]
    assert ranked_candidates(trace)[0].chunk_id == "chunk"
    assert trace.stage("fuse").outputs["method"] == "none"


def test_user_becomes_the_owner_filter(collection: MemoryCollection) -> None:
    run_query("fusion", hybrid(), collection, user="alice")
    assert {filters.owner for _, _, filters in collection.searches} == {"alice"}


class Incompatible(MemoryCollection):
    def check_compatible(self, config: PipelineConfig) -> None:
        raise ValueError("collection 'mem' was built with other index settings")


def test_a_failing_stage_is_recorded_and_later_stages_are_skipped(hashed_embeddings: None) -> None:
    broken = Incompatible("mem", make_chunks(), embedder=None)
    trace = run_query("anything", load_preset("bm25"), broken)
    retrieve = trace.stage("retrieve")
    assert retrieve.status == "failed"
    assert "ValueError: collection 'mem' was built with other index settings" in retrieve.reason
    assert trace.stage("fuse").status == "skipped"
    assert trace.stage("fuse").reason.startswith("an earlier stage failed: retrieve")
    assert trace.status == "failed"
    with pytest.raises(ValueError, match="other index settings"):
        run_query("anything", load_preset("bm25"), broken, raise_errors=True)


def test_a_stage_can_halt_the_run_with_an_answer() -> None:
    def greet(state: PipelineState, env: StageEnv) -> StageResult:
        done = replace(state, answer="Hello!", halted="greeting answered without retrieval")
        return StageResult(done, outputs={"intent": "greeting"})

    stages = StageRegistry()
    stages.add("understand", StageSpec("understand", greet))
    config = load_preset("bm25")
    trace = Trace("hi", config.name)
    final = run_stages(initial_state("hi", config), StageEnv(config), trace, stages=stages)
    assert final.answer == "Hello!"
    records = {r.stage: r for r in trace.records}
    assert records["understand"].outputs == {"intent": "greeting"}
    assert records["retrieve"].status == "skipped"
    assert records["retrieve"].reason == "not reached: greeting answered without retrieval"
    assert records["guard"].status == "skipped" and records["guard"].reason


def test_stage_registry_rejects_unknown_and_mismatched_names() -> None:
    stages = StageRegistry()
    spec = StageSpec("rerank", lambda state, env: StageResult(state))
    with pytest.raises(ValueError, match="valid: " + ", ".join(STAGE_ORDER)):
        stages.add("rewrite", spec)
    with pytest.raises(ValueError, match="named 'rerank'"):
        stages.add("context", spec)
    stages.add("rerank", spec)
    with pytest.raises(ValueError, match="registered twice"):
        stages.add("rerank", spec)


def test_query_variants_from_understand_become_their_own_lists(
    collection: MemoryCollection,
) -> None:
    from rag.pipeline import STAGES
    from rag.retrieve.base import SearchQuery

    def expand(state: PipelineState, env: StageEnv) -> StageResult:
        variants = (
            *state.queries,
            SearchQuery("sparse vectors payload filtering", label="q2"),
            SearchQuery(
                "Qdrant stores vectors with payloads.", label="hyde", retrievers=("dense",)
            ),
        )
        return StageResult(replace(state, queries=variants), outputs={"queries": variants})

    stages = StageRegistry()
    stages.add("understand", StageSpec("understand", expand))
    for name in ("retrieve", "fuse", "select"):
        spec = STAGES.find(name)
        assert spec is not None
        stages.add(name, spec)
    config = hybrid(
        **{"fusion.method": "weighted_rrf", "fusion.weights": {"dense": 0.6, "bm25": 0.4}}
    )
    trace = Trace("where are payloads kept", config.name)
    run_stages(
        initial_state(trace.query, config), StageEnv(config, collection), trace, stages=stages
    )
    lists = trace.stage("retrieve").outputs["lists"]
    assert sorted(lists) == ["bm25", "bm25#q2", "dense", "dense#hyde", "dense#q2"]
    top = trace.stage("fuse").outputs["candidates"][0]
    assert set(top.contributions) == set(lists)
    hit = top.hits.get("dense#hyde")
    assert hit is not None and top.contributions["dense#hyde"] == pytest.approx(
        0.6 / (60 + hit.rank)
    )
