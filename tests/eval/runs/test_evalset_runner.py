"""Scoring configurations on evaluation sets: span sets judged per chunk, progress, sweeps, and
ceiling diagnostics over real (small) collections."""

from __future__ import annotations

import pytest

from eval.data.evalsets import load_eval_set
from eval.diagnostics.ceiling_report import ANY, diagnose
from eval.runs.beir_index import beir_collection
from eval.runs.evalset_runner import score_config, sweep_grid
from eval.runs.sweep import parse_grid
from rag.config import load_preset
from rag.paths import PROJECT_ROOT

DATASETS = PROJECT_ROOT / "datasets"


def test_a_span_set_sweep_scores_chunks_as_a_plain_run_does(hashing_presets: None) -> None:
    # bm25 ranks: the chunks' vectors (hashing backend, no model) are never searched
    qa = load_eval_set(DATASETS / "qa_samples.jsonl").limit(6)
    sweep = sweep_grid(qa, load_preset("bm25"), parse_grid(["retrieval.depth=5,100"]),
                       n_resamples=50)
    shallow, deep = sweep.runs
    chunk_ids = {c.chunk_id for c in beir_collection(qa.dataset, deep.config).chunks()}
    returned = {unit for o in deep.run.outcomes for unit in o.ranking}
    assert returned and returned <= chunk_ids  # ranked units are chunks, not documents
    assert max(len(o.ranking) for o in shallow.run.outcomes) <= 5
    plain = score_config(qa, load_preset("bm25"), n_resamples=50)
    assert deep.run.summary.metrics == pytest.approx(plain.run.summary.metrics)
    assert [o.ranking for o in deep.run.outcomes] == [o.ranking for o in plain.run.outcomes]


def test_a_span_set_is_scored_chunk_by_chunk_with_progress(hashing_presets: None) -> None:
    # indexes the eight sample documents; bm25 ranks, so the hashing backend embeds the chunks
    qa = load_eval_set(DATASETS / "qa_samples.jsonl").limit(4)
    seen: list[tuple[int, int, str]] = []
    scored = score_config(qa, load_preset("bm25"), progress=lambda *step: seen.append(step))
    assert seen == [(i, 4, "bm25") for i in range(1, 5)]
    chunk_ids = {c.chunk_id for c in beir_collection(qa.dataset, scored.config).chunks()}
    returned = {unit for o in scored.run.outcomes for unit in o.ranking}
    assert returned and returned <= chunk_ids  # ranked units are chunks, not documents
    assert scored.run.summary.failed == 0
    assert 0 < scored.run.summary.metrics["mrr@10"] <= 1

    report = diagnose(qa, scored, depths=(10, 50))
    assert set(report.recall) == {ANY, "bm25"}
    assert report.ceiling.oracle_ndcg >= report.ceiling.actual_ndcg
    assert report.ceiling.actual_ndcg == pytest.approx(scored.run.summary.metrics["ndcg@10"])


@pytest.mark.slow  # indexes the BEIR sample once (shared with the page and notebook tests)
def test_a_fusion_sweep_keeps_each_points_config_for_drill_down() -> None:
    beir = load_eval_set(DATASETS / "beir_sample")
    sweep = sweep_grid(beir, load_preset("hybrid"), parse_grid(["fusion.k=1,60"]),
                       n_resamples=100)
    assert [r.config.fusion.k for r in sweep.runs] == [1, 60]
    assert [r.label for r in sweep.runs] == ["hybrid fusion.k=1", "hybrid fusion.k=60"]
    plain = score_config(beir, load_preset("hybrid"), n_resamples=100)
    # re-fusing cached lists at k=60 scores exactly what a plain hybrid run scores
    assert sweep.runs[1].run.summary.metrics == pytest.approx(plain.run.summary.metrics)
