"""The hybrid_rerank preset: a missing model folder skips the stage with the setting to change,
and a relative `rerank.model` resolves against the project root whatever the working directory."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rerank_helpers import TEXTS, candidates
from tiny_cross_encoder import build_tiny_cross_encoder

from rag.config import load_preset, with_overrides
from rag.pipeline import StageEnv, initial_state
from rag.rerank import build_scorer, cross_encoder
from rag.rerank.base import RerankResult
from rag.rerank.cross_encoder import resolve_model
from rag.rerank.rerank import rerank
from rag.rerank.stage import run_rerank

QUERY = "what happens when two devices change the same paragraph"


def test_preset_with_a_missing_model_folder_skips_the_stage_and_keeps_the_ranking(
    tmp_path: Path,
) -> None:
    config = with_overrides(load_preset("hybrid_rerank"),
                            {"rerank.model": str(tmp_path / "cross_encoder_debian")})
    assert config.rerank.enabled and config.rerank.depth == 30 and config.rerank.top_n == 10
    state = replace(initial_state(QUERY, config), candidates=candidates())
    result = run_rerank(state, StageEnv(config))
    assert result.status == "skipped"
    assert "rerank.model" in result.reason and "could not be loaded" in result.reason
    assert result.state.candidates == candidates()  # skipped: the ranking stays as it was
    output = result.output
    assert isinstance(output, RerankResult) and output.status == "skipped"
    assert output.pairs == 0 and result.warnings == (result.reason,)
    assert output.candidates == output.before == candidates()  # fewer than the 30-wide window


def test_relative_model_resolves_against_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    build_tiny_cross_encoder(root / "models" / "tiny", [*TEXTS, QUERY])
    elsewhere.mkdir()
    monkeypatch.setattr(cross_encoder, "PROJECT_ROOT", root)
    monkeypatch.chdir(elsewhere)  # the relative path does not exist from here
    assert resolve_model("models/tiny") == str(root / "models" / "tiny")
    assert resolve_model("cross-encoder/ms-marco-MiniLM-L-6-v2") == (
        "cross-encoder/ms-marco-MiniLM-L-6-v2")  # not a folder under the root: a hub name
    cfg = load_preset("hybrid_rerank").rerank.model_copy(update={"model": "models/tiny"})
    assert build_scorer(cfg).model == str(root / "models" / "tiny")
    result = rerank(QUERY, candidates(), cfg)
    assert result.status == "ok" and result.pairs == len(TEXTS) and len(result.after) == 8
