"""The pipeline runner: stage order, trace records (with skip reasons), caching, failures."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from types import MappingProxyType

import pytest
from fake_openai import FakeOpenAI
from pipeline_collection import MemoryCollection, make_chunks

from rag.config import PipelineConfig, load_preset, with_overrides
from rag.embed import get_embedder
from rag.index.hits import RankedList, SearchQuery
from rag.pipeline import (
    STAGE_ORDER,
    PipelineState,
    StageEnv,
    StageRegistry,
    StageResult,
    StageSpec,
    initial_state,
    ranked_candidates,
    run_head,
    run_query,
    run_slice,
    run_stages,
    run_tail,
    stage_slice,
)
from rag.retrieve.search import Retrieved, clear_candidate_cache
from rag.retrieve.stage import FuseOutput, PostprocessOutput, SelectOutput
from rag.settings.retrieval import FilterConfig
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
    retrieved = trace.output(Retrieved)
    assert retrieved is not None and trace.output(Retrieved, "retrieve") is retrieved
    lists = retrieved.lists
    assert set(lists) == {"bm25", "dense"}
    fuse = trace.output(FuseOutput)
    assert fuse is not None
    fused = fuse.candidates
    top = fused[0]
    assert top.chunk_id == "rrf"
    assert set(top.hits) == {"bm25", "dense"}
    assert top.score == pytest.approx(sum(top.contributions.values()))
    assert top.score == pytest.approx(
        1 / (60 + top.hits["bm25"].rank) + 1 / (60 + top.hits["dense"].rank)
    )
    final = ranked_candidates(trace)
    assert len(final) == 3 and final == tuple(fused[:3])
    select = trace.output(SelectOutput)
    assert select is not None and select.dropped == len(fused) - 3
    assert select.top_k == 3 and select.candidates == final


def test_trace_json_round_trips(collection: MemoryCollection) -> None:
    trace = run_query("dense cosine similarity", hybrid(), collection)
    exported = json.loads(trace.to_json())
    assert exported["records"][STAGE_ORDER.index("fuse")]["output"]["method"] == "rrf"
    rebuilt = Trace.from_dict(exported)
    assert rebuilt.to_dict() == trace.to_dict()
    for kind in (Retrieved, FuseOutput, SelectOutput):
        loaded = rebuilt.output(kind)
        assert isinstance(loaded, kind) and loaded == trace.output(kind)
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


def weighted(**overrides: object) -> PipelineConfig:
    return hybrid(
        **{"fusion.method": "weighted_rrf", "fusion.weights": {"dense": 0.6, "bm25": 0.4}},
        **overrides,
    )


def test_run_tail_over_run_heads_state_matches_run_query(collection: MemoryCollection) -> None:
    config = weighted()
    head = run_head("qdrant payload filtering", config, collection)
    assert [r.stage for r in head.trace.records] == list(stage_slice(last="retrieve"))
    assert set(head.state.lists) == {"bm25", "dense"}
    tail = run_tail(head.state, config, collection)
    assert [r.stage for r in tail.trace.records] == list(stage_slice("fuse", "select"))
    trace = run_query("qdrant payload filtering", config, collection)
    assert tail.trace.output(SelectOutput) == trace.output(SelectOutput)
    assert tail.state.candidates == ranked_candidates(trace) == ranked_candidates(tail.trace)
    assert tail.trace.output(FuseOutput) == trace.output(FuseOutput)
    assert tail.trace.stage("postprocess").status == "skipped"  # no post steps on: fused = kept


def test_run_tail_depth_cuts_the_lists_like_a_shallower_search(
    collection: MemoryCollection,
) -> None:
    query = "ranks documents and passages vectors"
    config = weighted(**{"retrieval.top_k": 2})
    head = run_head(query, config, collection)
    assert all(len(r.candidates) > 2 for r in head.state.lists.values())
    cut = run_tail(head.state, config, collection, depth=2)
    shallow = run_query(query, weighted(**{"retrieval.depth": 2, "retrieval.top_k": 2}), collection)
    assert len(collection.searches) == 4  # the shallow run searched: its lists are not the head's
    assert cut.trace.output(FuseOutput) == shallow.output(FuseOutput)
    assert cut.trace.output(SelectOutput) == shallow.output(SelectOutput)
    full = run_tail(head.state, config, collection).trace.output(FuseOutput)
    short = cut.trace.output(FuseOutput)
    assert full is not None and short is not None and len(short.candidates) < len(full.candidates)
    assert all(len(r.candidates) > 2 for r in head.state.lists.values())  # the head is not cut


def test_run_stages_runs_only_the_slice_and_rejects_unknown_or_reversed_names(
    collection: MemoryCollection,
) -> None:
    config = hybrid()
    head = run_head("bm25 term frequency", config, collection)
    trace = Trace(head.state.query, config.name)
    state = run_stages(head.state, StageEnv(config, collection), trace, first="fuse", last="fuse")
    assert [r.stage for r in trace.records] == ["fuse"]
    assert state.candidates == trace.output(FuseOutput).candidates  # type: ignore[union-attr]
    assert state.artifact("fuse", FuseOutput) == trace.output(FuseOutput)
    assert state.artifact("select", SelectOutput) is None
    assert stage_slice("postprocess", "select") == ("postprocess", "authority", "rerank", "select")
    assert stage_slice() == STAGE_ORDER
    for first, last in (("fusion", "select"), ("fuse", "answer")):
        with pytest.raises(ValueError, match="valid: " + ", ".join(STAGE_ORDER)):
            run_stages(head.state, StageEnv(config, collection), Trace("q", "p"),
                       first=first, last=last)
    with pytest.raises(ValueError, match="'select' comes after 'fuse'"):
        run_slice(head.state, config, collection, first="select", last="fuse")


def test_a_seeded_states_overrides_apply_to_the_stages_it_runs(
    collection: MemoryCollection,
) -> None:
    config = hybrid()
    head = run_head("reciprocal rank fusion", config, collection)
    seeded = replace(head.state, overrides=MappingProxyType({"retrieval.top_k": 2}))
    tail = run_tail(seeded, config, collection)
    select = tail.trace.output(SelectOutput)
    assert select is not None and select.top_k == 2 and len(select.candidates) == 2
    assert tail.trace.stage("select").settings["top_k"] == 2  # type: ignore[union-attr]
    plain = run_tail(head.state, config, collection).trace.output(SelectOutput)
    assert plain is not None and plain.top_k == config.retrieval.top_k
    assert select.candidates == plain.candidates[:2]


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
    post = trace.output(PostprocessOutput)
    assert post is not None
    step = {s.step: s for s in post.steps}["dedupe"]
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
    fuse = trace.output(FuseOutput)
    assert fuse is not None and fuse.method == "none"


def test_user_becomes_the_owner_filter(collection: MemoryCollection) -> None:
    run_query("fusion", hybrid(), collection, user="alice")
    assert {filters.owner for _, _, filters in collection.searches} == {"alice"}


class Incompatible(MemoryCollection):
    def sparse_search(self, query: str, depth: int, filters: FilterConfig) -> RankedList:
        raise ValueError("collection 'mem' was built with other index settings")


def test_a_failing_stage_is_recorded_and_later_stages_are_skipped(hashed_embeddings: None) -> None:
    broken = Incompatible("mem", make_chunks(), embedder=None)
    trace = run_query("anything", load_preset("bm25"), broken)
    retrieve = trace.stage("retrieve")
    assert retrieve.status == "failed"
    assert "ValueError: collection 'mem' was built with other index settings" in retrieve.reason
    assert [r.stage for r in trace.records if r.status == "failed"] == ["retrieve"]
    later = trace.records[STAGE_ORDER.index("retrieve") + 1 :]
    assert [r.stage for r in later] == list(STAGE_ORDER[STAGE_ORDER.index("retrieve") + 1 :])
    for record in later:
        assert record.status == "skipped" and record.reason == "retrieve failed", record
        assert record.output is None
    assert trace.output(Retrieved) is None and trace.output(FuseOutput) is None
    assert trace.status == "failed"
    with pytest.raises(ValueError, match="other index settings"):
        run_query("anything", load_preset("bm25"), broken, raise_errors=True)


@dataclass(frozen=True)
class Greeting:
    intent: str


@dataclass(frozen=True)
class Variants:
    queries: tuple[SearchQuery, ...]


def test_a_stage_can_halt_the_run_with_an_answer() -> None:
    def greet(state: PipelineState, env: StageEnv) -> StageResult:
        done = replace(state, answer="Hello!", halted="greeting answered without retrieval")
        return StageResult(done, output=Greeting("greeting"))

    stages = StageRegistry()
    stages.add("understand", StageSpec("understand", greet, Greeting))
    config = load_preset("bm25")
    trace = Trace("hi", config.name)
    final = run_stages(initial_state("hi", config), StageEnv(config), trace, stages=stages)
    assert final.answer == "Hello!"
    records = {r.stage: r for r in trace.records}
    assert records["understand"].output == Greeting("greeting")
    assert trace.output(Greeting) == Greeting("greeting") == final.artifact("understand", Greeting)
    assert records["retrieve"].status == "skipped"
    assert records["retrieve"].reason == "not reached: greeting answered without retrieval"
    assert records["guard"].status == "skipped" and records["guard"].reason


def test_an_output_of_another_class_than_the_spec_declares_fails_the_stage() -> None:
    def wrong(state: PipelineState, env: StageEnv) -> StageResult:
        return StageResult(state, output=Greeting("greeting"))

    stages = StageRegistry()
    stages.add("understand", StageSpec("understand", wrong, Variants))
    config = load_preset("bm25")
    trace = Trace("hi", config.name)
    run_stages(initial_state("hi", config), StageEnv(config), trace, stages=stages)
    understand = trace.stage("understand")
    assert understand is not None and understand.status == "failed" and understand.output is None
    assert "returned a Greeting, its spec declares Variants" in understand.reason
    with pytest.raises(TypeError, match="its spec declares Variants"):
        run_stages(initial_state("hi", config), StageEnv(config), Trace("hi", config.name),
                   stages=stages, raise_errors=True)


def test_stage_registry_rejects_unknown_and_mismatched_names() -> None:
    stages = StageRegistry()
    spec = StageSpec("rerank", lambda state, env: StageResult(state), Greeting)
    with pytest.raises(ValueError, match="valid: " + ", ".join(STAGE_ORDER)):
        stages.add("rewrite", spec)
    with pytest.raises(ValueError, match="named 'rerank'"):
        stages.add("context", spec)
    stages.add("rerank", spec)
    with pytest.raises(ValueError, match="registered twice"):
        stages.add("rerank", spec)


def test_a_missing_or_silent_stage_module_fails_loudly() -> None:
    from rag.stages import STAGES, StageModuleError

    assert all(STAGES.find(name) is not None for name in STAGE_ORDER)  # every module registers
    config = load_preset("bm25")
    for module, error in (("rag.no_such_stage_module", ModuleNotFoundError),
                          ("rag.text", StageModuleError)):  # imports, registers nothing
        stages = StageRegistry({"rerank": module})
        with pytest.raises(error, match="no_such_stage_module" if error is ModuleNotFoundError
                           else "rag.text was imported but registers no stage 'rerank'"):
            stages.find("rerank")
        trace = Trace("hi", config.name)
        run_stages(initial_state("hi", config), StageEnv(config), trace, stages=stages)
        rerank = trace.stage("rerank")
        assert rerank is not None and rerank.status == "failed"
        assert rerank.reason.startswith("cannot load the stage: ")
        later = trace.stage("abstain")
        assert later is not None and later.reason == "rerank failed"
        with pytest.raises(error):
            run_stages(initial_state("hi", config), StageEnv(config), Trace("hi", config.name),
                       stages=stages, raise_errors=True)


def test_query_variants_from_understand_become_their_own_lists(
    collection: MemoryCollection,
) -> None:
    from rag.pipeline import STAGES

    def expand(state: PipelineState, env: StageEnv) -> StageResult:
        variants = (
            *state.queries,
            SearchQuery("sparse vectors payload filtering", label="q2"),
            SearchQuery(
                "Qdrant stores vectors with payloads.", label="hyde", retrievers=("dense",)
            ),
        )
        return StageResult(replace(state, queries=variants), output=Variants(variants))

    stages = StageRegistry()
    stages.add("understand", StageSpec("understand", expand, Variants))
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
    variants = trace.output(Variants)
    assert variants is not None and [q.label for q in variants.queries] == ["", "q2", "hyde"]
    retrieved, fuse = trace.output(Retrieved), trace.output(FuseOutput)
    assert retrieved is not None and fuse is not None
    lists = retrieved.lists
    assert sorted(lists) == ["bm25", "bm25#q2", "dense", "dense#hyde", "dense#q2"]
    top = fuse.candidates[0]
    assert set(top.contributions) == set(lists)
    hit = top.hits.get("dense#hyde")
    assert hit is not None and top.contributions["dense#hyde"] == pytest.approx(
        0.6 / (60 + hit.rank)
    )
