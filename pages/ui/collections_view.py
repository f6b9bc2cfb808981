"""Documents page, "Collections": every collection with its documents, chunks, size on disk,
the settings it was built with and when, and the indexes other presets derived from it; remove
one document; delete a collection (confirmed)."""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePath

import pandas as pd
import streamlit as st

from pages.ui import resources
from pages.ui.held_back import held_back_view
from rag.index import Collection, delete_collection, derived_indexes, describe_settings, visible_entries


def _when(stamp: str) -> str:
    return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M") if stamp else "-"


def collections_frame(names: list[str], user: str | None = None) -> pd.DataFrame:
    """One row per collection; documents counts what `user` may see by name, and other users'
    private documents as a number only."""
    rows = []
    for name in names:
        collection = resources.cached_collection(name)
        manifest = collection.manifest
        seen = visible_entries(manifest, user)
        rows.append({
            "collection": name, "documents": len(seen.entries),
            "others' private documents": seen.hidden,
            "chunks": manifest.chunk_count, "size on disk (MB)": _bytes(collection) / 1e6,
            "built with": describe_settings(manifest.settings),
            "indexes": 1 + len(derived_indexes(collection)),
            "created": _when(manifest.created_at), "updated": _when(manifest.updated_at),
        })  # fmt: skip
    return pd.DataFrame(rows)


def _bytes(collection: Collection) -> int:
    return collection.disk_bytes() + sum(i.disk_bytes() for i in derived_indexes(collection))


def indexes_frame(collection: Collection) -> pd.DataFrame:
    """The collection's own index and each one a preset derived from its documents."""
    rows = [{"index": index.name, "kind": "own" if index is collection else "derived",
             "settings": describe_settings(index.manifest.settings),
             "documents": len(index.manifest.documents), "chunks": index.manifest.chunk_count,
             "updated": _when(index.manifest.updated_at)}
            for index in (collection, *derived_indexes(collection))]
    return pd.DataFrame(rows)


def documents_frame(collection: Collection, user: str | None = None) -> pd.DataFrame:
    """The documents `user` may see (public and their own); others' private ones are left out
    (the caption under the table counts them)."""
    return pd.DataFrame(
        [{"document": PurePath(d.source).name, "title": d.title, "chunks": len(d.chunk_ids),
          "added": _when(d.added_at), "source": d.source}
         for d in visible_entries(collection.manifest, user).entries],
        columns=["document", "title", "chunks", "added", "source"],
    )  # fmt: skip


def _remove_document(collection: Collection, user: str | None) -> None:
    sources = [d.source for d in visible_entries(collection.manifest, user).entries]
    if not sources:
        return
    source = st.selectbox("Document to remove", sources, key="docs_remove_source",
                          format_func=lambda s: PurePath(s).name)
    if st.button("Remove document", key="docs_remove", icon=":material/delete:"):
        removed = collection.remove_document(source)
        st.session_state["docs_manage_note"] = f"Removed {PurePath(source).name} ({removed} chunks)."
        resources.refresh_collections()
        st.rerun()


def _delete_collection(name: str) -> None:
    with st.expander(f"Delete collection '{name}'"):
        st.caption("Removes its index, its points in Qdrant and its manifest. The files you "
                   "ingested are not touched.")
        typed = st.text_input("Type the collection's name to confirm", key="docs_delete_confirm")
        if st.button("Delete collection", key="docs_delete", type="primary",
                     disabled=typed.strip() != name):
            delete_collection(name)
            st.session_state["docs_manage_note"] = f"Deleted collection '{name}'."
            resources.refresh_collections()
            st.rerun()


def manager() -> None:
    """The collections table, then one collection's documents with remove and delete."""
    if note := st.session_state.pop("docs_manage_note", None):
        st.success(note)
    names = resources.collection_names()
    if not names:
        st.info("No collections yet: add documents in the first tab.")
        return
    user = resources.session_user()
    st.dataframe(collections_frame(names, user), width="stretch", hide_index=True,
                 column_config={"size on disk (MB)": st.column_config.NumberColumn(format="%.2f")})
    current = resources.session_collection_name()
    name = st.selectbox("Collection", names, key="docs_manage_collection",
                        index=names.index(current) if current in names else 0)
    collection = resources.cached_collection(name)
    st.dataframe(documents_frame(collection, user), width="stretch", hide_index=True)
    if hidden := visible_entries(collection.manifest, user).hidden:
        st.caption(f"…and {hidden} private documents of other users (not shown).")
    st.caption("Indexes: a preset that chunks or embeds differently reads its own index, built "
               "from these documents on first use and brought up to date when next used.")
    st.dataframe(indexes_frame(collection), width="stretch", hide_index=True)
    held_back_view(collection, user)
    _remove_document(collection, user)
    _delete_collection(name)
