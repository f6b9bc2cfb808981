"""Helpers: stored runs made directly with eval.runs.store.save_run (no pipeline), for tests of
listing, comparing and the Runs page."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval.runs.store import save_run


def make_run(
    root: Path, label: str, values: Mapping[str, float | None], *, config: Mapping[str, Any] | None = None,
    data_hash: str = "data0000", testset: str = "set-a", testset_hash: str = "tset0000",
    collection: str | None = None, metric: str = "ndcg@10", user: str = "ada",
    judgments: str | None = None,
) -> Path:
    """A stored run whose per-query `metric` values are `values` (None: the query failed)."""
    finite = [v for v in values.values() if v is not None]
    mean = sum(finite) / len(finite) if finite else None
    info = {
        "summary": {"preset": label, "n_queries": len(values),
                    "failed": sum(v is None for v in values.values()),
                    "metrics": {metric: mean}, "ci95": {metric: [mean, mean]},
                    "latency_ms": {"p50": 1.0, "p95": 2.0}},
        "dataset": {"name": collection or "tiny", "hash": data_hash + "f" * 8,
                    "data_hash": data_hash},
        "testset": {"name": testset, "hash": testset_hash, "labels": "human-judged",
                    "judgments": judgments, "collection": collection},
        "collection": collection,
        "config": dict(config or {"name": label, "fusion": {"k": 60}}),
        "label": label, "user": user, "mode": "retrieval",
    }
    rows = [{"qid": q, "query": f"question {q}", "metrics": {metric: v}, "latency_ms": 1.0,
             "error": None if v is not None else "RuntimeError: boom", "ranking": []}
            for q, v in values.items()]
    return save_run(info, rows, root)
