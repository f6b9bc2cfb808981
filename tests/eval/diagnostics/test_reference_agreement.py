"""The bm25 and dense presets agree with plain rank-bm25 / sentence-transformers on the sample,
over their own chunks and, with whole-passage chunking, over the raw passages."""

from __future__ import annotations

import pytest

from eval.data.beir import load_beir
from eval.diagnostics.reference import Against, check
from rag.paths import PROJECT_ROOT

WHOLE = {"chunking.strategy": "whole", "chunking.params": {}}


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides", "against"), [
    ("bm25", {}, "chunks"), ("dense", {}, "chunks"), ("bm25", WHOLE, "passages")])
def test_preset_matches_reference(
    preset: str, overrides: dict[str, object], against: Against
) -> None:
    agreement = check(load_beir(PROJECT_ROOT / "datasets" / "beir_sample"), preset, overrides,
                      against)
    assert agreement.tolerance == 0.005
    assert agreement.reference_ndcg10 > 0.5  # the reference itself retrieves something real
    assert agreement.ok, agreement
