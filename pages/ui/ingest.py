"""Documents page, "Add documents": parse uploads / a server folder / the samples with progress,
then ingest them into a new or existing collection with a progress bar (counts and ETA) and a
per-file report. The new collection becomes the session's collection on every page."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Hashable
from pathlib import Path, PurePath

import pandas as pd
import streamlit as st

from pages.ui import resources
from pages.ui.configs import page_config
from pages.ui.ingest_trace import show_ingest_trace
from pages.ui.state import APP_NEXT_COLLECTION, session_cache
from rag.config import PipelineConfig, available_presets, load_preset
from rag.documents import SUPPORTED_EXTENSIONS, IngestReport, expand_paths, ingest_paths, ingest_uploads
from rag.index import (
    IngestSummary,
    Manifest,
    StoreBusyError,
    check_name,
    describe_settings,
    index_settings,
    settings_hash,
)
from rag.ingestion import Parsed, ingest_files
from rag.paths import SAMPLES_DIR
from rag.trace import Trace

SOURCES = ("Upload files", "Folder on the server", "Bundled samples")
LAST_INGEST = "docs_last_ingest"  # (summary line, per-file frame, trace, derived-index traces)
PARSE_SECONDS = "docs_parse_seconds"  # id(report) -> seconds its parse took (for the trace)
NEXT_TARGET = "docs_next_target"  # a collection just created: the form shows it as existing next
Parse = Callable[[Callable[[int, int, str], None]], IngestReport]


def eta(started: float, done: int, total: int) -> str:
    """"12/40 · ETA 8 s" from the rate so far (no ETA before the first step)."""
    if done <= 0 or total <= 0:
        return f"{done}/{total}"
    left = (time.perf_counter() - started) / done * (total - done)
    return f"{done}/{total} · ETA {left:.0f} s"


def progress_bar(label: str) -> Callable[[int, int, str], None]:
    """A st.progress bar and the callback that moves it: (done, total, what)."""
    bar = st.progress(0.0, text=label)
    started = time.perf_counter()

    def advance(done: int, total: int, what: str) -> None:
        bar.progress(min(done / max(total, 1), 1.0),
                     text=f"{label}: {eta(started, done, total)} {what}".rstrip())

    return advance


def _parsed(key: Hashable, parse: Parse) -> IngestReport:
    """Parse once per distinct selection (session cache), with a progress bar while it runs."""
    cache = session_cache(st.session_state, "docs_reports", max_entries=8)

    def compute() -> IngestReport:
        advance = progress_bar("Parsing")
        started = time.perf_counter()
        report = parse(lambda done, total, source: advance(done, total, PurePath(source).name))
        st.session_state.setdefault(PARSE_SECONDS, {})[id(report)] = time.perf_counter() - started
        return report

    return cache.get_or_compute(key, compute)


def load_report() -> IngestReport | None:
    """The parsed files of the chosen source: uploads, a folder on the server, or the samples."""
    kind = st.segmented_control("Source", SOURCES, default="Bundled samples", key="docs_source")
    if kind == "Upload files":
        uploads = st.file_uploader("Files", accept_multiple_files=True, key="docs_uploads")
        if not uploads:
            st.info(f"Drop files here: {', '.join(SUPPORTED_EXTENSIONS)}. Others are reported.")
            return None
        files = [(f.name, f.getvalue()) for f in uploads]
        key = tuple((name, hashlib.sha256(data).hexdigest()) for name, data in files)
        return _parsed(key, lambda progress: ingest_uploads(files, progress=progress))
    if kind == "Folder on the server":
        folder = st.text_input("Folder", key="docs_folder", placeholder="/data/my-pdfs",
                               help="A folder on the machine running the app, walked recursively")
        if not folder.strip():
            st.info("Type the path of a folder on this machine (subfolders are included).")
            return None
        root = Path(folder.strip()).expanduser()
        if not root.is_dir():
            st.error(f"There is no folder {root} on this machine.")
            return None
        paths = expand_paths([root])
    else:
        samples = [p.name for p in resources.sample_files()]
        names = st.multiselect("Samples", samples, default=samples, key="docs_samples")
        if not names:
            st.info("Pick at least one sample, or upload files.")
            return None
        paths = [SAMPLES_DIR / name for name in names]
    stamps = tuple((str(p), p.stat().st_mtime_ns) for p in paths)
    return _parsed(stamps, lambda progress: ingest_paths(paths, progress=progress))


def file_report(report: IngestReport, summary: IngestSummary, manifest: Manifest) -> pd.DataFrame:
    """One row per file: added / replaced / unchanged / skipped, its chunks, and what to do."""
    outcome = {s: "added" for s in summary.added} | {s: "replaced" for s in summary.replaced}
    outcome |= {s: "unchanged (nothing added)" for s in summary.unchanged}
    rows = []
    for line in report.lines:
        entry = manifest.documents.get(line.source)
        rows.append({
            "file": PurePath(line.source).name,
            "status": "skipped" if line.status == "skipped" else outcome.get(line.source, "?"),
            "chunks": len(entry.chunk_ids) if entry and line.status != "skipped" else 0,
            "note": f"{line.problem} — {line.action}" if line.status == "skipped" else
                    " · ".join(f"⚠ {w}" for w in line.warnings),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["file", "status", "chunks", "note"])


def _target() -> tuple[str, PipelineConfig] | None:
    """Where to ingest and with which config: a new collection built with a chosen preset, or an
    existing one with the settings it was built with."""
    existing = resources.collection_names()
    created = st.session_state.pop(NEXT_TARGET, None)
    if created in existing:  # set before the widgets exist (Streamlit forbids it after)
        st.session_state["docs_into"] = "Existing collection"
        st.session_state["docs_into_collection"] = created
    mode = st.radio("Into", ["New collection", "Existing collection"], horizontal=True,
                    index=1 if existing else 0, key="docs_into", disabled=not existing)
    presets = available_presets()
    preset_name = resources.session_preset_name()
    if mode == "Existing collection" and existing:
        current = resources.session_collection_name()
        name = st.selectbox("Collection", existing, key="docs_into_collection",
                            index=existing.index(current) if current in existing else 0)
        collection = resources.cached_collection(name)
        manifest, settings = collection.manifest, collection.manifest.settings
        # the ONNX graph it recorded (embedding.onnx_variant auto keeps it)
        config = collection.pinned(page_config(load_preset(preset_name), name))
        wanted = index_settings(config)
        also = ("" if not settings or settings_hash(wanted) == manifest.config_hash else
                f" The session preset '{config.name}' reads it another way "
                f"({describe_settings(wanted)}): that index is brought up to date too.")
        st.caption(f"Its own index: {describe_settings(settings)}.{also}")
        return name, config
    name = st.text_input("New collection name", value="my-documents", key="docs_new_name").strip()
    preset_name = st.selectbox("Preset (chunking and embedding)", presets, key="docs_new_preset",
                               index=presets.index(preset_name) if preset_name in presets else 0)
    try:
        check_name(name)
    except ValueError as exc:
        st.error(str(exc))
        return None
    if name in existing:
        st.warning(f"'{name}' exists: pick “Existing collection” to add to it.")
        return None
    config = page_config(load_preset(preset_name), name)
    st.caption(f"Will be built with: {describe_settings(index_settings(config))}")
    return name, config


def ingest_form(report: IngestReport) -> None:
    """Target, preset and the Ingest button; the report of the last ingest stays below."""
    st.subheader("Add to a collection")
    target = _target()
    count = len(report.documents)
    if target is not None and st.button(f"Ingest {count} documents", type="primary",
                                        key="docs_ingest", disabled=not count):
        name, config = target
        advance = progress_bar("Chunking and embedding")
        parsed = Parsed(report, "the files picked above",
                        st.session_state.get(PARSE_SECONDS, {}).get(id(report)))
        try:
            done = ingest_files(
                parsed, name, config, progress=False,
                on_progress=lambda phase, done, total: advance(done, total, f"chunks ({phase})"),
            )  # fmt: skip
        except (ValueError, StoreBusyError) as exc:  # a model that is missing, a busy store
            st.error(f"Nothing was ingested: {exc}")
            return
        summary = done.summary
        assert summary is not None  # the button needs a parsed document
        line = (f"Collection '{name}': {len(summary.added)} added, {len(summary.replaced)} "
                f"replaced, {len(summary.unchanged)} unchanged, {len(report.skipped)} skipped · "
                f"{summary.chunks_added} chunks in {summary.seconds:.1f} s")
        manifest = resources.cached_collection(name).manifest
        syncs = tuple(t for synced in done.syncs for t in synced.traces if isinstance(t, Trace))
        st.session_state[LAST_INGEST] = (line, file_report(report, summary, manifest),
                                         done.trace, syncs)
        st.session_state[APP_NEXT_COLLECTION] = name  # every page uses it from the next run
        st.session_state[NEXT_TARGET] = name  # not "'name' exists" above the success line
        resources.refresh_collections()
        st.rerun()
    if LAST_INGEST in st.session_state:
        line, frame, trace, syncs = st.session_state[LAST_INGEST]
        st.success(line)
        st.dataframe(frame, width="stretch", hide_index=True)
        st.subheader("How the last ingest ran")
        show_ingest_trace(trace, syncs)
