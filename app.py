"""RAG Workbench entry point: pages grouped by pipeline stage, and the shared sidebar.

`streamlit run app.py`. The page list is the table in pages/ui/nav.py; the sidebar sets the
session's collection ("app_collection") and preset ("app_preset") that every page reads.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages.ui import resources
from pages.ui.llm_status import llm_status
from pages.ui.nav import PageEntry, available_pages
from pages.ui.state import (
    APP_COLLECTION,
    APP_NEXT_COLLECTION,
    APP_PRESET,
    APP_USER,
    current_collection,
    current_preset,
)
from rag.config import PresetError, available_presets, load_preset

ROOT = Path(__file__).resolve().parent

st.set_page_config(page_title="RAG Workbench", page_icon=":material/manage_search:", layout="wide")

STAGES = available_pages(ROOT)
PAGES = {entry.file: st.Page(entry.file, title=entry.title, icon=entry.icon)
         for entries in STAGES.values() for entry in entries}


def overview() -> None:
    """Home: what the workbench is, the stages in pipeline order, and the current selection."""
    st.title("RAG Workbench")
    st.markdown(
        "Look inside every stage of a retrieval-augmented generation pipeline: parsing, "
        "chunking, BM25 / dense / fused retrieval, reranking, answering — and score whole "
        "configurations. Every run leaves a **trace**; the pages render it."
    )
    columns = st.columns(max(1, len(STAGES)))
    # one column even when no page was found, so the lengths may differ
    for column, (stage, entries) in zip(columns, STAGES.items(), strict=False):
        with column.container(border=True):
            st.subheader(stage)
            for entry in entries:
                _page_card(entry)
    collection = st.session_state.get(APP_COLLECTION)
    preset = st.session_state.get(APP_PRESET)
    st.caption(f"Collection: **{collection or 'none yet'}** · preset: **{preset or '-'}** "
               "— change them in the sidebar.")


def _page_card(entry: PageEntry) -> None:
    st.page_link(PAGES[entry.file], label=entry.title, icon=entry.icon)
    st.caption(entry.blurb)


def sidebar() -> None:
    """Current collection (or a button to build the sample one), current preset, connected LLM."""
    with st.sidebar:
        st.subheader("Session")
        st.text_input("User", key=APP_USER, help="Blank: anonymous. You see public documents "
                      "and your own private ones; others' private documents only as a count.")
        existing = resources.collection_names()
        if existing:
            st.session_state[APP_COLLECTION] = current_collection(st.session_state, existing)
            st.session_state.pop(APP_NEXT_COLLECTION, None)  # a page's pick is now the sidebar's
            name = st.selectbox("Collection", existing, key=APP_COLLECTION)
            st.caption(resources.collection_summary(resources.cached_collection(name)))
        else:
            st.session_state[APP_COLLECTION] = None
            st.info("No collection yet.")
        if resources.sample_collection_button("app_build_samples"):
            st.rerun()  # redraw the sidebar with the new collection selected
        if st.button("Refresh collections", key="app_refresh", icon=":material/refresh:",
                     help="Re-read collections another process (the command line) changed"):
            resources.refresh_collections()
            st.rerun()
        presets = available_presets()
        if presets:
            st.session_state[APP_PRESET] = current_preset(st.session_state, presets)
            name = st.selectbox("Preset", presets, key=APP_PRESET)
            try:
                st.caption(load_preset(name).description)
            except PresetError as exc:  # a broken preset file must not take the app down
                st.error(str(exc))
        llm_status()


home = st.Page(overview, title="Overview", icon=":material/home:", default=True)
navigation = st.navigation(
    {"Workbench": [home]}
    | {stage: [PAGES[e.file] for e in entries] for stage, entries in STAGES.items()}
)
sidebar()
navigation.run()
