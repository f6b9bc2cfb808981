"""PointScorer over the 20-query sample (hashing embedder): a single-retriever baseline reads its
list from the preset's heads instead of searching again, and scores what a search of that
retriever alone scores."""

from __future__ import annotations

import pytest

from eval.data.beir import load_beir
from eval.runs.sweep import rescore, scores_only
from eval.tune.scorer import PointScorer, single_retriever_point
from rag.config import load_preset
from rag.paths import PROJECT_ROOT

SAMPLE = PROJECT_ROOT / "datasets" / "beir_sample"


@pytest.mark.parametrize("retriever", ["bm25", "dense"])
def test_a_single_retriever_baseline_reuses_the_presets_lists(
    hashing_presets: None, retriever: str
) -> None:
    dataset = load_beir(SAMPLE)
    qids = sorted(dataset.queries)
    shared = PointScorer(dataset, load_preset("hybrid"), ["ndcg@10"], 50, use_cache=False,
                         note=lambda _: None)
    shared.scores({}, qids)  # the preset's heads: one search per query
    searched = shared.retrieval_s
    reused = shared.scores(single_retriever_point(retriever), qids)
    assert shared.retrieval_s == searched  # no second search

    alone = PointScorer(dataset, load_preset("hybrid"), ["ndcg@10"], 50, use_cache=False,
                        note=lambda _: None)
    fresh = alone.scores(single_retriever_point(retriever), qids)
    assert alone.retrieval_s > 0
    assert reused["ndcg@10"] == pytest.approx(fresh["ndcg@10"])
    assert len(set(reused["ndcg@10"].values())) > 1  # real, varied scores


@pytest.mark.slow
def test_scores_only_points_score_as_the_tail_does() -> None:
    """A tuning point that needs no stage between fuse and select is fused without the tail's
    stages (eval.runs.sweep.scores_only); on a fold's queries it scores what the tail scores."""
    dataset = load_beir(SAMPLE)
    scorer = PointScorer(dataset, load_preset("hybrid"), ["ndcg@10", "recall@10"], 50,
                         use_cache=False, note=lambda _: None)
    fold = sorted(dataset.queries)[::3]
    point = {"fusion.method": "weighted_rrf", "fusion.k": 2,
             "fusion.weights": {"bm25": 0.25, "dense": 0.75}}
    config = scorer.config(point)
    assert scores_only(config)
    fast = scorer.scores(point, fold)
    heads = scorer.heads(config)
    tail = rescore(heads.dataset, config, [heads.items[q] for q in fold], heads.collection,
                   ["ndcg@10", "recall@10"], 1, 0, "tail")  # no pooled lists: the runner's tail
    assert fast == {m: dict(s.values) for m, s in tail.scores.items()}
    assert set(fast["ndcg@10"]) == set(fold)
