"""`python -m benchmarks roofline`: FLOPs and padding counted by hand on a tiny encoder, and the
command writing whole JSON on three passages (no timing is asserted: speed lives in the JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.roofline_profile import op_seconds
from benchmarks.roofline_work import (
    EncoderShape,
    measure_work,
    onnx_batches,
    padded_work,
    reference_batches,
)

# 2 layers, hidden 4, FFN 8: per token and layer 2 * (4*4^2 + 2*4*8) = 256 dense FLOPs
TINY = EncoderShape(layers=2, hidden=4, ffn=8, heads=2)


def test_shape_is_read_from_a_bert_config(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"num_hidden_layers": 2, "hidden_size": 4, "intermediate_size": 8,
                                  "num_attention_heads": 2, "vocab_size": 99}))
    assert EncoderShape.from_config(config) == TINY


def test_flops_match_a_hand_count() -> None:
    assert TINY.dense_flops(1) == 2 * 256
    assert TINY.dense_flops(10) == 10 * 2 * 256
    # Q K^T and softmax(.) V: 2 * T^2 * h each, per layer: 4 * 3^2 * 4 * 2 layers
    assert TINY.attention_flops(3) == 288
    # the per-product shapes add up to the same dense count
    per_token = sum(2 * k * n for k, n in TINY.products().values()) * TINY.layers
    assert per_token == TINY.dense_flops(1)
    assert TINY.products()["qkv"] == (4, 12) and TINY.products()["ffn_out"] == (8, 4)


def test_reference_batches_pad_each_batch_of_the_length_sorted_texts() -> None:
    texts = ["aaaa", "a", "aa"]  # tokens 5, 2, 3
    calls = reference_batches(texts, batch_size=2)
    assert calls == [[0, 2], [1]]  # longest first, as SentenceTransformer.encode sorts
    work = padded_work(TINY, [5, 2, 3], calls)
    assert work.padded_tokens == 5 * 2 + 2  # text 2 padded from 3 to 5 tokens
    assert work.padding_share == pytest.approx(round(1 - 10 / 12, 4))
    assert work.dense_flops == 12 * 512
    assert work.attention_flops == 2 * TINY.attention_flops(5) + TINY.attention_flops(2) == 1728
    assert work.flops == 6144 + 1728 and work.mean_tokens_per_call == 6.0


def test_onnx_batches_drop_duplicates_and_cut_batches_into_slices() -> None:
    texts = ["bb", "dddd", "a", "bb", "ccc"]
    calls = onnx_batches(texts, batch_size=3, slice_size=2)
    assert calls == [[1, 4], [0], [2]]  # one "bb"; batches of 3 longest first, slices of 2
    work = measure_work(TINY, texts, [3, 5, 2, 3, 4], max_tokens=5, onnx_batch_size=3, onnx_slice=2)
    assert work.tokens == 17 and work.texts_at_limit == 1 and work.mean_tokens == 3.4
    assert work.onnx.padded_tokens == 5 * 2 + 3 + 2
    assert work.dense_flops == TINY.dense_flops(17)
    with pytest.raises(ValueError, match="one token count per text"):
        measure_work(TINY, texts, [3], max_tokens=5, onnx_batch_size=3, onnx_slice=2)


def _kernel(node: str, op: str, seconds: float, shape: list[int]) -> dict[str, object]:
    return {"cat": "Node", "name": f"{node}_kernel_time", "dur": int(seconds * 1e6),
            "args": {"op_name": op, "input_type_shape": [{"float": shape}]}}


def test_profile_kernel_times_are_summed_per_op_type_each_at_its_fastest(tmp_path: Path) -> None:
    profile = tmp_path / "profile.json"
    events = [
        {"cat": "Session", "name": "model_run", "dur": 9_000_000, "args": {}},
        _kernel("a", "Gelu", 1.5, [8, 10]), _kernel("b", "Gelu", 0.5, [8, 10]),
        _kernel("c", "MatMul", 3.0, [8, 10]), _kernel("c", "MatMul", 0.25, [1, 10]),
        {"cat": "Node", "name": "a_fence_before", "dur": 7, "args": {"op_name": "Gelu"}},
        # the second pass: a and the first c faster, b slower
        _kernel("a", "Gelu", 1.0, [8, 10]), _kernel("b", "Gelu", 0.7, [8, 10]),
        _kernel("c", "MatMul", 2.0, [8, 10]), _kernel("c", "MatMul", 0.25, [1, 10]),
    ]
    profile.write_text(json.dumps(events))
    fastest, as_run = op_seconds(profile, passes=2)
    assert fastest == {"MatMul": 2.25, "Gelu": 1.5}  # per pass: a 1.0 + b 0.5; c 2.0 + 0.25
    assert as_run == {"MatMul": 2.75, "Gelu": 1.85}
    assert list(fastest) == ["MatMul", "Gelu"]  # costliest first


@pytest.mark.slow  # loads fp32 sentence-transformers (torch) and three onnx graphs
def test_bench_roofline_writes_work_rates_ceilings_and_the_bound(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus.jsonl", tmp_path / "roofline.json"
    texts = ["apt-get install fetches a package and the packages it depends on.",
             "journalctl -u ssh shows the log of the ssh service since the last boot.", "Short."]
    corpus.write_text("".join(json.dumps({"_id": f"p{i}", "text": t}) + "\n"
                              for i, t in enumerate(texts)))
    code = main(["roofline", "--corpus", str(corpus), "--out", str(out),
                 "--embed-rounds", "1", "--ceiling-budget", "0.001"])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["texts"] == 3 and result["model"] == {"layers": 6, "hidden": 384, "ffn": 1536,
                                                        "heads": 12}
    work = result["work"]
    assert work["max_tokens"] == 256 and work["texts_at_limit"] == 0
    assert work["reference"]["padded_tokens"] >= work["tokens"] > 3 * 2
    assert work["flops"] == work["dense_flops"] + work["attention_flops"]
    paths = [a["path"] for a in result["achieved"]]
    assert paths[0].startswith("reference") and "onnx int8" in paths and "onnx int8-smooth" in paths
    assert all(a["useful_gflops"] > 0 for a in result["achieved"])
    kinds = {(c["precision"], c["threads"]) for c in result["ceilings"]}
    assert {("fp32", "2 threads"), ("int8", "2 workers x 1 thread"), ("bf16", "2 threads")} <= kinds
    assert [p["variant"] for p in result["profiles"]] == ["int8", "int8-smooth"]
    for profile in result["profiles"]:
        assert "SkipLayerNormalization" in profile["op_seconds"] and 0 < profile["other_share"] < 1
    for bound in result["bounds"]:
        assert bound["least_seconds"] == pytest.approx(
            bound["matmul_seconds_at_peak"] + bound["softmax_seconds"] + bound["other_seconds"],
            abs=0.03)
        assert bound["speedup_bound"] <= bound["matmul_only_bound"]
        assert bound["reachable"] == (bound["speedup_bound"] >= bound["target"])
        assert bound["unfused_layernorm_bound"] > 0
    assert set(result["layernorm_ns"]) == {"SkipLayerNormalization", "Add + LayerNormalization"}
    assert result["verdict"] and len(result["assumptions"]) >= 4
    assert set(result["phases"]) == {"achieved", "reference_batches", "ceilings", "profiles"}
    assert all(p["other_cores"] is None or p["other_cores"] >= 0 for p in result["phases"].values())
