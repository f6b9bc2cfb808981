"""The bm25 and dense presets agree with plain rank-bm25 / sentence-transformers on the sample,
over their own chunks and, with whole-passage chunking, over the raw passages."""

from __future__ import annotations

import pytest

from eval.data.beir import load_beir
from eval.diagnostics.reference import Against, check
from rag.paths import PROJECT_ROOT

WHOLE = {"chunking.strategy": "whole", "chunking.params": {}}
# the fp32 graph: this checks the pipeline's chunking and search against the reference; what an
# int8 graph the CPU check accepts costs is its own test (tests/rag/embed/test_cpu_check.py), and
# which graph `auto` picks differs between processors
FP32 = {"embedding.onnx_variant": "fp32"}


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides", "against"), [
    ("bm25", {}, "chunks"), ("dense", FP32, "chunks"), ("bm25", WHOLE, "passages")])
def test_preset_matches_reference(
    preset: str, overrides: dict[str, object], against: Against
) -> None:
    agreement = check(load_beir(PROJECT_ROOT / "datasets" / "beir_sample"), preset, overrides,
                      against)
    assert agreement.tolerance == 0.005
    assert agreement.reference_ndcg10 > 0.5  # the reference itself retrieves something real
    assert agreement.ok, agreement
