"""The bm25 and dense presets agree with plain rank-bm25 / sentence-transformers on the sample."""

from __future__ import annotations

import pytest

from eval.data.beir import load_beir
from eval.diagnostics.reference import check
from rag.paths import PROJECT_ROOT


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "tolerance"), [("bm25", 0.01), ("dense", 0.005)])
def test_preset_matches_reference(preset: str, tolerance: float) -> None:
    agreement = check(load_beir(PROJECT_ROOT / "datasets" / "beir_sample"), preset)
    assert agreement.tolerance == tolerance
    assert agreement.reference_ndcg10 > 0.5  # the reference itself retrieves something real
    assert agreement.ok, agreement
