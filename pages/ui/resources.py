"""Shared, cached resources for the pages (streamlit): collections and the sample-collection build.

Collections are `st.cache_resource` (one object per name, never mutated by a page); building the
sample collection clears that cache so every page sees the new manifest.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages.ui.state import (
    APP_COLLECTION,
    APP_DOCUMENTS,
    APP_PRESET,
    APP_USER,
    SAMPLE_COLLECTION,
    current_collection,
    current_preset,
)
from rag.config import PipelineConfig, available_presets, load_preset
from rag.documents import Document, ingest_paths
from rag.index import (
    Collection,
    DocumentTexts,
    IndexRef,
    IndexSync,
    IngestSummary,
    MissingDocumentTextError,
    describe_settings,
    index_settings,
    list_collections,
    needs_sync,
    open_collection,
    resolve,
    visible_kept_documents,
)
from rag.ingestion import FilePaths, ingest_files
from rag.paths import SAMPLES_DIR, collections_root
from rag.privacy import normalize_user


def collection_names() -> list[str]:
    return list_collections()


@st.cache_resource(max_entries=8, show_spinner="Opening collection…")
def _open(root: str, name: str) -> Collection:  # keyed by data dir too: tests switch it
    return open_collection(name)


def cached_collection(name: str) -> Collection:
    """The shared Collection object for `name` in the current data dir, re-reading its manifest
    when another process (a CLI ingest) changed it."""
    collection = _open(str(collections_root()), name)
    collection.refresh()
    return collection


def refresh_collections() -> None:
    """Forget the open collections: the next run re-reads every manifest and the list."""
    _open.clear()


def collection_summary(collection: Collection) -> str:
    """One line: documents, chunks and the chunking the collection was built with."""
    manifest = collection.manifest
    chunks = sum(len(entry.chunk_ids) for entry in manifest.documents.values())
    chunking = manifest.settings.get("chunking", {})
    built = f" · {describe_settings(manifest.settings)}" if chunking else ""
    return f"{len(manifest.documents)} documents · {chunks} chunks{built}"


@st.cache_resource(max_entries=2, show_spinner="Parsing the bundled samples…")
def _parse_samples(stamp: tuple[tuple[str, int], ...]) -> tuple[Document, ...]:
    return ingest_paths([SAMPLES_DIR / name for name, _ in stamp]).documents


def sample_files() -> list[Path]:
    """The files in datasets/samples/, sorted by name."""
    return sorted(p for p in SAMPLES_DIR.iterdir() if p.is_file()) if SAMPLES_DIR.is_dir() else []


def sample_documents() -> tuple[Document, ...]:
    """The bundled samples as Documents, parsed once per change of the folder."""
    return _parse_samples(tuple((p.name, p.stat().st_mtime_ns) for p in sample_files()))


def session_user() -> str | None:
    """Who the sidebar says is using the app (None: anonymous)."""
    return normalize_user(st.session_state.get(APP_USER) or None)


def searching_as(user: str | None) -> None:
    """The caption that says whose chunks a page's search may return."""
    st.caption(f"Searching as **{user or 'anonymous'}** (the sidebar's User): public chunks and "
               "this user's private ones.")


@st.cache_resource(max_entries=8, show_spinner=False)
def _kept_documents(root: str, name: str, stamp: str, user: str | None
                    ) -> tuple[tuple[Document, ...], int]:  # fmt: skip
    """The kept documents this user may read, and how many private ones of others were held back."""
    collection = cached_collection(name)
    shown, hidden = visible_kept_documents(DocumentTexts(collection.directory),
                                           collection.manifest.documents, user)  # fmt: skip
    return tuple(shown), hidden


def hidden_kept_documents() -> int:
    """How many of the session collection's documents are other users' private ones."""
    name = session_collection_name()
    if not name or st.session_state.get(APP_DOCUMENTS):
        return 0
    collection = cached_collection(name)
    return _kept_documents(str(collections_root()), name, collection.manifest.updated_at,
                           session_user())[1]  # fmt: skip


def session_documents() -> tuple[Document, ...]:
    """What the Documents page parsed this session, else the session collection's documents
    (their kept text), else the bundled samples."""
    if parsed := st.session_state.get(APP_DOCUMENTS):
        return tuple(parsed)
    name = session_collection_name()
    if name:
        collection = cached_collection(name)
        kept, _ = _kept_documents(str(collections_root()), name, collection.manifest.updated_at,
                                  session_user())  # fmt: skip
        if kept:
            return kept
    return sample_documents()


def documents_origin() -> str:
    """Where session_documents() came from, as a sentence for a page's caption."""
    if st.session_state.get(APP_DOCUMENTS):
        return "the ones the Documents page parsed this session."
    name = session_collection_name()
    if name and session_documents() is not sample_documents():
        hidden = hidden_kept_documents()
        others = f" ({hidden} private documents of other users not shown)" if hidden else ""
        return f"collection **{name}** (change it in the sidebar){others}."
    return "the bundled samples (parse your own on the Documents page)."


def session_preset_name() -> str | None:
    """The name of the preset the sidebar selected (or the default preset)."""
    return current_preset(st.session_state, available_presets())


def session_collection_name() -> str | None:
    """The name of the collection the sidebar selected (or the sample/first one)."""
    return current_collection(st.session_state, collection_names())


def session_config() -> PipelineConfig | None:
    """The config of the preset the sidebar selected (or the default preset)."""
    name = current_preset(st.session_state, available_presets())
    return load_preset(name) if name else None


def session_collection() -> Collection | None:
    """The collection the sidebar selected, or the sample/first one when the page runs alone."""
    name = current_collection(st.session_state, collection_names())
    return cached_collection(name) if name else None


def build_sample_collection(config: PipelineConfig) -> IngestSummary:
    """Parse, chunk, embed and index datasets/samples/ into the "samples" collection, with progress."""
    with st.status(f"Building collection '{SAMPLE_COLLECTION}'…", expanded=True) as status:
        bar = st.progress(0.0, text="Parsing samples")

        def parsed(done: int, total: int, source: str) -> None:
            bar.progress(done / total, text=f"Parsed {done}/{total}: {Path(source).name}")

        st.write(f"Parsing, chunking and embedding with preset '{config.name}' (the first run "
                 "loads the embedding model)…")
        done = ingest_files(FilePaths((SAMPLES_DIR,), progress=parsed), SAMPLE_COLLECTION, config,
                            progress=False)  # the ingest stages, as the Documents page runs them
        for line in done.report.skipped:
            st.warning(f"Skipped {line.source}: {line.problem}")
        if done.summary is None:
            raise ValueError(f"no sample in {SAMPLES_DIR} could be parsed")
        summary = done.summary
        _open.clear()
        status.update(
            label=f"Collection '{SAMPLE_COLLECTION}': {summary.chunks_added} chunks from "
                  f"{len(summary.added) + len(summary.replaced)} documents in {summary.seconds:.1f}s",
            state="complete", expanded=False,
        )
    return summary


def sample_collection_button(key: str) -> bool:
    """A button that builds the sample collection when it does not exist yet; True once built."""
    if SAMPLE_COLLECTION in collection_names():
        return False
    if not st.button("Build sample collection", key=key, icon=":material/build:",
                     help=f"Index datasets/samples/ into a collection named '{SAMPLE_COLLECTION}'"):
        return False
    config = session_config()
    if config is None:
        st.error("No presets found in rag/presets/.")
        return False
    build_sample_collection(config)
    st.session_state[APP_COLLECTION] = SAMPLE_COLLECTION
    st.session_state.setdefault(APP_PRESET, config.name)
    return True


def require_collection_and_preset(key_prefix: str) -> tuple[Collection, PipelineConfig]:
    """The session's collection and preset, or the page stops with what to do about it."""
    collection = session_collection()
    if collection is None:
        st.warning("No collection yet: build the sample collection (datasets/samples/) to start.")
        if sample_collection_button(f"{key_prefix}build_samples"):
            st.rerun()
        st.stop()
    preset = session_config()
    if preset is None:
        st.error("No presets found in rag/presets/.")
        st.stop()
    return collection, preset


def index_line(index: IndexRef) -> str:
    """What an index was built with, and whether it is the collection's own or derived."""
    return f"{index.describe()}: {describe_settings(index.settings)}"


def index_of(collection: Collection, config: PipelineConfig) -> IndexRef:
    """The index `config` reads in `collection`: its own, or one derived from its documents for
    the preset's chunking/embedding (built here once, with a progress bar; reused afterwards)."""
    try:
        if not needs_sync(collection, config):
            return resolve(collection, config)
        with st.status(f"Indexing '{collection.name}' the way preset '{config.name}' needs "
                       f"({describe_settings(index_settings(config))}): once, reused afterwards",
                       expanded=True) as status:
            bar = st.progress(0.0, text="Chunking and embedding")

            def advance(phase: str, done: int, total: int) -> None:
                bar.progress(min(done / max(total, 1), 1.0), text=f"{phase}: {done}/{total} chunks")

            def finished(sync: IndexSync) -> None:
                status.update(label=sync.describe(), state="complete", expanded=False)

            return resolve(collection, config, advance, finished)
    except MissingDocumentTextError as exc:
        st.error(str(exc))
        st.stop()
