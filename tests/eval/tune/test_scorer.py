"""PointScorer over the 20-query sample (hashing embedder): a single-retriever baseline reads its
list from the preset's heads instead of searching again, and scores what a search of that
retriever alone scores."""

from __future__ import annotations

import pytest

from eval.data.beir import load_beir
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
