"""Sweeps: grid parsing, and re-scoring cached lists reproduces a plain run without searching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main
from eval.data.beir import load_beir
from eval.runs.beir_index import make_searcher
from eval.runs.candidates import truncate
from eval.runs.preset_run import run_preset
from eval.runs.sweep import GridAxis, grid_points, parse_grid, point_config, run_sweep, scores_only
from rag.chunking.base import Chunk
from rag.config import load_preset, with_overrides
from rag.index.hits import Candidate, RankedList
from rag.paths import PROJECT_ROOT

SAMPLE = PROJECT_ROOT / "datasets" / "beir_sample"
METRICS = ["ndcg@10", "recall@100"]


def test_parse_grid_keeps_braces_and_lists_whole() -> None:
    axes = parse_grid(["fusion.k=1, 5,60",
                       "fusion.weights={bm25: 0.6, dense: 0.4},{bm25: 0.4, dense: 0.6}",
                       "retrieval.retrievers=[bm25],[bm25, dense]"])
    assert axes[0] == GridAxis("fusion.k", (1, 5, 60))
    assert axes[1].values == ({"bm25": 0.6, "dense": 0.4}, {"bm25": 0.4, "dense": 0.6})
    assert axes[2].values == (["bm25"], ["bm25", "dense"])
    assert len(grid_points(axes)) == 12
    assert grid_points([]) == [{}]


@pytest.mark.parametrize("bad", ["fusion.k", "=1,2", "fusion.k="])
def test_parse_grid_rejects_malformed_items(bad: str) -> None:
    with pytest.raises(ValueError, match="key=value1"):
        parse_grid([bad])


def test_parse_grid_rejects_repeated_field() -> None:
    with pytest.raises(ValueError, match="twice"):
        parse_grid(["fusion.k=1", "fusion.k=2"])


def test_truncate_returns_new_lists() -> None:
    chunk = Chunk("c", "d", 0, 1, "x")
    lists = {"bm25": RankedList("bm25", tuple(Candidate(chunk, float(s)) for s in range(5)))}
    cut = truncate(lists, 2)
    assert len(cut["bm25"].candidates) == 2 and len(lists["bm25"].candidates) == 5


@pytest.mark.slow
def test_sweep_rescoring_matches_a_plain_run_and_reuses_lists(tmp_path: Path) -> None:
    dataset = load_beir(SAMPLE)
    base = load_preset("hybrid")
    axes = parse_grid(["fusion.k=1,60", "retrieval.depth=5,100"])
    result = run_sweep(dataset, base, axes, METRICS, n_resamples=100, use_cache=False)
    assert [dict(p.overrides) for p in result.points] == grid_points(axes)

    plain = run_preset(dataset, "hybrid", make_searcher(dataset, base), METRICS, 100)
    same = next(p.run for p in result.points if p.overrides == {"fusion.k": 60,
                                                                 "retrieval.depth": 100})
    for key in METRICS:
        assert same.scores[key].values == pytest.approx(plain.scores[key].values)
    shallow = next(p.run for p in result.points if p.overrides == {"fusion.k": 60,
                                                                    "retrieval.depth": 5})
    assert shallow.summary.metrics["recall@100"] < same.summary.metrics["recall@100"]

    out = tmp_path / "sweep"
    argv = ["sweep", "--dataset", str(SAMPLE), "--preset", "hybrid", "--grid", "fusion.k=1,60",
            "--grid", "retrieval.depth=5,100", "--metrics", *METRICS, "--resamples", "100",
            "--out", str(out), "--runs-dir", str(tmp_path / "runs")]
    assert main(argv) == 0  # first CLI sweep fills the disk cache
    assert main(argv) == 0
    payload = json.loads((out / "sweep.json").read_text())
    assert payload["timing_s"]["lists_from_cache"] is True
    assert len(payload["points"]) == 4
    by_point = {json.dumps(p["overrides"], sort_keys=True): p for p in payload["points"]}
    cli_same = by_point[json.dumps({"fusion.k": 60, "retrieval.depth": 100}, sort_keys=True)]
    assert cli_same["metrics"]["ndcg@10"] == pytest.approx(plain.summary.metrics["ndcg@10"])
    assert len((out / "perquery.jsonl").read_text().splitlines()) == 4 * 20
    # every point of both sweeps is a stored run, grouped by sweep
    from eval.runs.history import list_rows

    stored = list_rows(tmp_path / "runs")
    assert len(stored) == 8 and {r.data["kind"] for r in stored} == {"sweep"}
    assert len({r.data["group"] for r in stored}) == 2
    assert "hybrid fusion.k=60 retrieval.depth=100" in {r.label for r in stored}


@pytest.mark.slow
def test_scores_only_points_equal_plain_runs_of_their_configs() -> None:
    """Points re-scored without the tail's stages (eval.runs.sweep.scores_only) score exactly
    what a plain run of the same config scores, query by query, CIs included."""
    dataset = load_beir(SAMPLE)
    base = load_preset("hybrid")
    axes = parse_grid(["fusion.method=rrf,weighted_rrf", "fusion.k=1,30",
                       "fusion.weights={bm25: 0.2, dense: 0.8}", "retrieval.depth=20"])
    result = run_sweep(dataset, base, axes, METRICS, n_resamples=50, use_cache=False)
    for point in result.points:
        config = with_overrides(base, dict(point.overrides))
        assert scores_only(point_config(base, point.overrides, dataset))
        plain = run_preset(dataset, "x", make_searcher(dataset, config), METRICS, 50)
        for key in METRICS:
            assert point.run.scores[key].values == plain.scores[key].values, point.overrides
        assert point.run.summary.ci95 == plain.summary.ci95
        assert [o.ranking for o in point.run.outcomes] == [o.ranking for o in plain.outcomes]
    by_k = {(p.overrides["fusion.method"], p.overrides["fusion.k"]): p.run for p in result.points}
    assert by_k["rrf", 1].outcomes != by_k["weighted_rrf", 1].outcomes  # the weights count
