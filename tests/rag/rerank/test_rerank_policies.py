"""Normalizations, score policies, threshold with fallback, top-n, over-fetch; inputs untouched."""

from __future__ import annotations

import math

import pytest
from rerank_helpers import FixedScorer, candidates

from rag.config import PresetError, config_from_dict, with_overrides
from rag.registry import UnknownStrategyError
from rag.rerank.policies import NORMALIZERS, POLICIES, divide10, minmax, sigmoid
from rag.rerank.rerank import finish, rerank, score_window
from rag.settings.rerank import RerankConfig

RAW = [-2.0, 3.0, 0.5, 1.0, -1.0, 2.0, 0.0, -3.0]  # one logit per candidate, input order


def cfg(**fields: object) -> RerankConfig:
    return RerankConfig.model_validate({"enabled": True, "top_n": 3, "overfetch": 2, **fields})


def test_sigmoid_matches_the_formula_and_keeps_order() -> None:
    values = sigmoid(RAW)
    assert values == pytest.approx([1 / (1 + math.exp(-x)) for x in RAW])
    assert sorted(range(8), key=lambda i: values[i]) == sorted(range(8), key=lambda i: RAW[i])
    assert sigmoid([1e6, -1e6]) == pytest.approx([1.0, 0.0])  # no overflow


def test_divide10_clamps_grades_and_minmax_handles_constant_lists() -> None:
    assert divide10([7, 12, -1]) == [0.7, 1.0, 0.0]
    assert minmax([2.0, 2.0]) == [1.0, 1.0]
    assert minmax([1.0, 3.0, 2.0]) == [0.0, 1.0, 0.5]
    assert minmax([]) == []


def test_replace_orders_by_rerank_score_and_records_every_score() -> None:
    result = rerank("q", candidates(), cfg(), FixedScorer(RAW))
    window = candidates()[:6]  # top_n 3 x overfetch 2
    expected = sorted(range(6), key=lambda i: -RAW[i])[:3]
    assert [c.chunk_id for c in result.after] == [window[i].chunk_id for i in expected]
    top = result.after[0]
    assert top.score == pytest.approx(sigmoid([3.0])[0])
    assert top.stage_scores["rerank_raw"] == 3.0 and top.stage_scores["passed_threshold"] == 1.0
    assert top.stage_scores["fused"] == window[1].stage_scores["fused"]  # earlier stages kept
    assert "hybrid" not in top.stage_scores
    assert result.pairs == 6 and result.pairs_per_second == pytest.approx(12.0)
    assert len(result.before) == 6 and len(result.dropped) == 3


def test_keep_policy_preserves_the_hybrid_score_beside_the_rerank_score() -> None:
    before = candidates()
    result = rerank("q", before, cfg(policy="keep"), FixedScorer(RAW))
    for candidate in result.after:
        original = next(c for c in before if c.chunk_id == candidate.chunk_id)
        assert candidate.stage_scores["hybrid"] == original.score
        assert candidate.score == candidate.stage_scores["rerank"]


def test_blend_mixes_rerank_and_prior_scores_with_the_weight() -> None:
    scorer = FixedScorer([0.0] * 8)  # rerank has no opinion: sigmoid 0.5 for everyone
    result = rerank("q", candidates(), cfg(policy="blend", blend_weight=0.25), scorer)
    assert [c.chunk_id for c in result.after] == ["c1", "c2", "c3"]  # prior order decides
    first = result.after[0]
    assert first.score == pytest.approx(0.25 * 0.5 + 0.75 * 1.0)  # prior min-max: best = 1
    assert first.stage_scores["prior_norm"] == 1.0


def test_threshold_cuts_and_falls_back_to_top_n_when_nothing_passes() -> None:
    passing = rerank("q", candidates(), cfg(threshold=0.8), FixedScorer(RAW))  # logits 3, 2 pass
    assert all(c.score >= 0.8 for c in passing.after) and len(passing.after) == 2
    assert {c.stage_scores["passed_threshold"] for c in passing.dropped} == {0.0}
    none_pass = rerank("q", candidates(), cfg(threshold=0.99), FixedScorer(RAW))
    assert none_pass.status == "fallback" and none_pass.threshold_fallback_used
    assert len(none_pass.after) == 3 and "0.99" in none_pass.reason
    strict = rerank("q", candidates(), cfg(threshold=0.99, threshold_fallback=False), FixedScorer(RAW))
    assert strict.after == () and strict.status == "ok"


def test_sliders_re_apply_policy_on_one_scored_window_without_rescoring() -> None:
    scorer = FixedScorer(RAW)
    scored = score_window("q", candidates(), cfg(), scorer, depth=8)
    for top_n in (1, 4, 8):
        assert len(finish(scored, cfg(top_n=top_n)).after) == top_n
    assert len(scorer.calls) == 1 and len(scorer.calls[0][1]) == 8


def test_inputs_are_never_mutated() -> None:
    before = candidates()
    snapshot = [(c.score, dict(c.stage_scores)) for c in before]
    for policy in POLICIES.names():
        rerank("q", before, cfg(policy=policy, threshold=0.5), FixedScorer(RAW))
    assert [(c.score, dict(c.stage_scores)) for c in before] == snapshot


@pytest.mark.parametrize("policy", POLICIES.names())
def test_every_policy_handles_empty_input_and_top_n_above_the_list(policy: str) -> None:
    assert rerank("q", (), cfg(policy=policy), FixedScorer(RAW)).after == ()
    few = candidates()[:2]
    result = rerank("q", few, cfg(policy=policy, top_n=10), FixedScorer(RAW))
    assert sorted(c.chunk_id for c in result.after) == ["c1", "c2"]


def test_a_failing_scorer_keeps_the_input_order_and_says_so() -> None:
    result = rerank("q", candidates(), cfg(), FixedScorer(RAW, fail=True))
    assert result.status == "fallback"
    assert [c.chunk_id for c in result.after] == ["c1", "c2", "c3"]
    assert "exploded" in result.reason and result.warnings


def test_llm_grades_normalize_by_ten_under_auto() -> None:
    result = rerank("q", candidates(), cfg(), FixedScorer([9, 2, 5, 7, 1, 3], "grade10"))
    assert result.normalization == "divide10"
    assert [c.score for c in result.after] == [0.9, 0.7, 0.5]


def test_unknown_names_list_the_valid_ones() -> None:
    """Names are checked when the stage runs and when a preset is loaded, not by the section."""
    with pytest.raises(ValueError, match="valid: blend, keep, replace"):
        rerank("q", candidates(), cfg(policy="average"), FixedScorer(RAW))
    with pytest.raises(PresetError, match=r"rerank: .*valid: cross_encoder, embedding, llm"):
        config_from_dict({"rerank": {"method": "colbert"}})
    with pytest.raises(PresetError, match="valid: blend, keep, replace"):
        with_overrides(config_from_dict({}), {"rerank.policy": "average"})
    with pytest.raises(UnknownStrategyError, match="divide10"):
        NORMALIZERS.get("softmax")


def test_overfetch_sets_the_window() -> None:
    assert cfg(top_n=5, overfetch=3).depth == 15  # IntelliDocs: 3 x top_k
    assert len(rerank("q", candidates(), cfg(top_n=2, overfetch=3), FixedScorer(RAW)).before) == 6
