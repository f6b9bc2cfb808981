"""Abstain-bar calibration: the curve replays the stage's own rules, the chosen bar meets the
answer-rate floor, the out-of-fold estimate never scores a question with a bar it chose, and the
CLI writes a preset override that loads with the bar (hashing embedder, bundled samples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main as eval_main
from eval.scoring.calibration import (
    CalibrationItem,
    calibrate,
    choose,
    cross_validated,
    tradeoff_curve,
)
from rag.abstain.stage import AbstainSignals
from rag.config import load_preset
from rag.settings.abstain import AbstainConfig


def items(answerable: list[float], unanswerable: list[float], **extra: object) -> list[CalibrationItem]:
    made = [CalibrationItem(f"a{i}", True, AbstainSignals(evidence=v, **extra))  # type: ignore[arg-type]
            for i, v in enumerate(answerable)]
    return made + [CalibrationItem(f"u{i}", False, AbstainSignals(evidence=v, **extra))  # type: ignore[arg-type]
                   for i, v in enumerate(unanswerable)]


def test_separable_scores_get_a_bar_between_them() -> None:
    found = calibrate(items([0.6, 0.7, 0.8, 0.65], [0.2, 0.3, 0.25, 0.1]), AbstainConfig(), "evidence",
                      folds=2, n_resamples=50)
    assert 0.3 < (found.chosen.threshold or 0) < 0.6
    assert found.chosen.answer_rate == 1 and found.chosen.abstain_rate == 1
    rates = [(p.answer_rate, p.abstain_rate) for p in found.curve[1:]]
    assert rates == sorted(rates, key=lambda r: (-r[0], r[1]))  # a higher bar answers less, declines more
    assert found.curve[0].threshold is None and found.curve[0].abstain_rate == 0


def test_the_answer_rate_floor_is_kept_when_it_can_be() -> None:
    curve = tradeoff_curve(items([0.2, 0.5, 0.6, 0.7, 0.8], [0.1, 0.3, 0.55, 0.65]), AbstainConfig(),
                           "evidence")
    chosen = choose(curve, min_answer_rate=0.8)
    assert chosen.answer_rate >= 0.8 and chosen.abstain_rate == pytest.approx(0.5)
    assert choose(curve, min_answer_rate=1.0).answer_rate == 1.0


def test_other_rules_still_decline_whatever_the_bar() -> None:
    grounded_fail = items([0.9, 0.8], [0.1], grounded=False)  # ungrounded: declined at any bar
    curve = tradeoff_curve(grounded_fail, AbstainConfig(), "evidence")
    assert all(p.answer_rate == 0 for p in curve)


def test_out_of_fold_decisions_cover_every_question_once() -> None:
    data = items([0.5 + i / 100 for i in range(20)], [0.2 + i / 100 for i in range(10)])
    held_out = cross_validated(data, AbstainConfig(), "evidence", 0.85, folds=5)
    assert sorted(o.qid for o in held_out) == sorted(i.qid for i in data)


def test_calibration_needs_both_kinds_of_question() -> None:
    with pytest.raises(ValueError, match="answerable and unanswerable"):
        calibrate(items([0.5, 0.6], []), AbstainConfig(), "evidence")


UNANSWERABLE = [
    "What is the boiling point of liquid nitrogen in Kelvin?",
    "Who won the 1998 football world cup final?",
    "How do I configure a Kubernetes liveness probe?",
]


@pytest.fixture
def abstain_qa(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in Path("datasets/qa_samples.jsonl").read_text().splitlines()][:6]
    rows += [{"id": f"u{i}", "question": q, "answerable": False} for i, q in enumerate(UNANSWERABLE)]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.usefixtures("hashing_presets")
def test_cli_writes_a_preset_override_with_the_bar_and_the_curve(abstain_qa: Path, tmp_path: Path) -> None:
    out, curve = tmp_path / "hybrid_calibrated.yaml", tmp_path / "curve.json"
    code = eval_main(["calibrate-abstention", "--qa", str(abstain_qa), "--preset", "hybrid",
                      "--out", str(out), "--curve", str(curve), "--folds", "3", "--resamples", "50"])
    assert code == 0
    found = json.loads(curve.read_text())
    chosen = found["chosen"]["threshold"]
    assert isinstance(chosen, float) and found["n_unanswerable"] == 3 and found["n_answerable"] == 6
    assert len(found["curve"]) >= 3 and found["cross_validated"]["counts"]["answerable"] == 6
    config = load_preset(out)
    assert config.abstain.enabled and config.abstain.min_evidence == pytest.approx(chosen)
    assert config.fusion == load_preset("hybrid").fusion  # everything else is the preset's
    assert "Calibrated by" in out.read_text()


@pytest.mark.usefixtures("hashing_presets")
def test_eval_run_reports_abstention_with_cis_and_scores_only_answered(
    abstain_qa: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    code = eval_main(["run", "--dataset", "datasets/beir_sample", "--preset", "hybrid",
                      "--max-queries", "2", "--resamples", "50", "--no-store",
                      "--set", "abstain.min_evidence=0.99",  # declines everything: all counted
                      "--answers", str(abstain_qa), "--answers-corpus", "datasets/samples",
                      "--out", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    abstention = report["abstention"]["hybrid"]
    assert abstention["counts"]["unanswerable"] == 3 and abstention["counts"]["declined_unanswerable"] == 3
    assert abstention["abstain_recall"]["value"] == 1.0
    assert abstention["false_abstention_rate"]["value"] == 1.0
    assert abstention["abstain_precision"]["ci95"][0] is not None
    assert report["answer_metrics"]["hybrid"]["rouge_l"]["n"] == 0  # nothing was answered


def test_answer_relevance_is_a_signal_too() -> None:
    from rag.abstain.relevance import AnswerRelevance

    def item(qid: str, answerable: bool, score: float) -> CalibrationItem:
        relevance = AnswerRelevance(score, "offline", score, 0.5)
        return CalibrationItem(qid, answerable, AbstainSignals(relevance=relevance))

    data = [item("a1", True, 0.7), item("a2", True, 0.6), item("u1", False, 0.1), item("u2", False, 0.2)]
    found = calibrate(data, AbstainConfig(), "answer_relevance", folds=2, n_resamples=20)
    assert 0.2 < (found.chosen.threshold or 0) < 0.6 and found.chosen.abstain_rate == 1
    assert found.as_json()["setting"] == "abstain.min_answer_relevance"
