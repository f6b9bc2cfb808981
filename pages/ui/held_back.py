"""The Documents page's list of passages the injection screen holds back from generation
(rag.context.screen.screen_chunks): which chunk, of which document, what was found."""

from __future__ import annotations

from pathlib import PurePath

import pandas as pd
import streamlit as st

from rag.context import screen_chunks
from rag.index import Collection
from rag.privacy import visible_to


@st.cache_data(max_entries=16, show_spinner=False)
def _held_back(name: str, version: str, user: str | None, _collection: Collection) -> pd.DataFrame:
    chunks = [c for c in _collection.chunks() if visible_to(c.metadata, user)]
    return pd.DataFrame(
        [{"document": PurePath(h.title).name, "chunk": h.chunk_id, "found": ", ".join(h.findings),
          "text": h.snippet} for h in screen_chunks(chunks)],
        columns=["document", "chunk", "found", "text"])


def held_back_view(collection: Collection, user: str | None) -> None:
    frame = _held_back(collection.name, str(collection.manifest.updated_at), user, collection)
    st.subheader(f"Passages held back from generation ({len(frame)})")
    st.caption("Documents are data: a passage that addresses the assistant (instructions, role "
               "markers, \"ignore the rest…\", exfiltration links, hidden characters) is withheld from "
               "the prompt (context.flagged_passages: withhold; \"fence\" keeps it, marked). The "
               "Answer page's trace names the ones a question reached.")
    if len(frame):
        st.dataframe(frame, width="stretch", hide_index=True)
