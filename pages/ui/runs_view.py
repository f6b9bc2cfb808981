"""The Runs page's history: filters, the table of stored runs (newest first, with marks for
orphaned and not comparable runs) and a metric over time with its intervals. Reading runs is
eval.runs.history; this renders."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eval.runs.history import RunRow, list_rows
from eval.runs.store import runs_dir
from pages.ui.eval_figures import PALETTE
from rag.paths import collections_root

ALL = "(all)"
SHOWN_METRICS = ("ndcg@10", "recall@100")


@st.cache_data(max_entries=4, show_spinner=False)
def _listed(root: str, stamp: tuple[int, int]) -> list[RunRow]:
    return list_rows(Path(root))


def stored_runs() -> list[RunRow]:
    """Every stored run, read again only when a run folder comes or goes (the runs folder's
    mtime) or a collection does (orphan marks)."""
    root, collections = runs_dir(), collections_root()
    return _listed(str(root), (root.stat().st_mtime_ns,
                               collections.stat().st_mtime_ns if collections.is_dir() else 0))


def _short(text: object, n: int = 8) -> str:
    return str(text or "")[:n]


def run_title(row: RunRow) -> str:
    """'2026-12-05 07:38:14 · hybrid · docs / mined · cfg 3a460d9b' — a run in pickers."""
    when = row.created[:19].replace("T", " ")
    return (f"{when} · {row.label} · {row.scope} / {row.testset.get('name')} · "
            f"cfg {row.data.get('config_hash')}")


def filters(rows: Sequence[RunRow]) -> list[RunRow]:
    """Collection, test set, preset and kind pickers; the rows they keep."""
    cols = st.columns(4)
    scopes = [ALL, *sorted({r.scope for r in rows})]
    scope = cols[0].selectbox("Collection or dataset", scopes, key="runs_scope")
    kept = [r for r in rows if scope in (ALL, r.scope)]
    sets = [ALL, *sorted({str(r.testset.get("name")) for r in kept})]
    testset = cols[1].selectbox("Test set", sets, key="runs_testset")
    kept = [r for r in kept if testset in (ALL, str(r.testset.get("name")))]
    presets = sorted({r.preset for r in kept})
    chosen = cols[2].multiselect("Preset", presets, key="runs_presets",
                                 placeholder="every preset")
    kinds = sorted({str(r.data.get("kind") or "run") for r in kept})
    shown = cols[3].multiselect("Kind", kinds, key="runs_kinds", placeholder="runs, sweeps, tunes")
    return [r for r in kept if (not chosen or r.preset in chosen)
            and (not shown or str(r.data.get("kind") or "run") in shown)]


def _ci(row: RunRow, metric: str) -> str:
    low, high = (row.data.get("ci95", {}).get(metric) or [None, None])[:2]
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def runs_frame(rows: Sequence[RunRow]) -> pd.DataFrame:
    """One line per run, the columns a lab notebook keeps."""
    out = []
    for r in rows:
        test = r.testset
        marks = [m for m, on in (("orphaned", r.orphaned), ("not comparable", not r.comparable))
                 if on]
        line: dict[str, object] = {
            "when": r.created[:19].replace("T", " "), "preset": r.label,
            "marks": ", ".join(marks), "collection / dataset": r.scope,
            "test set": test.get("name"), "labels": test.get("labels"),
        }
        for metric in SHOWN_METRICS:
            line[metric] = r.metric(metric)
            line[f"{metric} 95% CI"] = _ci(r, metric)
        line.update({
            "p50 ms": (r.data.get("latency_ms") or {}).get("p50"),
            "queries": r.data.get("n_queries"), "user": r.data.get("user") or "",
            "commit": _short(r.data.get("git_commit"), 12),
            "config hash": r.data.get("config_hash"), "data hash": _short(r.data_hash),
            "set hash": _short(test.get("hash")), "judgments": test.get("judgments") or "",
            "kind": r.data.get("kind") or "run", "why not comparable": r.why_not, "id": r.id})
        out.append(line)
    return pd.DataFrame(out)


def metric_over_time(rows: Sequence[RunRow], metric: str, title: str) -> go.Figure:
    """The metric of each run against its time, one series per preset, 95% intervals as error
    bars; runs not comparable with the newest are drawn hollow."""
    fig = go.Figure()
    series: dict[str, list[RunRow]] = {}
    for r in sorted(rows, key=lambda r: r.created):
        if r.metric(metric) is not None:
            series.setdefault(r.label, []).append(r)
    for i, (label, items) in enumerate(series.items()):
        values = [r.metric(metric) or 0.0 for r in items]
        cis = [r.data.get("ci95", {}).get(metric) or [v, v] for r, v in zip(items, values,
                                                                            strict=True)]
        fig.add_trace(go.Scatter(
            x=[datetime.fromisoformat(r.created) for r in items], y=values, name=label,
            mode="lines+markers", line={"color": PALETTE[i % len(PALETTE)]},
            marker={"size": 9, "symbol": ["circle" if r.comparable else "circle-open"
                                          for r in items]},
            error_y={"type": "data", "symmetric": False,
                     "array": [(c[1] or v) - v for c, v in zip(cis, values, strict=True)],
                     "arrayminus": [v - (c[0] or v) for c, v in zip(cis, values, strict=True)]},
            customdata=[[r.id, r.data.get("config_hash"), _short(r.data.get("git_commit"), 10)]
                        for r in items],
            hovertemplate="%{customdata[0]}<br>" + metric + " %{y:.4f}<br>config "
                          "%{customdata[1]} · commit %{customdata[2]}<extra>%{fullData.name}"
                          "</extra>"))
    fig.update_layout(title=title, height=380, yaxis_title=metric,
                      margin={"l": 10, "r": 40, "t": 50, "b": 40},
                      legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0})
    return fig


def history_chart(rows: Sequence[RunRow], metrics: Sequence[str]) -> None:
    """Pick a collection + test set and a metric; plot it over time."""
    groups = sorted({(r.scope, str(r.testset.get("name"))) for r in rows})
    if not groups:
        return
    cols = st.columns([2, 1])
    group = cols[0].selectbox("Over time: collection / test set", groups, key="runs_chart_group",
                              format_func=lambda g: f"{g[0]} / {g[1]}")
    metric = cols[1].selectbox("Metric", metrics, key="runs_chart_metric")
    chosen = [r for r in rows if (r.scope, str(r.testset.get("name"))) == group]
    st.plotly_chart(metric_over_time(chosen, metric, f"{metric} on {group[0]} / {group[1]} over "
                                     "time (95% intervals; hollow: not comparable)"),
                    width="stretch")
