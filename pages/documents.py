"""Documents: bring files in (upload or bundled samples), read the ingest report, and inspect
one document's text, detected type, PII and redacted view."""

from __future__ import annotations

import hashlib
from pathlib import PurePath

import streamlit as st

from pages.ui import resources
from pages.ui.html import PII_COLOR, Mark, highlight_spans, pattern_marks
from pages.ui.state import APP_DOCUMENTS, session_cache
from pages.ui.tables import ingest_report_frame, pii_frame
from rag.documents import SUPPORTED_EXTENSIONS, ingest_paths, ingest_uploads
from rag.documents.base import Document, IngestReport
from rag.documents.pii import PII_KINDS, describe_counts, find_pii, redact
from rag.paths import SAMPLES_DIR

PREVIEW_CHARS = 20_000  # longer texts are cut in the preview, never in the index
PLACEHOLDER = r"\[REDACTED_[A-Z]+\]"


def load_report() -> IngestReport | None:
    """Ingest the chosen samples or uploads, once per distinct selection (session cache)."""
    cache = session_cache(st.session_state, "docs_reports", max_entries=8)
    source = st.segmented_control(
        "Source", ["Bundled samples", "Upload files"], default="Bundled samples", key="docs_source"
    )
    if source == "Upload files":
        uploads = st.file_uploader("Files", accept_multiple_files=True, key="docs_uploads")
        if not uploads:
            st.info(f"Drop files here: {', '.join(SUPPORTED_EXTENSIONS)}. Others are reported.")
            return None
        files = [(f.name, f.getvalue()) for f in uploads]
        hashes = tuple((name, hashlib.sha256(data).hexdigest()) for name, data in files)
        return cache.get_or_compute(hashes, lambda: ingest_uploads(files))
    samples = [p.name for p in resources.sample_files()]
    names = st.multiselect("Samples", samples, default=samples, key="docs_samples")
    if not names:
        st.info("Pick at least one sample, or upload files.")
        return None
    paths = [SAMPLES_DIR / name for name in names]
    stamps = tuple((p.name, p.stat().st_mtime_ns) for p in paths)
    return cache.get_or_compute(stamps, lambda: ingest_paths(paths))


def show_report(report: IngestReport) -> None:
    ok, skipped = len(report.documents), len(report.skipped)
    st.subheader("Ingest report")
    st.caption(f"{ok} ingested · {skipped} skipped")
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
st.caption("Parse files into text with metadata; bad files are reported and skipped, never lost.")
report = load_report()
if report is not None:
    show_report(report)
    st.session_state[APP_DOCUMENTS] = report.documents  # the Chunk Lab offers these
    if report.documents:
        st.subheader("Document")
        by_name = {PurePath(d.metadata.source).name: d for d in report.documents}
        name = st.selectbox("Document", list(by_name), key="docs_doc")
        show_document(by_name[name])
