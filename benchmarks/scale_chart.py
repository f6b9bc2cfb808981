"""The scale curve as one plotly figure: ingest time, disk, memory and hybrid latency per size."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from benchmarks.scale import ScalePoint


def scale_figure(points: Sequence[ScalePoint], title: str) -> go.Figure:
    sizes = [p.passages for p in points]
    panels = [
        ("ingest (s)", {"total": [p.ingest_seconds for p in points],
                        "embedding": [p.embed_seconds for p in points]}),
        ("on disk (MB)", {"index": [p.disk_bytes / 1e6 for p in points]}),
        ("resident memory (MB)", {"RSS": [p.rss_mb for p in points]}),
        ("hybrid query (ms)", {"p50": [p.hybrid.p50_ms for p in points],
                               "p95": [p.hybrid.p95_ms for p in points]}),
    ]  # fmt: skip
    figure = make_subplots(rows=2, cols=2, subplot_titles=[name for name, _ in panels])
    for i, (_, series) in enumerate(panels):
        row, col = divmod(i, 2)
        for name, values in series.items():
            figure.add_trace(
                go.Scatter(x=sizes, y=values, name=name, mode="lines+markers"),
                row=row + 1, col=col + 1,
            )  # fmt: skip
        figure.update_xaxes(type="log", title_text="passages", row=row + 1, col=col + 1)
    figure.update_layout(title=title, height=640, width=960, template="plotly_white")
    return figure
