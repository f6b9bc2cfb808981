"""The judging simulation's figure: per set, Kendall τ and the largest |Δ nDCG@10| against the
judging budget, for each strategy (learned judge filling the rest) and the two baselines, the
mean over seeds; the goal (τ 0.9, error 0.02 at 20 %) drawn in. Read from the results JSON of
`python -m eval simulate-judging`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from eval.judging.strategies.base import DEFAULT_STRATEGY

SHOWN = ("answer_seek", "judge_uncertainty", "ndcg_gain", "bandit", "mtf", "pool_order",
         "random_unjudged_nonrelevant", "random_bpref")
LABELS = {"answer_seek": "answer seek + judge fill",
          "judge_uncertainty": "judge uncertainty + judge fill",
          "ndcg_gain": "likely relevant × nDCG weight + judge fill",
          "bandit": "bandit (MM-NS) + judge fill", "mtf": "move-to-front + judge fill",
          "pool_order": "pool order + judge fill",
          "random_unjudged_nonrelevant": "baseline: random, unjudged = not relevant",
          "random_bpref": "baseline: random, bpref"}
COLORS = {"answer_seek": "#8c564b", "judge_uncertainty": "#d62728", "ndcg_gain": "#ff7f0e",
          "bandit": "#1f77b4", "mtf": "#2ca02c", "pool_order": "#9467bd",
          "random_unjudged_nonrelevant": "#7f7f7f", "random_bpref": "#bcbd22"}


def label(name: str) -> str:
    """The legend entry; the Judge page's default order says so."""
    return LABELS[name] + (" (default)" if name == DEFAULT_STRATEGY else "")


def _series(report: dict[str, Any], name: str) -> dict[str, Any] | None:
    return report["strategies"].get(name) or report["baselines"].get(name)


def budget_figure(paths: Sequence[Path]) -> go.Figure:
    """One column per results file: τ (top) and max |Δ nDCG@10| (bottom) against budget."""
    reports = [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]
    titles = [f"{r['set']} ({r['questions']} q, pool {r['pool_size']}; split-half τ "
              f"{r['full_labels']['split_half_tau']:.2f})" for r in reports]
    fig = make_subplots(rows=2, cols=len(reports), shared_xaxes=True,
                        subplot_titles=[*titles, *[""] * len(reports)],
                        vertical_spacing=0.08, horizontal_spacing=0.04)
    for c, report in enumerate(reports, start=1):
        for name in SHOWN:
            series = _series(report, name)
            if not series:
                continue
            budgets = sorted(series, key=float)
            for row, key in ((1, "tau"), (2, "max_abs_error")):
                if name == "random_bpref" and key == "max_abs_error":
                    continue  # bpref's error is against bpref, not nDCG: not comparable here
                fig.add_trace(go.Scatter(
                    x=[float(b) for b in budgets], y=[series[b]["mean"][key] for b in budgets],
                    mode="lines+markers", name=label(name), legendgroup=name,
                    showlegend=c == 1 and row == 1,
                    line={"color": COLORS[name], "dash": "dot" if "random" in name else "solid"}),
                    row=row, col=c)
        fig.add_hline(y=0.9, line={"dash": "dash", "color": "black", "width": 1}, row=1, col=c)
        fig.add_hline(y=0.02, line={"dash": "dash", "color": "black", "width": 1}, row=2, col=c)
        fig.update_yaxes(range=[0, 0.3], row=2, col=c)
        fig.update_yaxes(range=[-0.1, 1.05], row=1, col=c)
        fig.update_xaxes(title_text="budget (share of the depth-10 pool judged)", row=2, col=c)
    fig.update_yaxes(title_text="Kendall τ to full labels", row=1, col=1)
    fig.update_yaxes(title_text="max |Δ nDCG@10| (cut at 0.3)", row=2, col=1)
    fig.update_layout(height=640, width=max(520 * len(reports), 700), template="plotly_white",
                      legend={"orientation": "h", "y": -0.15}, margin={"t": 60})
    return fig
