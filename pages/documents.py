"""Documents: bring files in (upload, a folder on the server, or the bundled samples), ingest
them into a new or existing collection, manage collections, and inspect one document's text,
detected type, PII and redacted view."""

from __future__ import annotations

from pathlib import PurePath

import streamlit as st

from pages.ui import collections_view, ingest, resources
from pages.ui.entry import through_app
from pages.ui.html import PII_COLOR, Mark, highlight_spans, pattern_marks
from pages.ui.state import APP_DOCUMENTS
from pages.ui.tables import ingest_report_frame, pii_frame
from rag.documents import PII_KINDS, Document, IngestReport, describe_counts, find_pii, redact

through_app()  # a page opened by its address still runs inside app.py

PREVIEW_CHARS = 20_000  # longer texts are cut in the preview, never in the index
PLACEHOLDER = r"\[REDACTED_[A-Z]+\]"


def show_report(report: IngestReport) -> None:
    ok, skipped = len(report.documents), len(report.skipped)
    st.subheader("Parsed files")
    st.caption(f"{ok} parsed · {skipped} skipped (with the reason and what to do)")
    st.dataframe(ingest_report_frame(report), width="stretch", hide_index=True)


def show_document(doc: Document) -> None:
    meta = doc.metadata
    cols = st.columns(4)
    cols[0].metric("Detected type", meta.doc_type)
    cols[1].metric("Format", meta.format)
    cols[2].metric("Characters", f"{len(doc.text):,}")
    cols[3].metric("Pages", len(meta.pages) or "-")
    st.info(f"**Why {meta.doc_type}:** {meta.doc_type_reason or 'no reason recorded'}")
    matches = find_pii(doc.text)
    text_tab, pii_tab, redacted_tab = st.tabs(["Text", f"PII ({len(matches)})", "Redacted"])
    with text_tab:
        marks = [Mark(m.start, m.end, m.kind, PII_COLOR) for m in matches]
        st.html(highlight_spans(doc.text, marks, limit=PREVIEW_CHARS))
    with pii_tab:
        st.caption(describe_counts(matches))
        st.dataframe(pii_frame(matches), width="stretch", hide_index=True)
    with redacted_tab:
        kinds = st.multiselect("Redact", PII_KINDS, default=PII_KINDS, key="docs_redact_kinds")
        redaction = redact(doc.text, kinds)
        level, count, density = st.columns(3)
        level.metric("Sensitivity level", redaction.level)
        count.metric("Redacted", len(redaction.matches))
        density.metric("PII density", f"{redaction.density:.2%}")
        marks = pattern_marks(redaction.text, PLACEHOLDER, PII_COLOR)
        st.html(highlight_spans(redaction.text, marks, limit=PREVIEW_CHARS))


st.title("Documents")
st.caption("Start here: upload files or name a folder, ingest them into a collection, then ask "
           "questions on the Answer page or compare retrievers on Retrieval.")
st.caption(f"Collection in use: **{resources.session_collection_name() or 'none yet'}** "
           "(change it in the sidebar)")
add_tab, manage_tab = st.tabs(["Add documents", "Collections"])
with add_tab:
    report = ingest.load_report()
    if report is not None:
        show_report(report)
        st.session_state[APP_DOCUMENTS] = report.documents  # the Chunk Lab offers these
        ingest.ingest_form(report)
        if report.documents:
            st.subheader("Inspect a document")
            by_name = {PurePath(d.metadata.source).name: d for d in report.documents}
            name = st.selectbox("Document", list(by_name), key="docs_doc")
            show_document(by_name[name])
with manage_tab:
    collections_view.manager()
