"""Evaluate page, Tune mode: pick a set, preset and space, run it with progress, read the
out-of-fold result beside the in-sample one and the per-fold choices, save the tuned preset and
find it in the preset lists (hashing embedder, the 20-query BEIR sample)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag.config import available_presets, load_preset

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "evaluate.py")


@pytest.mark.usefixtures("hashing_presets")
def test_tune_mode_reports_out_of_fold_beside_in_sample_and_saves_the_preset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.selectbox(key="eval_dataset").select("beir_sample (BEIR)").run()
    at.radio(key="eval_mode").set_value("Tune (cross-validated)").run()
    assert not at.exception, at.exception
    at.selectbox(key="eval_tune_space").select("rrf_grid").run()
    assert any("`fusion.k`" in c.value for c in at.caption)
    at.number_input(key="eval_tune_folds").set_value(3)
    at.number_input(key="eval_tune_trials").set_value(4).run()
    assert not at.dataframe  # nothing tuned yet
    at.button(key="eval_tune_run").click().run()
    assert not at.exception, at.exception

    shown = {m.label: float(m.value) for m in at.metric}
    oof, in_sample = shown["Out-of-fold ndcg@10"], shown["In-sample best ndcg@10"]
    assert 0 < oof <= 1 and 0 < in_sample <= 1
    assert shown["Optimism (in-sample − out-of-fold)"] == pytest.approx(in_sample - oof, abs=1e-4)
    folds = at.dataframe[0].value
    assert list(folds["fold"]) == [0, 1, 2] and folds["held-out queries"].sum() == 20
    assert {"fusion.k", "retrieval.depth"} <= set(folds.columns)
    tests = at.dataframe[1].value
    assert {t.split()[0] for t in tests["against"]} == {"default", "bm25", "dense"}

    at.button(key="eval_tune_save").click().run()
    assert not at.exception, at.exception
    assert any("hybrid-tuned" in s.value for s in at.success)
    assert "hybrid-tuned" in available_presets()
    tuned = load_preset("hybrid-tuned")
    assert tuned.fusion.k in (1, 5, 20, 60) and tuned.retrieval.depth in (20, 50, 100)

