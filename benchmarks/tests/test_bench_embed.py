"""`python -m benchmarks embed`: the preset's embedder and raw fp32 encode on the same passages.

No timing is asserted (speed lives in the benchmark's JSON); the test checks the JSON is whole,
consistent, and that the fast path embeds the same texts into (nearly) the same vectors.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main

TEXTS = [
    "apt-get install fetches a package and the packages it depends on.",
    "journalctl -u ssh shows the log of the ssh service.",
    "dpkg-reconfigure asks the configuration questions of an installed package again.",
    "A short one.",
]


@pytest.mark.slow  # loads fp32 sentence-transformers (torch) as the reference
def test_bench_embed_writes_both_rates_and_their_ratio(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus.jsonl", tmp_path / "embed.json"
    corpus.write_text("".join(json.dumps({"_id": f"p{i}", "text": t}) + "\n"
                              for i, t in enumerate(TEXTS)))
    preset = tmp_path / "fast.yaml"
    preset.write_text("name: fast\nextends: hybrid\nembedding:\n  backend: onnx\n")
    code = main(["embed", "--corpus", str(corpus), "--out", str(out),
                 "--preset", str(preset), "--embed-texts", "3", "--embed-rounds", "1",
                 "--embed-variants", "int8-weights"])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["texts"] == 3 and result["fast_model_id"].startswith("onnx:all-MiniLM-L6-v2")
    (variant,) = result["variants"]
    assert variant["onnx_variant"] == "int8-weights"
    assert variant["model_id"] == "onnx:all-MiniLM-L6-v2-int8" != result["fast_model_id"]
    assert 0.99 < variant["min_cosine"] and variant["cpu_seconds"] > 0
    assert result["ratio"] == pytest.approx(
        result["fast_texts_per_s"] / result["reference_texts_per_s"], rel=0.02
    )
    assert 0.99 < result["min_cosine"] <= result["mean_cosine"] <= 1.0001
    assert len(result["load_average"]) == 3 and result["cpu_count"] >= 1
    assert result["reference_cpu_seconds"] > 0 and result["cpu_ratio"] > 0
