"""Evaluate's "Can this set rank them?" note: which pairs of the scored systems the set
separates (paired test, p < 0.05) and how many questions the closest pair would need, said in
words first (eval.scoring.separation computes it)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from eval.runs.evalset_runner import ScoredRun
from eval.scoring.separation import separation


def separation_note(runs: Sequence[ScoredRun], metric: str) -> None:
    per_system = {r.label: dict(r.run.scores[metric].values) for r in runs if metric in r.run.scores}
    if len(per_system) < 2:
        return
    found = separation(per_system, metric)
    (st.success if found.separated else st.warning)(found.words())
    with st.expander(f"Every pair ({len(found.pairs)})"):
        st.dataframe(pd.DataFrame([{"A": p.a, "B": p.b, f"Δ {metric} (B − A)": round(p.diff, 4),
                                    "p": round(p.p_value, 4),
                                    "separated": "yes" if p.separated else "tied within noise"}
                                   for p in found.pairs]), hide_index=True, width="stretch")
