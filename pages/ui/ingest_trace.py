"""Documents page: the last ingest's stage timeline (the Answer page's renderer) and a table of
what each stage did, read from the ingest's Trace (rag.ingestion.run)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from pages.ui.answer import timeline_figure
from rag.trace import Trace


def _tall(figure: go.Figure) -> go.Figure:
    """Five stages need more room per row than a query's fifteen, or plotly drops every other
    stage's name from the axis."""
    rows = len(figure.data)
    return figure.update_layout(height=90 + 30 * rows, margin={"b": 40})


def stage_frame(trace: Trace) -> pd.DataFrame:
    """One row per stage: status, milliseconds, and what it did (its output's own summary)."""
    rows = []
    for record in trace.records:
        describe = getattr(record.output, "describe", None)
        did = describe() if callable(describe) else ""
        rows.append({"stage": record.stage, "status": record.status,
                     "ms": round(record.wall_ms, 1),
                     "what it did": " · ".join(filter(None, [did, record.reason]))})
    return pd.DataFrame(rows, columns=["stage", "status", "ms", "what it did"])


def show_ingest_trace(trace: Trace, syncs: Sequence[Trace] = (), key: str = "docs_timeline") -> None:
    """The timeline of the ingest's stages, its table and warnings (skipped files), then each
    derived index it brought up to date, built by the same stages."""
    st.plotly_chart(_tall(timeline_figure(trace)), key=key)
    st.dataframe(stage_frame(trace), width="stretch", hide_index=True)
    for warning in trace.warnings:
        st.caption(f"⚠ {warning}")
    for i, synced in enumerate(syncs):
        with st.expander(f"Index for the session preset: {synced.collection} "
                         f"({synced.total_ms:.0f} ms)"):
            st.plotly_chart(_tall(timeline_figure(synced)), key=f"{key}_sync_{i}")
            st.dataframe(stage_frame(synced), width="stretch", hide_index=True)
