"""Plotly figures of the Evaluate page and the notebooks: sweep curves with CI bands, per-query
wins and losses of two runs, and ceiling diagnostics."""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from eval.diagnostics.ceiling_report import ANY, CeilingReport
from eval.runs.evalset_runner import ScoredRun
from eval.runs.sweep import SweepPoint
from eval.scoring.compare import QueryDelta
from pages.ui.figures import retriever_color

# outcome -> (legend name, colour)
OUTCOMES = {"win": ("wins", "#16a34a"), "loss": ("losses", "#dc2626"), "tie": ("ties", "#94a3b8")}
LINE = "#3b82f6"
PALETTE = ("#3b82f6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#64748b")


def _layout(fig: go.Figure, title: str, height: int = 380) -> go.Figure:
    fig.update_layout(title=title, height=height, margin={"l": 10, "r": 40, "t": 50, "b": 40},
                      legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0},
                      modebar={"orientation": "v"})  # down the right edge, never over a title
    return fig


def log_ticks(values: Sequence[float]) -> dict[str, object]:
    """A log axis labelled at the values plotted, written out in full (1, 5, 20, 200 — never a
    bare "2" that could be 20 or 200)."""
    ticks = sorted({float(v) for v in values if v > 0})
    return {"type": "log", "tickmode": "array", "tickvals": ticks,
            "ticktext": [f"{v:g}" for v in ticks]}


def _band(hex_color: str, alpha: float = 0.18) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _value_label(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:g}" if _is_number(v) else f"{k} {v}" for k, v in value.items())
    return str(value)


def sweep_curves(
    points: Sequence[SweepPoint], key: str, metric: str, series: str | None = None
) -> go.Figure:
    """The metric at each value of field `key`, one curve per value of field `series`, with the
    95% bootstrap CI as a band (numeric values; log x when they span a factor of 20 or more) or
    as error bars (other values, e.g. weight dicts)."""
    groups: dict[str, list[SweepPoint]] = {}
    for point in points:
        label = _value_label(point.overrides[series]) if series else metric
        groups.setdefault(label, []).append(point)
    values = [p.overrides[key] for p in points]
    numeric = all(_is_number(v) for v in values)
    fig = go.Figure()
    for i, (label, members) in enumerate(groups.items()):
        color = PALETTE[i % len(PALETTE)]
        summaries = [p.run.summary for p in members]
        means = [s.metrics[metric] for s in summaries]
        lows, highs = ([s.ci95[metric][j] for s in summaries] for j in (0, 1))
        x = [m.overrides[key] if numeric else _value_label(m.overrides[key]) for m in members]
        if numeric:
            fig.add_trace(go.Scatter(x=x + x[::-1], y=highs + lows[::-1], fill="toself",
                                     fillcolor=_band(color), line={"width": 0},
                                     hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(
            x=x, y=means, mode="lines+markers" if numeric else "markers", name=label,
            line={"color": color}, marker={"size": 8},
            error_y=None if numeric else {
                "type": "data", "symmetric": False,
                "array": [h - m for h, m in zip(highs, means, strict=True)],
                "arrayminus": [m - lo for lo, m in zip(lows, means, strict=True)]},
            hovertemplate=f"{key}=%{{x}}<br>{metric} %{{y:.4f}}<extra>{label}</extra>",
        ))
    if numeric and min(values) > 0 and max(values) / min(values) >= 20:
        fig.update_xaxes(**log_ticks(values))
    elif not numeric:
        fig.update_xaxes(type="category")
    fig.update_layout(xaxis_title=key, yaxis_title=metric)
    return _layout(fig, f"{metric} over {key} (bands: 95% bootstrap CI)")


def metric_intervals(runs: Sequence[ScoredRun], metric: str) -> go.Figure:
    """Each run's metric with its 95% CI as error bars (CIs from the same resamples: paired)."""
    means = [r.run.summary.metrics[metric] for r in runs]
    ci = [r.run.summary.ci95[metric] for r in runs]
    fig = go.Figure(go.Scatter(
        x=[r.label for r in runs], y=means, mode="markers", marker={"size": 11, "color": LINE},
        error_y={"type": "data", "symmetric": False,
                 "array": [hi - m for (_, hi), m in zip(ci, means, strict=True)],
                 "arrayminus": [m - lo for (lo, _), m in zip(ci, means, strict=True)]},
        name=metric,
    ))
    fig.update_layout(yaxis_title=metric, xaxis={"type": "category"})
    return _layout(fig, f"{metric} per run (95% bootstrap CI)", 340)


def wins_losses(deltas: Sequence[QueryDelta], name_a: str, name_b: str, metric: str) -> go.Figure:
    """One dot per query at (A's value, B's value): above the diagonal B wins, below it loses."""
    fig = go.Figure()
    whose = {"win": f"{name_b} better", "loss": f"{name_a} better", "tie": "tied"}
    for outcome, (_, color) in OUTCOMES.items():
        rows = [d for d in deltas if d.outcome == outcome]
        fig.add_trace(go.Scatter(
            x=[d.a for d in rows], y=[d.b for d in rows], mode="markers",
            name=f"{whose[outcome]} ({len(rows)})", marker={"color": color, "size": 9, "opacity": 0.8},
            customdata=[[d.qid, d.query[:80]] for d in rows],
            hovertemplate="%{customdata[0]}: %{customdata[1]}<br>"
                          f"{name_a} %{{x:.3f}} → {name_b} %{{y:.3f}}<extra></extra>",
        ))
    values = [v for d in deltas for v in (d.a, d.b) if math.isfinite(v)]
    top = max([1.0, *values])
    fig.add_shape(type="line", x0=0, y0=0, x1=top, y1=top, line={"dash": "dot", "color": "grey"})
    fig.update_layout(xaxis_title=f"{name_a} {metric}", yaxis_title=f"{name_b} {metric}")
    return _layout(fig, f"Per query: {name_b} vs {name_a} on {metric}", 420)


def ceiling_chart(report: CeilingReport) -> go.Figure:
    """Left: recall at depth of each retriever's list and of their union, and (a diamond at the
    configuration's depth) what its post-steps kept. Right: the run's nDCG@k beside the nDCG@k
    an oracle reranker reaches on the same final candidates."""
    c = report.ceiling
    fig = make_subplots(rows=1, cols=2, column_widths=[0.65, 0.35], subplot_titles=(
        "Relevant found within depth (recall)", f"nDCG@{c.k}: actual vs oracle reranker"))
    for i, (name, by_depth) in enumerate(report.recall.items()):
        union = name == ANY
        fig.add_trace(go.Scatter(
            x=list(by_depth), y=list(by_depth.values()), mode="lines+markers", name=name,
            line={"width": 3 if union else 1.5, "dash": "solid" if union else "dot",
                  "color": "black" if union else retriever_color(name, i)},
        ), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=[report.pool_depth], y=[report.final_recall], mode="markers", name="kept by post-steps",
        marker={"symbol": "diamond", "size": 12, "color": "#dc2626"},
    ), row=1, col=1)
    fig.add_trace(go.Bar(x=["actual", "oracle"], y=[c.actual_ndcg, c.oracle_ndcg],
                         marker_color=["#3b82f6", "#a5b4fc"], name=f"nDCG@{c.k}",
                         text=[f"{c.actual_ndcg:.3f}", f"{c.oracle_ndcg:.3f}"],
                         textposition="outside", showlegend=False), row=1, col=2)
    depths = [d for by_depth in report.recall.values() for d in by_depth]
    fig.update_xaxes(**log_ticks([*depths, report.pool_depth]), title="depth (list positions)",
                     row=1, col=1)
    fig.update_yaxes(range=[0, 1.1])
    return _layout(fig, f"Ceilings of {report.label} over {c.n_queries} queries", 400)
