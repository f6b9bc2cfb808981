from dataclasses import replace
from types import MappingProxyType

from pages.ui.retrieval import (
    MAX_DEPTH,
    controls_from,
    fetch_config,
    fusion_config,
    labels,
    movement,
    query_terms,
    rank_map,
    threshold_line,
    top_movers,
)
from pages.ui.tables import breakdown_frame, ranked_frame
from rag.chunking.base import Chunk
from rag.config import PipelineConfig
from rag.index.hits import Candidate, RankedList
from rag.pipeline import initial_state, run_tail
from rag.retrieve.stage import FuseOutput, SelectOutput


def _cand(i: int, score: float) -> Candidate:
    chunk = Chunk(f"c{i}", "d", i * 10, i * 10 + 5, f"text {i}",
                  metadata=MappingProxyType({"source": f"/data/file{i % 2}.md"}))
    return Candidate(chunk, score)


def test_fetch_config_is_the_preset_fetching_deep() -> None:
    preset = PipelineConfig(name="p")
    fetched = fetch_config(preset, "mine")
    assert fetched.index.collection == "mine" and fetched.chunking == preset.chunking
    assert fetched.retrieval.retrievers == ["bm25", "dense"]
    assert fetched.retrieval.depth == MAX_DEPTH
    assert preset.chunking.strategy == "recursive"  # the preset itself is untouched


def test_fusion_config_applies_controls_and_clamps_top_k() -> None:
    base = fetch_config(PipelineConfig())
    controls = controls_from(base)
    changed = fusion_config(base, controls.__class__(
        "weighted_rrf", 7, {"bm25": 0.6, "dense": 0.4}, 0.3, 5, 20, 0.01, "score"))
    assert changed.fusion.method == "weighted_rrf" and changed.fusion.k == 7
    assert changed.fusion.weights == {"bm25": 0.6, "dense": 0.4}
    assert changed.retrieval.depth == 5 and changed.retrieval.top_k == 5
    assert changed.postprocess.threshold == 0.01


def test_controls_keep_the_presets_passthrough_and_give_the_preset_back() -> None:
    # The page starts from the preset (39cd8d6): a one-list preset keeps fusion "none" and the
    # untouched controls rebuild its config (the page no longer forces both lists and RRF).
    config = PipelineConfig.model_validate(
        {"retrieval": {"retrievers": ["bm25"]}, "fusion": {"method": "none"}})
    controls = controls_from(config)
    assert controls.method == "none" and set(controls.weights) == {"bm25"}
    assert fusion_config(config, controls) == config


def test_the_tails_depth_cut_keeps_ranks_and_leaves_the_head_whole() -> None:
    config = PipelineConfig.model_validate(
        {"retrieval": {"retrievers": ["bm25"]}, "fusion": {"method": "none"}})
    full = {"bm25": RankedList("bm25", tuple(_cand(i, 1 / (i + 1)) for i in range(5)))}
    head = replace(initial_state("q", config), lists=MappingProxyType(full))
    tail = run_tail(head, config, depth=2)
    fused, select = tail.trace.output(FuseOutput), tail.trace.output(SelectOutput)
    assert fused is not None and select is not None
    assert [c.chunk_id for c in fused.candidates] == ["c0", "c1"]
    assert [c.chunk_id for c in select.candidates] == ["c0", "c1"] and select.dropped == 0
    assert len(full["bm25"].candidates) == 5 and len(head.lists["bm25"].candidates) == 5
    assert rank_map(full["bm25"].candidates)["c3"] == 4


def test_labels_and_tables_name_the_source() -> None:
    cands = [_cand(1, 0.5), _cand(2, 0.25)]
    names = labels(cands)
    assert names == {"c1": "file1@10", "c2": "file0@20"}
    frame = ranked_frame(cands, names)
    assert list(frame["rank"]) == [1, 2] and list(frame["chunk"]) == ["file1@10", "file0@20"]


def test_breakdown_lists_each_retriever() -> None:
    from rag.index.hits import RetrieverHit

    cand = Candidate(
        _cand(1, 0).chunk, 0.03,
        hits=MappingProxyType({"bm25": RetrieverHit("bm25", 2, 7.5)}),
        contributions=MappingProxyType({"bm25": 0.016, "dense": 0.0}),
    )
    frame = breakdown_frame(cand)
    assert list(frame["retriever"]) == ["bm25", "dense"]
    assert frame.loc[0, "rank"] == 2 and frame.loc[0, "raw score"] == 7.5
    assert frame.loc[1, "contribution"] == 0.0


def test_query_terms_drop_stopwords_and_keep_words_whole() -> None:
    terms = query_terms("How are the syncing conflicts resolved?")
    assert terms == ["how", "syncing", "conflicts", "resolved"]


def test_labels_stay_unique_for_chunks_at_the_same_place() -> None:
    a, b = _cand(1, 0.5), _cand(3, 0.4)  # both file1.md, starts 10 and 30
    twin = Candidate(Chunk("x", "d", 10, 12, "te", metadata=a.chunk.metadata), 0.1)
    names = labels([a, b, twin, a])
    assert names == {"c1": "file1@10", "c3": "file1@30", "x": "file1@10#2"}


def test_movement_ranks_every_list_and_draws_the_union_of_top_k() -> None:
    a, b, c = _cand(1, 0.9), _cand(2, 0.8), _cand(3, 0.7)
    lists = {"bm25": (a, b, c), "dense": (c, b)}  # each list's candidates, as the page passes them
    ranks, shown = movement(lists, (b, a, c), top_k=1)
    assert ranks == {"bm25": {"c1": 1, "c2": 2, "c3": 3}, "dense": {"c3": 1, "c2": 2},
                     "fused": {"c2": 1, "c1": 2, "c3": 3}}
    assert shown == ["c1", "c3", "c2"]


def test_threshold_is_drawn_only_on_the_fused_axis() -> None:
    base = controls_from(PipelineConfig())
    on_score = base.__class__(**{**base.__dict__, "threshold": 0.3})
    on_dense = base.__class__(**{**base.__dict__, "threshold": 0.3, "threshold_on": "dense"})
    assert threshold_line(on_score) == 0.3
    assert threshold_line(on_dense) is None


def test_top_movers_are_the_chunks_whose_rank_changed_most() -> None:
    ranks = {"bm25": {"a": 1, "b": 2, "c": 3, "d": 30}, "dense": {"a": 1, "c": 2, "d": 3},
             "fused": {"a": 1, "c": 2, "d": 3, "b": 4}}
    # d: 30 (floor 11) -> 3 moves 8; b: absent from dense (11) -> 4 moves 7; c moves 1; a 0
    assert top_movers(ranks, ["a", "b", "c", "d"], cap=10, n=2) == ["d", "b"]
    assert top_movers(ranks, ["a", "b", "c", "d"], cap=10) == ["d", "b", "c", "a"]
