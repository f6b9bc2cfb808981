"""Evaluate's "human + judge-filled" section for a set saved from the Judge page with the learned
judge's fill: per run, nDCG@10 on the person's labels plus the fill, with a 95 % interval that
includes the judge's doubt, beside the judged-only figures. Scoring is eval/; this renders."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from eval.judging.filled import filled_spans
from eval.runs.filled_runs import filled_run_scores
from eval.testsets.store import read_rows
from pages.ui import eval_session as ev
from pages.ui.state import session_cache


def _rows(results: ev.EvalResults) -> list[dict]:
    evalset = results.evalset
    if not evalset.collection or " / " not in evalset.title:
        return []
    try:
        return read_rows(evalset.collection, evalset.title.split(" / ", 1)[1])
    except (OSError, ValueError):  # not a stored set (any more): nothing filled to show
        return []


def filled_section(results: ev.EvalResults) -> None:
    rows = _rows(results)
    filled = filled_spans(rows)
    if not filled:
        return
    judge = next((r["provenance"]["judge"] for r in rows
                  if isinstance(r.get("provenance"), dict) and r["provenance"].get("judge")), {})
    agreement = judge.get("agreement") or {}
    st.subheader("Human + judge-filled: every pooled passage labelled")
    if agreement:
        st.caption(f"The learned judge ({agreement.get('model')}) agreed with the person's "
                   f"{agreement.get('labels')} labels out of fold: Cohen's κ "
                   f"{agreement.get('kappa'):.2f}, precision {agreement.get('precision'):.2f}, "
                   f"recall {agreement.get('recall'):.2f}. It fills only passages nobody judged: "
                   "the score takes its call (relevant at p ≥ 0.5), the interval draws its "
                   "labels from their probabilities in every resample.")
    cache = session_cache(st.session_state, "eval_filled", max_entries=16)
    figures = [cache.get_or_compute(r.label, lambda r=r: filled_run_scores(
        results.evalset, r, filled)) for r in results.runs]
    st.dataframe(pd.DataFrame([{
        "run": f.system, "queries": f.queries, f"ndcg@{f.depth} human + judge": f.ndcg,
        "95% CI": f"[{f.low:.3f}, {f.high:.3f}]", f"filled share of top {f.depth}":
        f.filled_share, "neither judged nor filled": f.unfilled_share} for f in figures]),
        width="stretch", hide_index=True)
