"""benchmarks/parity_paired.py compares each pair of runs per preset and metric as b − a, on the
queries both scored, and writes its command with the comparisons."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import parity_paired


def _perquery(path: Path, ndcg: dict[str, float]) -> str:
    rows = [{"preset": "dense", "qid": qid, "metrics": {"ndcg@10": v, "recall@100": 1.0,
                                                        "mrr@10": v}} for qid, v in ndcg.items()]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return str(path)


def test_each_pair_is_compared_as_b_minus_a(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _perquery(tmp_path / "a.jsonl", {"q1": 0.5, "q2": 0.25, "q3": 1.0})
    b = _perquery(tmp_path / "b.jsonl", {"q1": 0.75, "q2": 0.25, "q3": 0.5, "q4": 1.0})
    out = tmp_path / "paired.json"
    monkeypatch.setattr(sys, "argv", ["parity_paired", "--out", str(out), f"old={a}", f"new={b}"])
    parity_paired.main()
    result = json.loads(out.read_text(encoding="utf-8"))
    assert "benchmarks/parity_paired.py" in result["command"] and f"new={b}" in result["command"]
    ndcg = next(r for r in result["comparisons"] if r["metric"] == "ndcg@10")
    assert (ndcg["a"], ndcg["b"], ndcg["n"]) == ("old", "new", 3)  # q4: only one run scored it
    assert ndcg["b_minus_a"] == pytest.approx((0.25 + 0 - 0.5) / 3, abs=1e-4)
    assert (ndcg["wins"], ndcg["losses"]) == (1, 1)
    recall = next(r for r in result["comparisons"] if r["metric"] == "recall@100")
    assert recall["b_minus_a"] == 0.0
