"""Two stored runs compared: config diff as YAML paths, paired tests, questions by size of
change, labels that differ said so, and the regression gate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from stored_runs import make_run

from eval.runs.run_compare import compare_runs, comparison_json, config_diff
from eval.runs.store import load_run
from eval.scoring.stats import paired_test


def test_config_diff_lists_only_changed_fields_as_yaml_paths() -> None:
    a = {"name": "hybrid", "fusion": {"k": 60, "method": "rrf"},
         "retrieval": {"retrievers": ["bm25", "dense"]}}
    b = {"name": "hybrid", "fusion": {"k": 30, "method": "rrf", "weights": {"bm25": 0.6}},
         "retrieval": {"retrievers": ["dense"]}}
    diff = {d.path: (d.baseline, d.candidate) for d in config_diff(a, b)}
    assert diff == {"fusion.k": (60, 30), "fusion.weights.bm25": ("(absent)", 0.6),
                    "retrieval.retrievers": (["bm25", "dense"], ["dense"])}
    assert config_diff(a, a) == ()


def _pair(tmp_path: Path, base: dict, cand: dict, **kw: object):
    a = make_run(tmp_path, "base", base, config={"fusion": {"k": 60}})
    b = make_run(tmp_path, "cand", cand, config={"fusion": {"k": 10}}, **kw)  # type: ignore[arg-type]
    return load_run(a), load_run(b)


def test_metric_difference_matches_the_paired_test_and_questions_sorted(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    base = {f"q{i:03d}": float(v) for i, v in enumerate(rng.random(120))}
    cand = {q: min(1.0, v + 0.15) if i % 3 else v - 0.05 for i, (q, v) in enumerate(base.items())}
    a, b = _pair(tmp_path, base, cand)
    c = compare_runs(a, b, "ndcg@10")
    m = c.metric_diff("ndcg@10")
    ref = paired_test(base, cand)
    assert m.n == 120 and abs(m.diff - ref.diff) < 1e-12
    assert m.p_value < 0.01 and ref.p_value < 0.01
    assert abs(m.ci[0] - ref.ci.low) < 0.01 and abs(m.ci[1] - ref.ci.high) < 0.01
    assert [d.path for d in c.config] == ["fusion.k"]
    assert c.setup == ()  # same commit, packages and mode
    sizes = [abs(q.delta) for q in c.better]
    assert sizes == sorted(sizes, reverse=True) and len(c.worse) == 40
    assert all(q.delta < 0 for q in c.worse) and c.not_comparable == ()
    assert c.better[0].query.startswith("question ")


def test_failed_and_missing_questions_are_left_out(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, {"q1": 0.5, "q2": 0.5, "q3": 0.1},
                 {"q1": 0.7, "q2": None, "q4": 1.0})
    c = compare_runs(a, b)
    assert c.metric_diff("ndcg@10").n == 1 and (c.only_baseline, c.only_candidate) == (1, 1)
    assert [q.qid for q in c.better] == ["q1"]


def test_different_labels_or_documents_are_said(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, {"q1": 0.5}, {"q1": 0.6}, testset_hash="relabelled",
                 data_hash="otherdoc", judgments="3 judgments")
    reasons = " | ".join(compare_runs(a, b).not_comparable)
    assert "changed (questions or labels)" in reasons and "different documents" in reasons
    assert "judgments differ" in reasons
    assert comparison_json(compare_runs(a, b))["comparable"] is False


def test_gate_fails_only_on_a_significant_drop_beyond_the_margin(tmp_path: Path) -> None:
    base = {f"q{i:02d}": 0.8 for i in range(60)}
    worse = {q: 0.6 if i % 2 else 0.8 for i, q in enumerate(base)}  # -0.1 on average
    a, b = _pair(tmp_path, base, worse)
    c = compare_runs(a, b)
    gate = c.gate(0.05)
    assert gate.failed and "REGRESSION" in gate.message and len(gate.regressed) == 30
    assert not c.gate(0.2).failed  # the drop is within this margin
    improved = compare_runs(b, a)
    assert not improved.gate(0.0).failed
    assert comparison_json(c, gate)["gate"]["regressed"][0]["delta"] < -0.05


def test_the_same_config_before_and_after_a_code_change_says_what_else_changed(
    tmp_path: Path,
) -> None:
    import json

    a = make_run(tmp_path, "hybrid", {"q1": 0.5, "q2": 0.7})
    b = make_run(tmp_path, "hybrid", {"q1": 0.6, "q2": 0.7})
    info = json.loads((b / "run.json").read_text())
    info["git_commit"], info["versions"]["numpy"] = "f" * 40, "9.9.9"
    (b / "run.json").write_text(json.dumps(info))
    c = compare_runs(load_run(a), load_run(b))
    assert c.config == ()
    assert {d.path for d in c.setup} == {"git_commit", "versions.numpy"}
