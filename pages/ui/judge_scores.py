"""The Judge page's "scores so far": per system nDCG@10 over the judged pool on the person's
labels only and with the learned judge's fill (95 % interval with the judge's doubt), and
whether judging can stop. Logic is eval.judging.stopping; this caches and renders."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from eval.judging.stopping import Stopping
from pages.ui.judge_fit import EVERY, LAST, PageJudge
from rag.paths import PROJECT_ROOT

RESULTS = PROJECT_ROOT / "benchmarks" / "results" / "judging"
CURRENT = "simulate5_"  # the runs after the judge7 freeze (the judge's same-source features):
# the default order (answer_seek), judge_uncertainty and ndcg_gain side by side (older runs stay)

def scores_so_far(judge: PageJudge) -> None:
    """The scores and the stopping check of the last finished fit (they are computed with it,
    off the script thread, every EVERY labels)."""
    fit = judge.fit
    if fit is None:
        st.info(Stopping(None, LAST, None, None).describe())
        return
    stop, scores = fit.stop, fit.scores
    (st.success if stop.moved is False and (stop.expected_relevant_unjudged or 0) < 1
     else st.info)(stop.describe())
    with st.expander("Scores so far (nDCG@10 over the pooled passages)"):
        st.dataframe(pd.DataFrame([{
            "system": s.system, "your labels only (condensed)": s.human_only,
            "unjudged share of top 10": s.unjudged, "yours + judge-filled": s.filled,
            "95% CI (judge's doubt included)": "" if s.low is None else
            f"[{s.low:.3f}, {s.high:.3f}]"} for s in scores]), width="stretch", hide_index=True)
        st.caption(f"As of {fit.scored_labels} labels (recomputed every {EVERY}). Filled: every "
                   "passage nobody judged takes the learned judge's call (relevant at p ≥ 0.5); the "
                   "interval resamples questions and draws the filled labels from p in each "
                   "resample. Evaluate "
                   "scores the saved set chunk by chunk.")


@st.cache_resource(max_entries=1)
def _figure(files: tuple[tuple[str, int], ...]):  # noqa: ANN202 -- a plotly Figure
    from eval.judging.sim_plot import budget_figure

    return budget_figure([Path(f) for f, _ in files])


def simulation_results(folder: Path) -> list[Path]:
    """The results files the figure draws: the current runs (simulate5_*), else the older ones
    (simulate_*, without the fill variants)."""
    return sorted(folder.glob(f"{CURRENT}*.json")) or \
        sorted(p for p in folder.glob("simulate_*.json") if "_fill_" not in p.stem)


def simulation_figure() -> None:
    """How far a share of the pool goes, measured on fully labelled sets (if the results are
    here): τ and the largest nDCG@10 error against the budget per strategy and baseline."""
    paths = simulation_results(RESULTS)
    if not paths:
        return
    if st.toggle("How far a fifth of the pool goes: judging simulated on fully labelled sets",
                 key="judge_show_simulation"):  # off by default: drawing it costs every key
        st.plotly_chart(_figure(tuple((str(p), p.stat().st_mtime_ns) for p in paths)),
                        width="stretch")
        st.caption("The full labels play the person; each strategy spends the budget and the "
                   "learned judge fills the rest (`python -m eval simulate-judging`; results in "
                   "benchmarks/results/judging/, figures in docs/judging.md). Dashed: the goal "
                   "(τ 0.9, error 0.02).")
