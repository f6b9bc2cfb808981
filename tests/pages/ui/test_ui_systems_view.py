"""The Systems stage timeline: one colour per stage with a legend, status as hatching."""

from __future__ import annotations

from types import SimpleNamespace

from pages.ui.systems_view import STATUS_PATTERNS, timeline_figure
from rag.trace import StageRecord, Trace


def _run(preset: str, records: list[StageRecord]) -> SimpleNamespace:
    return SimpleNamespace(preset=preset, trace=Trace("q", preset, records))


def test_each_stage_has_one_colour_and_one_legend_entry_and_no_inside_text() -> None:
    ok = [StageRecord("retrieve", wall_ms=5), StageRecord("fuse", wall_ms=1)]
    runs = [_run("a", ok), _run("b", [StageRecord("retrieve", "failed", wall_ms=2),
                                      StageRecord("rerank", "skipped")])]
    fig = timeline_figure(runs)  # type: ignore[arg-type]  (the figure reads preset and trace)
    colours = {}
    for bar in fig.data:
        colours.setdefault(bar.name, set()).add(bar.marker.color)
        assert bar.text is None
    assert all(len(c) == 1 for c in colours.values()) and len(set().union(*colours.values())) == 2
    assert [b.name for b in fig.data if b.showlegend] == ["retrieve", "fuse"]
    failed = next(b for b in fig.data if b.y == ("b",))
    assert failed.marker.pattern.shape == STATUS_PATTERNS["failed"]
    assert "rerank" not in colours  # skipped stages take no time and get no bar
