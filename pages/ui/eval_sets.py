"""The Evaluate page's "Test set" picker: the sets stored with the sidebar's collection (question
counts, provenance, date), the bundled sets, or a path. Loading is eval/; this renders."""

from __future__ import annotations

import streamlit as st

from eval.data.evalsets import EvalSet, bundled_sets
from eval.data.shapes import DatasetError
from eval.judging.export import nonrelevant_spans
from eval.runs.collection_sets import collection_eval_set
from eval.testsets.store import TestSetInfo, list_sets, load_set, read_rows
from pages.ui import eval_session as ev
from pages.ui.resources import cached_collection
from pages.ui.state import APP_COLLECTION

OTHER = "Another BEIR folder or QA file…"


def describe(info: TestSetInfo) -> str:
    """'12 questions (10 answerable) · mined 10, judged 2 · 2026-11-26 17:40'"""
    made = ", ".join(f"{k} {v}" for k, v in sorted(info.provenance.items(), key=lambda kv: -kv[1]))
    return (f"{info.questions} questions ({info.answerable} answerable) · {made} · "
            f"{info.created[:16].replace('T', ' ')}")


@st.cache_resource(max_entries=4, show_spinner="Reading the collection's documents…")
def _load_own(collection: str, name: str, stamp: tuple[int, str]) -> EvalSet:
    rows = read_rows(collection, name)
    return collection_eval_set(load_set(collection, name), cached_collection(collection),
                               nonrelevant_spans(rows))


def load_own(info: TestSetInfo) -> EvalSet:
    """The stored set over its collection, loaded again when the set or the collection change."""
    updated = cached_collection(info.collection).manifest.updated_at
    return _load_own(info.collection, info.name, (info.path.stat().st_mtime_ns, str(updated)))


def own_sets() -> dict[str, TestSetInfo]:
    """Option label -> set, for the sidebar's collection."""
    collection = st.session_state.get(APP_COLLECTION)
    if not collection:
        return {}
    return {f"{collection} / {info.name}": info for info in list_sets(collection)}


def choose_set() -> EvalSet:
    """The picker; stops the page until a set is chosen and readable."""
    own, bundled = own_sets(), {label: str(path) for label, path in bundled_sets().items()}
    choice = st.selectbox("Test set", [*own, *bundled, OTHER], key="eval_dataset",
                          format_func=lambda o: f"{o} — {describe(own[o])}" if o in own else o,
                          help="Sets stored with the sidebar's collection first (make one on the "
                               "Judge page), then the bundled sets")
    collection = st.session_state.get(APP_COLLECTION)
    if collection and not own:
        st.caption(f"Collection **{collection}** has no test set of its own yet: make one on the "
                   "Judge page (mined from its documents, or generated), then pick it here.")
    try:
        if choice in own:
            evalset = load_own(own[choice])
        else:
            source = (st.text_input("Path", key="eval_path", placeholder="a BEIR folder or a "
                                    ".jsonl/.csv QA file with spans over datasets/samples/")
                      if choice == OTHER else bundled[choice])
            if not source:
                st.stop()
            evalset = ev.load_set(source)
    except (DatasetError, OSError, ValueError) as exc:
        st.error(str(exc))
        st.stop()
    spans = " (relevant when it overlaps a labeled span)" if evalset.unit == "chunk" else ""
    judged = (f"; {len(evalset.nonrelevant)} questions carry passages judged not relevant, so "
              "unjudged passages are counted" if evalset.judged else "")
    st.caption(f"**{evalset.name}**: {len(evalset.dataset.corpus)} documents, "
               f"{len(evalset.dataset.queries)} queries; relevance per {evalset.unit}{spans}"
               f"{judged}.")
    return evalset
