"""The Evaluate page's failure classes: every query of a run labeled with why it failed
(eval.diagnostics.failures), counts per preset, a filter, and the trace of any query."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from eval.diagnostics.failures import CLASSES, HOW_DECIDED, ClassifiedQuery, class_counts, classify_queries
from eval.scoring.compare import is_relevant
from pages.ui import eval_session as ev
from rag.chunking import Chunk

FAILURES = "eval_failures"  # session key: run label -> classified queries


def counts_frame(found: dict[str, list[ClassifiedQuery]]) -> pd.DataFrame:
    return pd.DataFrame([{"preset": label, **class_counts(items)} for label, items in found.items()])


def queries_frame(items: list[ClassifiedQuery], kind: str) -> pd.DataFrame:
    return pd.DataFrame([{"query": i.qid, "class": i.failure.kind, "why": i.failure.why,
                          "question": i.question}
                         for i in items if kind == "all" or i.failure.kind == kind])


def failure_section(results: ev.EvalResults, labels: list[str]) -> None:
    with st.expander("How each class is decided"):
        st.markdown("\n".join(f"- **{k}**: {HOW_DECIDED[k]}" for k in CLASSES)
                    + "\n\nChecked in this order, from the trace and the set's labels; no LLM opinion.")
    found: dict[str, list[ClassifiedQuery]] = st.session_state.setdefault(FAILURES, {})
    row = st.columns([2, 1])
    label = row[0].selectbox("Run", labels, key="eval_fail_run")
    if row[1].button("Classify every query", key="eval_fail_go", icon=":material/category:"):
        scored = results.runs[labels.index(label)]
        bar = st.progress(0.0, text="Running each query through every stage…")
        found[label] = classify_queries(results.evalset, scored.config,
                                        progress=lambda done, of: bar.progress(done / of, f"{done}/{of}"))
    found = {k: v for k, v in found.items() if k in labels}
    if not found:
        return
    st.dataframe(counts_frame(found), width="stretch", hide_index=True)
    shown = label if label in found else next(iter(found))
    row = st.columns([1, 2])
    kind = row[0].selectbox("Class", ["all", *CLASSES], key="eval_fail_class")
    table = queries_frame(found[shown], kind)
    st.dataframe(table, width="stretch", hide_index=True)
    if table.empty:
        return
    qid = row[1].selectbox("Open the trace of", list(table["query"]), key="eval_fail_q")
    item = next(i for i in found[shown] if i.qid == qid)
    relevant: Callable[[Chunk], bool] = lambda chunk: is_relevant(results.evalset, qid, chunk)  # noqa: E731
    ev.show_trace(item.trace, relevant, "eval_fail_stage")
