"""What every stored run records, built the same way for `eval run`, sweeps, tuning, the Evaluate
page and notebooks: the figures, the config, and what it was scored on (eval.runs.identity)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.data.evalsets import EvalSet
from eval.data.qa import Span
from eval.data.shapes import BeirDataset
from eval.runs.evalset_runner import ScoredRun
from eval.runs.identity import TestSetIdentity, data_hash, evalset_identity
from eval.runs.store import save_run
from eval.runs.sweep import SweepResult, point_config
from eval.runs.trace_tap import by_qid
from rag.config import PipelineConfig
from rag.trace import Trace

if TYPE_CHECKING:
    from eval.tune.protocol import TuneResult


def dataset_json(dataset: BeirDataset, split: str | None = None) -> dict[str, Any]:
    return {"name": dataset.name, "hash": dataset.content_hash, "data_hash": data_hash(dataset),
            "source": dataset.source, "split": split, "documents": len(dataset.corpus),
            "queries": len(dataset.queries)}


def run_record(
    summary: Mapping[str, Any], dataset: BeirDataset, config: PipelineConfig | Mapping[str, Any],
    testset: TestSetIdentity, *, metrics: Sequence[str], mode: str = "retrieval",
    kind: str = "run", label: str | None = None, group: str | None = None,
    source: str = "cli", user: str | None = None, split: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The `info` eval.runs.store.save_run stores (it adds id, time, hashes, versions)."""
    config_json = (config.model_dump(mode="json") if isinstance(config, PipelineConfig)
                   else dict(config))
    return {
        "summary": dict(summary), "dataset": dataset_json(dataset, split),
        "testset": testset.as_json(), "collection": testset.collection,
        "config": config_json, "mode": mode, "metrics": list(metrics), "kind": kind,
        "label": label or summary.get("preset"), "group": group, "source": source,
        "user": user, "command": list(sys.argv), **(extra or {}),
    }


def with_labels(
    rows: Sequence[Mapping[str, Any]], qrels: Mapping[str, Mapping[str, int]],
    spans: Mapping[str, Sequence[Span]] | None = None,
) -> list[dict[str, Any]]:
    """Per-query rows with what counts as relevant for each (document ids, labelled spans), so
    a stored run's traces can mark relevant candidates without the set at hand."""
    spans = spans or {}
    return [{**row, "relevant_docs": sorted(d for d, g in qrels.get(row["qid"], {}).items() if g > 0),
             "relevant_spans": [[s.doc, s.start, s.end] for s in spans.get(row["qid"], ())]}
            for row in rows]


def store_scored(
    evalset: EvalSet, scored: ScoredRun, *, mode: str = "retrieval", source: str = "app",
    user: str | None = None, kind: str = "run", group: str | None = None,
    traces: Mapping[str, Trace] | None = None, root: Path | None = None,
) -> Path:
    """Store a run the Evaluate page or a notebook scored (`traces`: query text -> Trace)."""
    summary = scored.run.summary.as_json()
    info = run_record(summary, evalset.dataset, scored.config, evalset_identity(evalset),
                      metrics=list(scored.run.scores), mode=mode, kind=kind, label=scored.label,
                      group=group, source=source, user=user)
    kept = by_qid(traces or {}, evalset.dataset.queries)
    info["traces_kept"] = len(kept)
    rows = with_labels(scored.run.per_query_rows(evalset.dataset.queries), evalset.dataset.qrels,
                       evalset.spans)
    return save_run(info, rows, root, kept)


def store_sweep(
    result: SweepResult, base: PipelineConfig, dataset: BeirDataset, testset: TestSetIdentity,
    *, metrics: Sequence[str], source: str = "cli", user: str | None = None,
    root: Path | None = None,
) -> list[Path]:
    """Every point of a sweep as a run of its own, grouped under one sweep id."""
    group = f"sweep-{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{base.name}"
    stored = []
    for point in result.points:
        summary = point.run.summary.as_json()
        settings = " ".join(f"{k}={v}" for k, v in point.overrides.items())
        info = run_record(summary, dataset, point_config(base, point.overrides, dataset),
                          testset, metrics=metrics, kind="sweep", group=group, source=source,
                          label=f"{base.name} {settings}".strip(), user=user,
                          extra={"overrides": dict(point.overrides)})
        stored.append(save_run(info, point.run.per_query_rows(dataset.queries), root))
    return stored


def store_tune(
    result: TuneResult, report: Mapping[str, Any], dataset: BeirDataset,
    testset: TestSetIdentity, *, source: str = "cli", user: str | None = None,
    root: Path | None = None,
) -> Path:
    """A cross-validated tune as one run: every query's out-of-fold scores (each fold's queries
    scored by the point chosen on the other folds), the tuned config, the folds' choices."""
    oof = report["out_of_fold"]
    summary = {"preset": f"{result.preset}-tuned", "n_queries": oof["n_queries"],
               "failed": len(dataset.queries) - oof["n_queries"], "metrics": oof["metrics"],
               "ci95": oof["ci95"], "latency_ms": {"p50": None, "p95": None}}
    tune = {k: report[k] for k in ("objective", "protocol", "space", "folds", "optimism",
                                   "stability") if k in report}
    tune["in_sample"] = report.get("in_sample", {}).get("metrics")
    info = run_record(summary, dataset, result.final, testset, metrics=result.metrics,
                      kind="tune", label=f"{result.preset} tuned (out of fold)", source=source,
                      user=user, extra={"tune": tune})
    from eval.tune.report import per_query_rows

    rows = [{**row, "query": dataset.queries.get(row["qid"], "")}
            for row in per_query_rows(result)]
    return save_run(info, rows, root)
