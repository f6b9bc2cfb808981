"""What the Rerank page draws from a RerankResult: ranked tables, rank movement, score histogram.

Pure functions of the result (no scoring here): the page passes them to st.dataframe and
st.plotly_chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from rag.index import Candidate
from rag.rerank import RerankResult

_SCORES = ("rerank", "rerank_raw", "hybrid", "prior_norm", "passed_threshold")


def _snippet(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def ranked_table(candidates: Sequence[Candidate], labels: Mapping[str, str]) -> pd.DataFrame:
    """Rank, chunk, list score, every rerank score the candidate carries, and a snippet."""
    rows = []
    for rank, c in enumerate(candidates, start=1):
        row: dict[str, object] = {"rank": rank, "chunk": labels.get(c.chunk_id, c.chunk_id),
                                  "score": c.score}
        row.update({key: c.stage_scores[key] for key in _SCORES if key in c.stage_scores})
        row["text"] = _snippet(c.chunk.text)
        rows.append(row)
    return pd.DataFrame(rows)


def rank_maps(result: RerankResult) -> dict[str, dict[str, int]]:
    """{"before": chunk_id -> rank, "after": chunk_id -> rank} for the slope chart; cut
    candidates get no "after" rank (they fall off the chart's floor)."""
    return {
        "before": {c.chunk_id: i for i, c in enumerate(result.before, start=1)},
        "after": {c.chunk_id: i for i, c in enumerate(result.after, start=1)},
    }


def score_histogram(result: RerankResult) -> go.Figure:
    """Normalized rerank scores of the window, kept vs cut, with the threshold as a line."""
    fig = go.Figure()
    for name, group, color in (("kept", result.after, "#16a34a"), ("cut", result.dropped, "#9ca3af")):
        values = [c.score for c in group]
        if values:
            fig.add_trace(go.Histogram(x=values, name=name, marker_color=color, opacity=0.75,
                                       nbinsx=20))
    if result.threshold is not None:
        fig.add_vline(x=result.threshold, line_dash="dash", line_color="#dc2626",
                      annotation_text=f"threshold {result.threshold:g}")
    fig.update_layout(barmode="stack", height=320, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      title=f"Scores after rerank ({result.normalization}, policy {result.policy})",
                      xaxis_title="score", yaxis_title="candidates")
    return fig


def movement_table(result: RerankResult, labels: Mapping[str, str]) -> pd.DataFrame:
    """Per window candidate: rank before, rank after (blank when cut), and the change."""
    maps = rank_maps(result)
    rows = []
    for chunk_id, before in maps["before"].items():
        after = maps["after"].get(chunk_id)
        rows.append({"chunk": labels.get(chunk_id, chunk_id), "before": before, "after": after,
                     "moved": None if after is None else before - after})
    return pd.DataFrame(rows, columns=["chunk", "before", "after", "moved"])
