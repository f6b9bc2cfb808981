"""eval.scoring.abstention: precision / recall / F1 of declining unanswerable questions, the
false-abstention rate on answerable ones, and stratified bootstrap CIs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.scoring.abstention import AbstainOutcome, abstention_figures, abstention_report


def outcomes(pairs: list[tuple[bool, bool]]) -> list[AbstainOutcome]:
    return [AbstainOutcome(f"q{i}", answerable, abstained, "weak_evidence" if abstained else "")
            for i, (answerable, abstained) in enumerate(pairs)]


def test_figures_count_unanswerable_as_the_positive_class() -> None:
    # 4 unanswerable: 3 declined; 6 answerable: 1 declined
    pairs = [(False, True)] * 3 + [(False, False)] + [(True, True)] + [(True, False)] * 5
    found = abstention_figures(np.array([a for a, _ in pairs]), np.array([d for _, d in pairs]))
    assert found["abstain_precision"] == pytest.approx(3 / 4)
    assert found["abstain_recall"] == pytest.approx(3 / 4)
    assert found["abstain_f1"] == pytest.approx(3 / 4)
    assert found["false_abstention_rate"] == pytest.approx(1 / 6)
    assert found["answer_rate"] == pytest.approx(5 / 6)


def test_never_declining_has_zero_recall_and_undefined_precision() -> None:
    found = abstention_figures(np.array([True, False]), np.array([False, False]))
    assert found["abstain_recall"] == 0 and math.isnan(found["abstain_precision"])
    assert found["abstain_f1"] == 0


def test_report_has_cis_around_the_value_and_counts_reasons() -> None:
    pairs = [(False, True)] * 18 + [(False, False)] * 2 + [(True, False)] * 27 + [(True, True)] * 3
    report = abstention_report(outcomes(pairs), n_resamples=300, seed=1)
    for key in ("abstain_precision", "abstain_recall", "abstain_f1", "false_abstention_rate"):
        low, high = report[key]["ci95"]
        assert low <= report[key]["value"] <= high and high - low > 0
    assert report["abstain_recall"]["value"] == pytest.approx(0.9)
    assert report["counts"] == {"answerable": 30, "unanswerable": 20, "declined_unanswerable": 18,
                                "declined_answerable": 3, "reasons": {"weak_evidence": 21}}
    assert len(report["declined"]) == 21 and report["declined"]["q0"] == "weak_evidence"


def test_a_set_without_unanswerable_questions_reports_recall_as_null() -> None:
    report = abstention_report(outcomes([(True, False), (True, True)]), n_resamples=50)
    assert report["abstain_recall"]["value"] is None and report["abstain_recall"]["ci95"] == [None, None]
    assert report["false_abstention_rate"]["value"] == pytest.approx(0.5)
