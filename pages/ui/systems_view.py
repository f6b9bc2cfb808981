"""Tables and figures of the Systems page, built from SystemRuns (no retrieval or scoring here)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from pages.ui.tables import snippet
from rag.systems import FeatureMatrix, SystemRun

STATUS_COLORS = {"ok": "#2e7d32", "cache_hit": "#00838f", "fallback": "#f9a825",
                 "skipped": "#bdbdbd", "failed": "#c62828", "blocked": "#6a1b9a"}


def matrix_frame(matrix: FeatureMatrix) -> pd.DataFrame:
    return pd.DataFrame(matrix.rows())


def sources_frame(run: SystemRun) -> pd.DataFrame:
    return pd.DataFrame([{"source": s.n or "–", "title": s.title, "score": round(s.score, 4),
                          "text": snippet(s.text)} for s in run.sources])


def timeline_frame(runs: Sequence[SystemRun]) -> pd.DataFrame:
    return pd.DataFrame([row for run in runs for row in run.timeline()])


def timeline_figure(runs: Sequence[SystemRun]) -> go.Figure:
    """One horizontal bar per system, stacked by stage wall time, coloured by stage status."""
    fig = go.Figure()
    for run in runs:
        for record in run.trace.records:
            if record.status == "skipped":
                continue
            fig.add_bar(y=[run.preset], x=[max(record.wall_ms, 0.05)], orientation="h",
                        name=record.stage, marker_color=STATUS_COLORS.get(record.status, "#777"),
                        text=record.stage, textposition="inside", showlegend=False,
                        hovertemplate=f"{record.stage}: {record.wall_ms:.1f} ms ({record.status})"
                                      "<extra></extra>")
    fig.update_layout(barmode="stack", height=80 + 50 * len(runs), xaxis_title="ms",
                      margin={"l": 10, "r": 10, "t": 30, "b": 30}, title="Stage timeline")
    return fig
