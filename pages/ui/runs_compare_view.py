"""The Runs page's side by side: pick a baseline and a candidate, read the config diff, each
metric's difference with its paired p-value and CI, the questions that got better and worse, and
any question's two traces next to each other (the Evaluate page's trace view). The comparison is
eval.runs.run_compare; this renders."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from eval.runs.history import RunRow
from eval.runs.run_compare import QuestionDelta, RunComparison, compare_runs, relevance
from eval.runs.store import StoredRun, load_run
from pages.ui.eval_session import show_trace
from pages.ui.runs_view import run_title
from pages.ui.state import session_cache


def pick_pair(rows: Sequence[RunRow]) -> tuple[RunRow, RunRow] | None:
    """Baseline (default: the second newest) and candidate (default: the newest)."""
    if len(rows) < 2:
        st.info("Store two runs (Evaluate, or `python -m eval run`) to compare them.")
        return None
    ids = [r.id for r in rows]
    by_id = {r.id: r for r in rows}
    if st.session_state.get("runs_pair_of") != ids:  # other filters: the newest two again
        st.session_state["runs_pair_of"] = ids
        for key in ("runs_base", "runs_cand"):
            st.session_state.pop(key, None)
    cols = st.columns(2)
    base = cols[0].selectbox("Baseline", ids, index=1, key="runs_base",
                             format_func=lambda i: run_title(by_id[i]))
    cand = cols[1].selectbox("Candidate", ids, index=0, key="runs_cand",
                             format_func=lambda i: run_title(by_id[i]))
    if base == cand:
        st.info("Baseline and candidate are the same run: pick another one.")
        return None
    return by_id[base], by_id[cand]


def comparison(base: RunRow, cand: RunRow, metric: str | None) -> RunComparison:
    cache = session_cache(st.session_state, "runs_compared", max_entries=8)
    return cache.get_or_compute((base.id, cand.id, metric), lambda: compare_runs(
        _run(base), _run(cand), metric))


def _run(row: RunRow) -> StoredRun:
    cache = session_cache(st.session_state, "runs_loaded", max_entries=6)
    return cache.get_or_compute(row.id, lambda: load_run(row.path))


def metrics_frame(c: RunComparison) -> pd.DataFrame:
    return pd.DataFrame([{
        "metric": m.metric, "baseline": m.baseline, "candidate": m.candidate, "diff": m.diff,
        "diff 95% CI": f"[{m.ci[0]:+.4f}, {m.ci[1]:+.4f}]", "p (paired randomization)": m.p_value,
        "better": m.better, "worse": m.worse, "questions": m.n} for m in c.metrics])


def questions_frame(items: Sequence[QuestionDelta]) -> pd.DataFrame:
    return pd.DataFrame([{"change": q.delta, "qid": q.qid, "baseline": q.baseline,
                          "candidate": q.candidate, "question": q.query} for q in items],
                        columns=["change", "qid", "baseline", "candidate", "question"])


def show_comparison(c: RunComparison) -> None:
    if c.not_comparable:
        st.warning("Not comparable on equal terms: " + "; ".join(c.not_comparable)
                   + ". The differences below mix the change with that.")
    st.markdown("**Config diff** (only what changed)")
    if c.config:
        st.dataframe(pd.DataFrame([{"path": d.path, "baseline": str(d.baseline),
                                    "candidate": str(d.candidate)} for d in c.config]),
                     width="stretch", hide_index=True)
    else:
        st.caption("Same config: any difference comes from code, data or versions.")
    if c.setup:
        st.caption("Also changed: " + "; ".join(f"`{d.path}` {d.baseline} → {d.candidate}"
                                                for d in c.setup))
    st.markdown("**Metrics** (candidate − baseline, on the questions both scored)")
    st.dataframe(metrics_frame(c), width="stretch", hide_index=True,
                 column_config={k: st.column_config.NumberColumn(format="%.4f")
                                for k in ("baseline", "candidate", "diff",
                                          "p (paired randomization)")})
    if c.only_baseline or c.only_candidate:
        st.caption(f"Questions in one run only (not compared): baseline {c.only_baseline}, "
                   f"candidate {c.only_candidate}.")
    cols = st.columns(2)
    cols[0].markdown(f"**Better on {c.metric}** ({len(c.better)})")
    cols[0].dataframe(questions_frame(c.better), width="stretch", hide_index=True)
    cols[1].markdown(f"**Worse on {c.metric}** ({len(c.worse)})")
    cols[1].dataframe(questions_frame(c.worse), width="stretch", hide_index=True)


def traces_side_by_side(c: RunComparison, base: RunRow, cand: RunRow) -> None:
    """Pick a question (worst first); both runs' kept traces next to each other."""
    changed = [*c.worse, *reversed(c.better)]
    if not changed:
        st.caption("No question changed.")
        return
    by_qid = {q.qid: q for q in changed}
    qid = st.selectbox("Question (worst first)", list(by_qid), key="runs_question",
                       format_func=lambda q: f"{by_qid[q].delta:+.3f} · {q} · {by_qid[q].query}")
    if not st.toggle("Open both traces", key="runs_open_traces"):
        return
    cols = st.columns(2)
    for col, row, side, value in ((cols[0], base, "a", by_qid[qid].baseline),
                                  (cols[1], cand, "b", by_qid[qid].candidate)):
        with col:
            st.markdown(f"**{'Baseline' if side == 'a' else 'Candidate'}: {row.label}** · "
                        f"{c.metric} {value:.3f}")
            run = _run(row)
            trace = run.trace(qid)
            if trace is None:
                st.info("This run kept no trace for this question (sweep points and tunes keep "
                        "none; a run keeps its first 500).")
                continue
            show_trace(trace, relevance(run, qid), f"runs_stage_{side}")
