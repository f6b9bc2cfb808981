"""Runs: every stored run (Evaluate, `eval run`, sweeps, tunes) newest first, a metric over time,
and two runs side by side — config diff, paired tests, the questions that moved and their two
traces. Reading and comparing is eval/; this page reads state and renders."""

from __future__ import annotations

import streamlit as st

from pages.ui.entry import through_app
from pages.ui.runs_compare_view import comparison, pick_pair, show_comparison, traces_side_by_side
from pages.ui.runs_view import filters, history_chart, runs_frame, stored_runs

through_app()  # a page opened by its address still runs inside app.py

st.title("Runs")
st.caption("Every stored run, newest first, with what it was scored on, its config, figures, "
           "commit and user. Pick a baseline and a candidate: what changed, and is it more "
           "than noise?")
rows = stored_runs()
if not rows:
    st.info("No stored run yet: press Run on the Evaluate page, or run "
            "`python -m eval run --dataset datasets/beir_sample --preset bm25 --preset hybrid "
            "--out runs/r.json`.")
    st.stop()
shown = filters(rows)
st.dataframe(runs_frame(shown), width="stretch", hide_index=True,
             column_config={"ndcg@10": st.column_config.NumberColumn(format="%.4f"),
                            "recall@100": st.column_config.NumberColumn(format="%.4f"),
                            "p50 ms": st.column_config.NumberColumn(format="%.1f")})
orphans = sum(r.orphaned for r in shown)
strangers = sum(not r.comparable for r in shown)
st.caption(f"{len(shown)} of {len(rows)} runs. Orphaned: {orphans} (their collection was "
           f"deleted; the runs stay readable). Not comparable with the newest run of their test "
           f"set: {strangers} (other documents, questions or labels).")
metrics = list(dict.fromkeys(m for r in shown for m in r.data.get("metrics", {})))
history_chart(shown, metrics or ["ndcg@10"])

st.subheader("Two runs side by side")
pair = pick_pair(shown)
if pair is None:
    st.stop()
base, cand = pair
metric = st.selectbox("Rank questions by", metrics, key="runs_metric") if metrics else None
try:
    compared = comparison(base, cand, metric)
except (KeyError, ValueError, OSError) as exc:  # no shared metric, a run folder gone
    st.error(str(exc.args[0] if exc.args else exc))
    st.stop()
show_comparison(compared)
st.subheader("One question, both traces")
traces_side_by_side(compared, base, cand)
