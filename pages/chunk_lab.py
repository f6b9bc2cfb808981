"""Chunk Lab: one document, 2–4 chunking strategies side by side — boundaries, stats, sizes,
one chunk up close, and the chosen settings exported as a preset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from pages.ui import resources
from pages.ui.chunk_lab import (
    ChunkRun,
    export_preset,
    run_key,
    run_strategy,
    size_series,
    stats_frame,
)
from pages.ui.entry import through_app
from pages.ui.figures import size_histogram
from pages.ui.forms import field_specs
from pages.ui.html import (
    Mark,
    chunk_boundaries_html,
    chunk_labels,
    chunk_legend_html,
    highlight_spans,
)
from pages.ui.state import session_cache
from pages.ui.tables import chunk_frame
from pages.ui.widgets import settings_widgets
from rag.chunking import STRATEGIES, Chunk, strategy_settings
from rag.documents import Document

through_app()  # a page opened by its address still runs inside app.py

DEFAULT_STRATEGIES = ["recursive", "parent_child"]
SHOW_ALL = 2000  # shorter documents are always shown whole


def strategy_column(
    document: Document, name: str, values: Mapping[str, Any] | None = None
) -> ChunkRun | None:
    """Parameter widgets generated from the strategy's settings model (starting at `values`, the
    preset's, for the preset's own strategy), then its (cached) run."""
    settings_cls, _ = STRATEGIES.get(name)
    st.markdown(f"#### {name}")
    with st.expander("Parameters", expanded=True):
        raw = settings_widgets(settings_cls, f"chunk_{name}_", values)
        fixed = set(settings_cls.model_fields) - {s.name for s in field_specs(settings_cls)}
        if fixed:
            st.caption(f"Defaults kept for: {', '.join(sorted(fixed))} (edit them in preset YAML)")
    try:
        params = strategy_settings(name, raw).model_dump(mode="json", include=set(raw))
    except ValueError as exc:
        st.error(str(exc))
        return None
    cache = session_cache(st.session_state, "chunk_runs", max_entries=32)
    with st.spinner(f"Chunking with {name}…"):
        return cache.get_or_compute(run_key(document, name, params),
                                    lambda: run_strategy(document, name, params))


def chunk_details(run: ChunkRun, chunk: Chunk, labels: dict[str, str]) -> None:
    cols = st.columns(6)
    cols[0].metric("Chunk", labels[chunk.chunk_id])
    cols[1].metric("Level", chunk.level)
    cols[2].metric("Offsets", f"{chunk.start}–{chunk.end}")
    cols[3].metric("Characters", chunk.size)
    cols[4].metric("Tokens", run.tokens[chunk.chunk_id])
    cols[5].metric("Parent", labels.get(chunk.parent_id or "", "-"))
    st.html(highlight_spans(chunk.text, []))
    parent = next((c for c in run.chunks if c.chunk_id == chunk.parent_id), None)
    if parent is not None:
        with st.expander(f"Parent {labels[parent.chunk_id]}: {parent.start}–{parent.end}"):
            inside = Mark(chunk.start - parent.start, chunk.end - parent.start, "this chunk")
            st.html(highlight_spans(parent.text, [inside]))


st.title("Chunk Lab")
st.caption("Compare chunking strategies on one document. Every chunk keeps its character "
           "offsets, so what you see is exactly what gets indexed.")
documents = resources.session_documents()
if not documents:
    st.warning("No documents: ingest some on the Documents page.")
    st.stop()
st.caption("Documents: " + resources.documents_origin())
by_title = {f"{d.metadata.title} ({d.metadata.format})": d for d in documents}
longest = max(range(len(documents)), key=lambda i: len(documents[i].text))
document = by_title[st.selectbox("Document", list(by_title), index=longest, key="chunk_doc")]
config = resources.session_config()
own = config.chunking if config is not None else None  # the preset's chunking comes first
first = [own.strategy] if own is not None else []
names = st.multiselect("Strategies (2–4)", STRATEGIES.names(),
                       default=[*first, *(s for s in DEFAULT_STRATEGIES if s not in first)][:2],
                       max_selections=4, key="chunk_strategies")
if not names:
    st.info("Pick at least one strategy.")
    st.stop()

runs: list[ChunkRun] = []
for col, name in zip(st.columns(len(names)), names, strict=True):
    with col:
        run = strategy_column(document, name,
                              own.params if own is not None and name == own.strategy else None)
        if run is not None:
            runs.append(run)
if not runs:
    st.stop()

st.subheader("Stats")
st.dataframe(stats_frame(runs), width="stretch", hide_index=True)

st.subheader("Boundaries")
views = st.container()
st.subheader("Sizes")
unit = st.segmented_control("Size unit", ["characters", "tokens"], default="characters",
                            key="chunk_unit") or "characters"
st.plotly_chart(size_histogram(size_series(runs, unit), unit), width="stretch")

st.subheader("Inspect a chunk")
by_name = {run.strategy: run for run in runs}
pick = by_name[st.selectbox("Strategy", list(by_name), key="chunk_pick_strategy")]
labels = chunk_labels(pick.chunks)
options = {f"{labels[c.chunk_id]} · {c.start}–{c.end} ({c.size} chars)": c
           for c in sorted(pick.chunks, key=lambda c: (c.start, c.end))}
chosen = st.selectbox("Chunk", list(options), key=f"chunk_pick_{pick.strategy}")
chunk = options.get(chosen) if chosen else None
if chunk is not None:
    chunk_details(pick, chunk, labels)
with st.expander(f"All {len(pick.chunks)} chunks of {pick.strategy}"):
    st.dataframe(chunk_frame(pick.chunks, labels), width="stretch", hide_index=True)

with views:
    size = len(document.text)
    shown = size if size <= SHOW_ALL else st.slider(
        "Characters shown", SHOW_ALL, size, min(6000, size), step=500, key="chunk_shown")
    st.html(chunk_legend_html(any(c.parent_id for r in runs for c in r.chunks)))
    for col, run in zip(st.columns(len(runs)), runs, strict=True):
        col.markdown(f"**{run.strategy}** · {len(run.chunks)} chunks")
        selected = chunk.chunk_id if chunk is not None and run is pick else None
        with col:
            st.html(chunk_boundaries_html(document.text, run.chunks, selected, limit=shown))

st.subheader("Export")
export = by_name[st.selectbox("Strategy to export", list(by_name), key="chunk_export_strategy")]
if config is not None:
    exported = export_preset(config, export.strategy, export.params)
    st.download_button(
        "Download preset YAML", exported,
        file_name=f"{config.name}-{export.strategy}.yaml", mime="application/x-yaml",
        key="chunk_export", icon=":material/download:",
    )
    st.caption(f"Preset '{config.name}' with chunking set to {export.strategy} {dict(export.params)}")
    with st.expander("Preset YAML"):
        st.code(exported, language="yaml")
