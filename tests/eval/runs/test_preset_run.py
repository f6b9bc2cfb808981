"""The run harness: chunk hits map to documents, failures are counted and kept, reports written."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from eval.data.shapes import BeirDataset
from eval.runs.preset_run import (
    QueryBlocked,
    deepest_cutoff,
    doc_ranking,
    perquery_path,
    search_all,
    summarize,
    write_report,
)
from rag.chunking.base import Chunk
from rag.index.hits import Candidate

CORPUS = {
    "d1": {"title": "", "text": "apt installs packages from repositories"},
    "d2": {"title": "", "text": "dpkg installs a single package file"},
    "d3": {"title": "", "text": "systemd starts services at boot"},
}
DATASET = BeirDataset(
    name="tiny",
    corpus=CORPUS,
    queries={"q1": "apt repositories", "q2": "systemd boot", "q3": "explode"},
    qrels={"q1": {"d1": 1}, "q2": {"d3": 2}, "q3": {"d2": 1}},
    content_hash="0" * 64,
)


def _candidate(doc_id: str, part: int, score: float) -> Candidate:
    text = CORPUS[doc_id]["text"]
    return Candidate(Chunk(f"{doc_id}#{part}", doc_id, 0, len(text), text), score)


def overlap_searcher(query: str) -> list[Candidate]:
    """Counts shared words; raises on 'explode' so failure handling is exercised."""
    if query == "explode":
        raise RuntimeError("index unavailable")
    words = set(query.split())
    scored = [_candidate(d, 0, float(len(words & set(doc["text"].split()))))
              for d, doc in CORPUS.items()]
    return sorted(scored, key=lambda c: c.score, reverse=True)


def test_doc_ranking_takes_best_chunk_and_limits_documents() -> None:
    hits = [_candidate("d1", 0, 0.9), _candidate("d2", 0, 0.8), _candidate("d1", 1, 0.95),
            _candidate("d3", 0, 0.1)]
    assert doc_ranking(hits) == {"d1": 0.95, "d2": 0.8, "d3": 0.1}
    assert doc_ranking(hits, limit=2) == {"d1": 0.95, "d2": 0.8}


def test_failed_query_is_counted_kept_and_run_goes_on(tmp_path: Path) -> None:
    outcomes = search_all(DATASET, overlap_searcher, "overlap")
    assert [o.qid for o in outcomes] == ["q1", "q2", "q3"]
    assert outcomes[2].error == "RuntimeError: index unavailable"
    run = summarize("overlap", DATASET, outcomes, ["ndcg@10", "recall@1"], n_resamples=200)
    assert run.summary.n_queries == 3 and run.summary.failed == 1
    assert run.summary.metrics == {"ndcg@10": 1.0, "recall@1": 1.0}  # the two that ran are right
    lo, hi = run.summary.ci95["ndcg@10"]
    assert lo <= 1.0 <= hi
    assert run.summary.latency_ms["p50"] <= run.summary.latency_ms["p95"]

    out = tmp_path / "report.json"
    side = write_report([run], DATASET.queries, out)
    report = json.loads(out.read_text())
    assert list(report) == ["runs"]
    assert set(report["runs"][0]) == {"preset", "n_queries", "failed", "blocked", "metrics",
                                      "ci95", "latency_ms"}
    assert side == perquery_path(out) and side.name == "report.perquery.jsonl"
    rows = [json.loads(line) for line in side.read_text().splitlines()]
    assert rows[2]["error"] == "RuntimeError: index unavailable"
    assert rows[2]["metrics"]["ndcg@10"] is None
    assert rows[0]["ranking"][0][0] == "d1"


def test_a_refused_query_scores_zero_is_not_failed_and_names_the_stage(tmp_path: Path) -> None:
    def guarded(query: str) -> list[Candidate]:
        if query == "explode":
            raise QueryBlocked("guard: prompt-injection (ignore_instructions)")
        return overlap_searcher(query)

    run = summarize("guarded", DATASET, search_all(DATASET, guarded), ["recall@1"],
                    n_resamples=200)
    assert run.summary.failed == 0 and run.summary.blocked == 1
    assert run.summary.metrics["recall@1"] == pytest.approx(2 / 3)  # the refusal counts as a miss
    out = tmp_path / "r.json"
    write_report([run], DATASET.queries, out)
    assert json.loads(out.read_text())["runs"][0]["blocked"] == 1
    rows = [json.loads(line) for line in perquery_path(out).read_text().splitlines()]
    assert [r["blocked_by"] for r in rows] == [
        None, None, "guard: prompt-injection (ignore_instructions)"]
    assert rows[2]["error"] is None and rows[2]["ranking"] == [] and rows[2]["metrics"]["recall@1"] == 0


def test_nan_scores_fail_the_query_and_the_report_stays_valid_json(tmp_path: Path) -> None:
    def nan_searcher(query: str) -> list[Candidate]:
        return [_candidate("d1", 0, math.nan)]

    run = summarize("nan", DATASET, search_all(DATASET, nan_searcher), ["mrr@10"])
    assert run.summary.failed == 3 and math.isnan(run.summary.metrics["mrr@10"])
    out = tmp_path / "r.json"
    write_report([run], DATASET.queries, out)
    summary = json.loads(out.read_text())["runs"][0]
    assert summary["metrics"]["mrr@10"] is None and summary["ci95"]["mrr@10"] == [None, None]
    rows = [json.loads(line) for line in perquery_path(out).read_text().splitlines()]
    assert all("not a finite number" in row["error"] for row in rows)


@pytest.mark.parametrize(("metrics", "depth"), [(["ndcg@10", "recall@100"], 100), (["map"], 1000)])
def test_deepest_cutoff(metrics: list[str], depth: int) -> None:
    assert deepest_cutoff(metrics) == depth
