"""pandas tables of the Evaluate page: results with CIs, per-query deltas, and a trace's stages
and candidates for the drill-down."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from eval.runs.evalset_runner import ScoredRun
from eval.scoring.compare import QueryDelta
from eval.scoring.judged import UNJUDGED_WARNING, JudgedScores
from pages.ui.tables import snippet
from rag.chunking import Chunk
from rag.index import Candidate
from rag.retrieve import Retrieved
from rag.trace import Trace


def _ci(low: float, high: float) -> str:
    return "n/a" if not (math.isfinite(low) and math.isfinite(high)) else f"[{low:.3f}, {high:.3f}]"


def results_frame(runs: Sequence[ScoredRun]) -> pd.DataFrame:
    """One row per run: queries, failures, each metric with its 95% CI, latency percentiles."""
    rows = []
    for scored in runs:
        s = scored.run.summary
        row: dict[str, object] = {"run": scored.label, "queries": s.n_queries, "failed": s.failed}
        for key, value in s.metrics.items():
            row[key] = value
            row[f"{key} 95% CI"] = _ci(*s.ci95[key])
        row["p50 ms"], row["p95 ms"] = s.latency_ms["p50"], s.latency_ms["p95"]
        rows.append(row)
    return pd.DataFrame(rows)


def judged_frame(figures: Sequence[JudgedScores]) -> pd.DataFrame:
    """One row per run: unjudged share of its top k, nDCG (a lower bound), condensed nDCG, bpref."""
    return pd.DataFrame([{
        "run": f.system, "queries": f.queries, f"unjudged@{f.depth}": f.unjudged,
        f"ndcg@{f.depth} (lower bound)": f.ndcg, f"condensed ndcg@{f.depth}": f.condensed_ndcg,
        "bpref": f.bpref, f"over {UNJUDGED_WARNING:.0%} unjudged": f.lower_bound}
        for f in figures])


def deltas_frame(deltas: Sequence[QueryDelta], name_a: str, name_b: str) -> pd.DataFrame:
    """One row per query: A's and B's value (columns "A · name", so A may equal B), the change."""
    a, b = f"A · {name_a}", f"B · {name_b}"
    return pd.DataFrame(
        [{"query id": d.qid, "query": snippet(d.query, 80), a: d.a, b: d.b,
          "change": d.delta,
          "outcome": {"win": f"{name_b} better", "loss": f"{name_a} better"}.get(d.outcome, "tied")}
         for d in deltas],
        columns=["query id", "query", a, b, "change", "outcome"],
    )


def stage_candidates(trace: Trace, stage: str) -> tuple[Candidate, ...]:
    """The candidates a stage output, or, for retrieve, its lists merged in list order."""
    record = trace.stage(stage)
    output = record.output if record is not None else None
    if isinstance(output, Retrieved):
        return tuple(c for ranked in output.lists.values() for c in ranked.candidates)
    candidates = getattr(output, "candidates", None)  # the stages that rank (HasCandidates)
    return tuple(candidates) if isinstance(candidates, tuple) else ()


def stage_frame(trace: Trace) -> pd.DataFrame:
    """One row per stage: status, time, how many candidates it output, and why it was skipped."""
    rows = []
    for record in trace.records:
        rows.append({
            "stage": record.stage, "status": record.status, "ms": round(record.wall_ms, 2),
            "candidates": len(stage_candidates(trace, record.stage)) or None,
            "note": "; ".join(filter(None, (record.reason, *record.warnings))),
        })
    return pd.DataFrame(rows, columns=["stage", "status", "ms", "candidates", "note"])


def candidates_frame(
    candidates: Sequence[Candidate], relevant: Callable[[Chunk], bool]
) -> pd.DataFrame:
    """Rank, score, relevance label, each retriever's rank, every later stage score, a snippet."""
    rows = []
    for rank, c in enumerate(candidates, start=1):
        row: dict[str, object] = {
            "rank": rank, "score": c.score, "relevant": relevant(c.chunk),
            "document": c.chunk.doc_id, "chars": f"{c.chunk.start}–{c.chunk.end}",
        }
        row.update({f"{name} rank": hit.rank for name, hit in c.hits.items()})
        row.update(c.stage_scores)
        row["text"] = snippet(c.chunk.text, 100)
        rows.append(row)
    return pd.DataFrame(rows)
