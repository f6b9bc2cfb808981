"""Tables and figures of the Systems page, built from SystemRuns (no retrieval or scoring here)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from pages.ui.tables import snippet
from rag.abstain import AbstainDecision
from rag.pipeline import STAGE_ORDER
from rag.systems import FeatureMatrix, SystemRun

STATUS_COLORS = {"ok": "#2e7d32", "cache_hit": "#00838f", "fallback": "#f9a825",
                 "skipped": "#bdbdbd", "failed": "#c62828", "blocked": "#6a1b9a"}
STATUS_PATTERNS = {"fallback": "/", "failed": "x", "blocked": "x"}  # ok / cache hit: plain
# one colour per stage, in pipeline order (plotly's qualitative "Plotly" + "D3" palettes)
STAGE_COLORS = ("#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3", "#FF6692",
                "#B6E880", "#FF97FF", "#FECB52", "#1f77b4", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf")


def matrix_frame(matrix: FeatureMatrix) -> pd.DataFrame:
    return pd.DataFrame(matrix.rows())


def sources_frame(run: SystemRun) -> pd.DataFrame:
    return pd.DataFrame([{"source": s.n or "–", "title": s.title, "score": round(s.score, 4),
                          "text": snippet(s.text)} for s in run.sources])


def summary_frame(runs: Sequence[SystemRun]) -> pd.DataFrame:
    """One row per system: answered or declined (and why), grounded share, time, sources and
    usable LLM replies — the figures to compare at a glance, which five narrow columns cut off."""
    rows = []
    for run in runs:
        decision = run.trace.output(AbstainDecision)
        usable, total = _usable(run)
        rows.append({
            "system": run.preset,
            "answer": f"declined ({decision.kind})" if decision is not None and decision.abstained
                      else "answered",
            "grounded share": "–" if run.grounded_share is None else f"{run.grounded_share:.2f}",
            "total ms": round(run.trace.total_ms),
            "sources": len(run.sources),
            "LLM replies usable": f"{usable} of {total}" if total else "–",
        })
    return pd.DataFrame(rows)


def _usable(run: SystemRun) -> tuple[int, int]:
    """(usable, all) LLM replies of the run: parsed as asked or after a repair, over every one."""
    tallies = run.llm.parsers.values()
    return (sum(t.counts["ok"] + t.counts["repaired"] for t in tallies),
            sum(t.replies for t in tallies))


def llm_line(run: SystemRun) -> str:
    """The run's LLM replies in one line: how many were usable, and each parser's outcomes."""
    parsers = run.llm.parsers
    if not parsers:
        return "LLM: not called in this run (no endpoint connected, or no LLM stage on)"
    usable, total = _usable(run)
    parts = [f"{name} {', '.join(f'{n} {o}' for o, n in t.counts.items() if n)}"
             for name, t in sorted(parsers.items())]
    return f"LLM: {usable} of {total} replies usable — " + "; ".join(parts)


def llm_frame(runs: Sequence[SystemRun]) -> pd.DataFrame:
    """One row per (system, parser): replies ok / repaired / fallback and why."""
    return pd.DataFrame([{"preset": run.preset, "parser": name,
                          **{o: t.counts[o] for o in ("ok", "repaired", "fallback")},
                          "reasons": "; ".join(t.reasons)}
                         for run in runs for name, t in sorted(run.llm.parsers.items())],
                        columns=["preset", "parser", "ok", "repaired", "fallback", "reasons"])


def timeline_frame(runs: Sequence[SystemRun]) -> pd.DataFrame:
    return pd.DataFrame([row for run in runs for row in run.timeline()])


def timeline_figure(runs: Sequence[SystemRun]) -> go.Figure:
    """One horizontal bar per system, stacked by stage wall time: one colour per stage (in the
    legend), hatched when the stage fell back ("/") or failed ("x"); status and time on hover."""
    fig = go.Figure()
    shown: set[str] = set()
    for run in runs:
        for record in run.trace.records:
            if record.status == "skipped":
                continue
            color = STAGE_COLORS[STAGE_ORDER.index(record.stage) % len(STAGE_COLORS)] \
                if record.stage in STAGE_ORDER else "#777"
            fig.add_bar(y=[run.preset], x=[max(record.wall_ms, 0.05)], orientation="h",
                        name=record.stage, legendgroup=record.stage, marker_color=color,
                        marker_pattern_shape=STATUS_PATTERNS.get(record.status, ""),
                        showlegend=record.stage not in shown,
                        hovertemplate=f"{run.preset} · {record.stage}: {record.wall_ms:.1f} ms "
                                      f"({record.status})<extra></extra>")
            shown.add(record.stage)
    fig.update_layout(barmode="stack", height=140 + 40 * len(runs), xaxis_title="ms",
                      margin={"l": 10, "r": 10, "t": 30, "b": 30}, title="Stage timeline",
                      legend={"orientation": "h", "yanchor": "top", "y": -0.35, "x": 0,
                              "traceorder": "normal"},
                      modebar={"orientation": "v"})
    return fig
