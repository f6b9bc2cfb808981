"""Plotly figure builders for the pages: chunk-size histograms, rank movement, score breakdown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from rag.index import Candidate

RETRIEVER_COLORS = {"bm25": "#f59e0b", "dense": "#3b82f6", "sparse": "#10b981", "fused": "#8b5cf6"}
_FALLBACK_COLORS = ("#ef4444", "#14b8a6", "#a855f7", "#84cc16", "#64748b")


def retriever_color(name: str, index: int = 0) -> str:
    """A stable colour per retriever name; variants like "dense#q2" share their base colour."""
    return RETRIEVER_COLORS.get(name.split("#")[0], _FALLBACK_COLORS[index % len(_FALLBACK_COLORS)])


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=title, height=height, margin={"l": 10, "r": 40, "t": 40, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},
        modebar={"orientation": "v"},  # down the right edge, never over the title
    )
    return fig


def size_histogram(sizes: Mapping[str, Sequence[int]], unit: str = "characters") -> go.Figure:
    """Overlaid histograms of chunk sizes, one trace per strategy."""
    fig = go.Figure()
    for name, values in sizes.items():
        fig.add_trace(go.Histogram(x=list(values), name=name, opacity=0.6, nbinsx=30))
    fig.update_layout(barmode="overlay", xaxis_title=f"chunk size ({unit})", yaxis_title="chunks")
    return _layout(fig, f"Chunk sizes in {unit}", 320)


def rank_movement(
    ranks: Mapping[str, Mapping[str, int]],
    show: Sequence[str],
    labels: Mapping[str, str],
    cap: int,
) -> go.Figure:
    """Bump chart: one line per chunk in `show` across the ranked lists in `ranks` (list name ->
    chunk id -> 1-based rank). Ranks beyond `cap`, or absent, sit on a "> cap" floor row."""
    columns = list(ranks)
    floor = cap + 1
    fig = go.Figure()
    for chunk_id in show:
        ys = [min(ranks[col].get(chunk_id, floor), floor) for col in columns]
        true = [ranks[col].get(chunk_id) for col in columns]
        text = [f"rank {r}" if r else "not retrieved" for r in true]
        name = labels.get(chunk_id, chunk_id)
        fig.add_trace(
            go.Scatter(
                x=columns, y=ys, mode="lines+markers+text", name=name, customdata=text,
                hovertemplate="%{fullData.name}<br>%{x}: %{customdata}<extra></extra>",
                text=[""] * (len(columns) - 1) + [name],  # each line labelled at its end
                textposition="middle right", textfont={"size": 11},
                marker={"size": 9, "symbol": ["circle" if y < floor else "x" for y in ys]},
                line={"width": 2}, opacity=0.85, showlegend=False, cliponaxis=False,
            )
        )
    fig.update_xaxes(range=[-0.2, len(columns) - 1 + 0.9])  # room for the end labels
    fig.update_yaxes(
        autorange="reversed", title="rank", tickmode="array",
        tickvals=[*range(1, floor, max(1, cap // 10)), floor],
        ticktext=[*map(str, range(1, floor, max(1, cap // 10))), f"> {cap}"],
    )
    return _layout(fig, "How candidates moved between lists", 420)


def score_breakdown(
    candidates: Sequence[Candidate], labels: Mapping[str, str], threshold: float | None = None
) -> go.Figure:
    """Stacked bars of each fused candidate's per-retriever contributions; the threshold as a line."""
    x = [f"#{i}" for i in range(1, len(candidates) + 1)]  # fused rank; the chunk is in the hover
    names = [labels.get(c.chunk_id, c.chunk_id) for c in candidates]
    retrievers = list(dict.fromkeys(r for c in candidates for r in c.contributions))
    fig = go.Figure()
    for i, name in enumerate(retrievers):
        fig.add_trace(
            go.Bar(
                x=x, y=[c.contributions.get(name, 0.0) for c in candidates], name=name,
                marker_color=retriever_color(name, i), customdata=names,
                hovertemplate=f"%{{customdata}}<br>{name}: %{{y:.4f}}<extra></extra>",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=x, y=[c.score for c in candidates], mode="markers", name="fused score",
            marker={"symbol": "line-ew-open", "size": 18, "color": "black"}, customdata=names,
            hovertemplate="%{customdata}<br>fused: %{y:.4f}<extra></extra>",
        )
    )
    if threshold is not None:
        fig.add_hline(
            y=threshold, line_dash="dash", line_color="#dc2626",
            annotation_text=f"threshold {threshold:g}", annotation_position="top left",
        )
    fig.update_layout(barmode="stack", yaxis_title="score", xaxis={"type": "category",
                                                                    "title": "fused rank"})
    return _layout(fig, "Fused score by retriever", 380)
