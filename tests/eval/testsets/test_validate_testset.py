"""Testset validation: agreement statistics, bootstrap intervals, split-half τ and pool bias on
hand-made runs, and the validate-testset command end to end on the bundled samples (hashing
embedder: the wiring is tested, not retrieval quality)."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from eval.cli import main as eval_main
from eval.data.evalsets import EvalSet
from eval.data.qa import QAItem, QASet, Span
from eval.data.shapes import BeirDataset
from eval.testsets.validate import (
    SystemRun,
    agreement,
    bootstrap_agreement,
    pool_bias,
    pooled_qrels,
    shuffled_labels_null,
    sibling_set,
    split_half_tau,
)
from rag.chunking.base import Chunk
from rag.paths import PROJECT_ROOT


def test_agreement_of_identical_and_reversed_rankings() -> None:
    a = [0.1, 0.2, 0.3, 0.4, 0.5]
    assert agreement(a, a)["kendall_tau"] == pytest.approx(1.0)
    reverse = agreement(a, a[::-1])
    assert reverse["kendall_tau"] == pytest.approx(-1.0) and reverse["spearman"] == pytest.approx(-1.0)


def test_bootstrap_interval_is_narrow_for_clear_differences_and_wide_for_noise() -> None:
    rng = np.random.default_rng(0)
    clear = np.array([[level] * 40 for level in (0.1, 0.3, 0.5, 0.7, 0.9)]) + rng.normal(0, 0.01, (5, 40))
    ci = bootstrap_agreement(clear, clear.copy(), 200)["kendall_tau"]
    assert ci[0] == pytest.approx(1.0)
    noise = rng.uniform(0, 1, (5, 40))
    lo, hi = bootstrap_agreement(noise, rng.uniform(0, 1, (5, 40)), 200)["kendall_tau"]
    assert lo < 0 < hi
    assert split_half_tau(clear, 50)["mean"] == pytest.approx(1.0)
    assert split_half_tau(noise, 50)["mean"] < 0.5


def _doc_set() -> EvalSet:
    corpus = {d: {"title": "", "text": d} for d in "abcdef"}
    return EvalSet(BeirDataset("t", corpus, {"q1": "x", "q2": "y"},
                               {"q1": {"a": 1, "f": 1}, "q2": {"b": 1}}, "h", ""))


def _run(results: dict[str, list[str]], chunks: dict[str, Chunk] | None = None) -> SystemRun:
    ranked = {q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in results.items()}
    return SystemRun(ranked, {}, chunks or {})


def test_pooling_keeps_only_judgments_a_system_brought_up() -> None:
    evalset = _doc_set()
    runs = {"s1": _run({"q1": ["a", "b"], "q2": ["c"]}), "s2": _run({"q1": ["f"], "q2": ["b"]})}
    assert pooled_qrels(evalset, runs, ["s1"], runs["s1"], depth=10) == {"q1": {"a": 1}, "q2": {}}
    assert pooled_qrels(evalset, runs, ["s1", "s2"], runs["s1"], depth=10) == evalset.dataset.qrels
    report = pool_bias(evalset, runs, depth=10)
    s2 = report["per_system"]["s2"]
    # s2 alone found f (q1) and b (q2): judged by s1's pool only, q2 has nothing relevant (dropped)
    # and q1's only pooled relevant passage (a) is not in s2's list
    assert s2["full"] > 0 and s2["pool_leave_one_out"] == 0 and s2["queries_pool_leave_one_out"] == 1
    assert s2["pool_all"] == s2["full"]


def test_shuffled_labels_null_sits_below_a_set_whose_labels_match_its_questions() -> None:
    queries = {f"q{i}": "x" for i in range(8)}
    corpus = {f"d{i}": {"title": "", "text": "x"} for i in range(8)}
    evalset = EvalSet(BeirDataset("t", corpus, queries, {f"q{i}": {f"d{i}": 1} for i in range(8)}, "h", ""))
    # system k finds the right document first for the first 2k queries, else a wrong one
    runs = {f"s{k}": _run({f"q{i}": [f"d{i}" if i < 2 * k else f"d{(i + 1) % 8}"] for i in range(8)})
            for k in range(4)}
    truth = [0.0, 0.25, 0.5, 0.75]
    null = shuffled_labels_null(evalset, runs, truth, n_shuffles=100)
    assert null["shuffles"] > 50 and null["mean"] < 0.5 and null["p95"] < 1.0


def test_span_pooling_finds_a_span_through_an_overlapping_passage() -> None:
    spans = {"q1": (Span("d.txt", 100, 150),), "q2": (Span("d.txt", 400, 420),)}
    evalset = EvalSet(BeirDataset("t", {"d.txt": {"title": "", "text": "x" * 500}}, {"q1": "x", "q2": "y"},
                                  {"q1": {"d.txt": 1}, "q2": {"d.txt": 1}}, "h", ""), MappingProxyType(spans))
    chunks = {f"c{i}": Chunk(f"c{i}", "d.txt", i * 100, i * 100 + 100, "x" * 100) for i in range(5)}
    runs = {"s1": _run({"q1": ["c1"], "q2": ["c0"]}, chunks)}
    assert pooled_qrels(evalset, runs, ["s1"], runs["s1"]) == {"q1": {"c1": 1}, "q2": {}}


def test_a_generated_set_keeps_the_human_sets_corpus_and_unit() -> None:
    human = _doc_set()
    qa = QASet("g", (QAItem("g1", "what?", spans=(Span("c", 0, 1),)),
                     QAItem("g2", "no?", answerable=False)), "g.jsonl")
    generated = sibling_set(human, qa)
    assert generated.unit == "document" and generated.dataset.qrels == {"g1": {"c": 1}}
    assert generated.dataset.queries == {"g1": "what?"}
    assert generated.dataset.content_hash == human.dataset.content_hash  # one collection for both
    with pytest.raises(ValueError, match="not in the corpus"):
        sibling_set(human, QASet("g", (QAItem("g1", "q?", doc_ids=("zzz",)),), "g.jsonl"))


@pytest.mark.slow
def test_validate_testset_command_on_the_samples(tmp_path: Path, hashing_presets: None) -> None:
    human = PROJECT_ROOT / "datasets" / "qa_samples.jsonl"
    rows = [json.loads(line) for line in human.read_text().splitlines()][:8]
    generated = tmp_path / "gen.jsonl"
    generated.write_text("".join(json.dumps(r) + "\n" for r in rows))
    two = tmp_path / "two.jsonl"
    two.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]))
    out = tmp_path / "v.json"
    code = eval_main(["validate-testset", "--corpus", str(PROJECT_ROOT / "datasets" / "samples"),
                      "--human", str(human), "--generated", f"first8={generated}",
                      "--generated", f"two={two}", "--system", "bm25",
                      "--system", "dense", "--system", "hybrid", "--resamples", "20", "--out", str(out),
                      "--cache", str(tmp_path / "runs")])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["sets"]["human"]["queries"] == 24 and report["sets"]["first8"]["queries"] == 8
    assert set(report["sets"]["first8"]["ndcg@10"]) == {"bm25", "dense", "hybrid"}
    agree = report["agreement"]["first8"]
    assert -1 <= agree["kendall_tau"] <= 1 and len(agree["ci95"]["kendall_tau"]) == 2
    assert set(report["pool_bias"]["per_system"]) == {"bm25", "dense", "hybrid"}
    assert "too few" in report["sets"]["two"]["skipped"] and "two" not in report["agreement"]
    # which pairs each set separates, in words (issue 36): 3 systems, 3 pairs
    separated = report["sets"]["first8"]["separation"]
    assert len(separated["pairs"]) == 3 and separated["questions"] == 8
    assert "tied within noise" in separated["words"] or "separates" in separated["words"]
    # each system's run on each scored set is kept, so an interrupted validation resumes
    assert len(list((tmp_path / "runs").glob("*.json"))) == 3 * 2
