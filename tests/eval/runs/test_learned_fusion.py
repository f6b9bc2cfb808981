"""Learned fusion: fitting on cached heads, scoring through the pipeline's tail, its errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from eval.runs.candidates import QueryLists
from eval.runs.learned_fusion import fit_learned_fusion, training_set
from rag.chunking.base import Chunk
from rag.config import PipelineConfig, with_overrides
from rag.index.hits import Candidate, RankedList, SearchQuery
from rag.pipeline import PipelineState, run_tail
from rag.retrieve.fusion import fuse
from rag.retrieve.fusion.base import pool
from rag.retrieve.fusion.learned import (
    BIAS,
    LearnedModelError,
    candidate_features,
    load_model,
)
from rag.retrieve.stage import FuseOutput, SelectOutput
from rag.settings.retrieval import FilterConfig, FusionConfig


def lists_for(q: int) -> dict[str, RankedList]:
    """BM25 puts the relevant chunk z last; dense puts it first (with a little per-query jitter)."""
    def cand(cid: str, score: float) -> Candidate:
        text = f"passage {cid} of query {q}"
        return Candidate(Chunk(f"{cid}{q}", f"d-{cid}{q}", 0, len(text), text), score)

    jitter = (q % 3) * 0.01
    bm25 = ("x1", 10.0), ("x2", 9.0), ("x3", 8.0), ("x4", 7.0), ("z", 6.0)
    dense = ("z", 0.9 - jitter), ("x4", 0.8), ("x3", 0.7), ("x2", 0.6), ("x1", 0.5)
    return {"bm25": RankedList("bm25", tuple(cand(c, s) for c, s in bm25)),
            "dense": RankedList("dense", tuple(cand(c, s) for c, s in dense))}


def head(q: int) -> QueryLists:
    lists = MappingProxyType(lists_for(q))
    text = f"question number {q}"
    state = PipelineState(text, (SearchQuery(text),), FilterConfig(), lists)
    return QueryLists(f"q{q}", lists, 1.0, None, state)


HEADS = [head(q) for q in range(12)]
QRELS = {f"q{q}": {f"d-z{q}": 1} for q in range(12)}


def learned_config(path: Path) -> PipelineConfig:
    return with_overrides(PipelineConfig(), {"fusion.method": "learned", "fusion.model": str(path),
                                             "retrieval.top_k": 3})


def test_training_rows_label_the_relevant_document() -> None:
    data = training_set(HEADS[:2], QRELS)
    assert data.lists == ("bm25", "dense")
    assert data.x.shape == (10, 12)  # 5 chunks x 2 queries; 5 features per list + 2 shared
    assert data.y.tolist() == [0, 0, 0, 0, 1] * 2  # pool order: bm25's order first
    assert data.qids == ("q0",) * 5 + ("q1",) * 5


def test_fit_learns_to_trust_dense_and_ranks_held_out_queries_right(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    model = fit_learned_fusion(HEADS[:8], QRELS, path, depth=5)
    assert model.weights()["dense.norm"] > 0 > model.weights()["bm25.norm"]
    assert json.loads(path.read_text())["trained"]["queries"] == 8
    config = learned_config(path)
    for held_out in HEADS[8:]:
        tail = run_tail(held_out.seed(), config)
        top = tail.trace.output(SelectOutput)
        assert top is not None and top.candidates[0].chunk.doc_id == f"d-z{held_out.qid[1:]}"
    # RRF cannot tell the two lists apart here: z ties with x1 and loses the tie by id.
    rrf = fuse(lists_for(9), FusionConfig(method="rrf"))
    assert rrf[0].chunk_id == "x19"


def test_contributions_are_coef_times_standardized_features_and_sum_to_the_score(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.json"
    model = fit_learned_fusion(HEADS[:8], QRELS, path)
    lists = lists_for(10)
    fused = fuse(lists, FusionConfig(method="learned", model=str(path)), "question number 10")
    ids, x = candidate_features(pool(tuple(lists.values())), model.lists, "question number 10")
    for cand in fused:
        row = x[ids.index(cand.chunk_id)]
        expected = (row - np.array(model.mean)) / np.array(model.scale) * np.array(model.coef)
        for name, value in zip(model.features, expected, strict=True):
            assert math.isclose(cand.contributions[name], value, abs_tol=1e-12)
        assert cand.contributions[BIAS] == model.intercept
        assert math.isclose(sum(cand.contributions.values()), cand.score, abs_tol=1e-9)
    r = next(c for c in fused if c.chunk_id == "z10")
    assert r.contributions["dense.present"] == r.contributions["bm25.present"] == 0  # constant
    # the query's length enters through the interaction only: every candidate gets the same term
    assert len({c.contributions["query_words"] for c in fused}) == 1


def test_missing_or_absent_model_is_a_clear_error_in_the_trace(tmp_path: Path) -> None:
    config = learned_config(tmp_path / "nowhere.json")
    tail = run_tail(HEADS[0].seed(), config)
    assert tail.trace.error is not None and "does not exist" in tail.trace.error
    with pytest.raises(LearnedModelError, match=r"needs fusion\.model"):
        fuse(lists_for(0), FusionConfig(method="learned"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "logistic_regression", "lists": ["dense"]}))
    with pytest.raises(LearnedModelError, match="not a learned-fusion model"):
        load_model(bad)


def test_a_list_the_model_never_saw_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    fit_learned_fusion(HEADS[:8], QRELS, path)
    lists = {**lists_for(0), "dense#q2": RankedList("dense#q2", lists_for(0)["dense"].candidates)}
    with pytest.raises(LearnedModelError, match=r"cannot score dense#q2 — refit"):
        fuse(lists, FusionConfig(method="learned", model=str(path)))


def test_a_set_without_relevant_candidates_cannot_be_fitted() -> None:
    with pytest.raises(LearnedModelError, match="0 relevant of 40 candidates in 8 queries"):
        fit_learned_fusion(HEADS[:8], {f"q{q}": {"elsewhere": 1} for q in range(8)})


def test_the_fused_output_records_the_method(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    fit_learned_fusion(HEADS[:8], QRELS, path)
    tail = run_tail(HEADS[9].seed(), learned_config(path))
    fused = tail.trace.output(FuseOutput)
    assert fused is not None and fused.method == "learned" and len(fused.candidates) == 5
