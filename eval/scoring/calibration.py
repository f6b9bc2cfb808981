"""Calibrate the abstain bar on a QA set with answerable and unanswerable questions.

Each question runs once, with the bar being calibrated switched off; its AbstainDecision keeps
every signal, so any bar is replayed with rag.abstain.stage.decide (the stage's own rule code)
without running anything again. The trade-off curve is, per bar: the answer rate on answerable
questions against the abstain rate on unanswerable ones. The chosen bar declines as many
unanswerable questions as it can while answering at least `min_answer_rate` of the answerable
ones (if no bar reaches that, the one with the best balanced accuracy), placed halfway between
two observed scores. Its expected rates are estimated out of fold (stratified k-fold: the bar is
fitted on the other folds), never on the questions that chose it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from eval.data.qa import QASet
from eval.scoring.abstention import AbstainOutcome, abstention_report
from eval.scoring.answers import qa_traces
from rag.abstain.stage import AbstainDecision, AbstainSignals, decide
from rag.config import PipelineConfig, with_overrides
from rag.paths import SAMPLES_DIR
from rag.settings.abstain import AbstainConfig

# signal -> the abstain setting that holds its bar
SIGNALS = {"evidence": "min_evidence", "answer_relevance": "min_answer_relevance"}


@dataclass(frozen=True)
class CalibrationItem:
    qid: str
    answerable: bool
    signals: AbstainSignals


@dataclass(frozen=True)
class CurvePoint:
    threshold: float | None  # None: this bar off
    answer_rate: float  # share of answerable questions answered
    abstain_rate: float  # share of unanswerable questions declined

    @property
    def balanced(self) -> float:
        return (self.answer_rate + self.abstain_rate) / 2


def signal_value(signals: AbstainSignals, signal: str) -> float | None:
    if signal == "evidence":
        return signals.evidence
    if signal == "answer_relevance":
        return signals.relevance.score if signals.relevance is not None else None
    raise ValueError(f"unknown signal {signal!r}; valid: {', '.join(SIGNALS)}")


def with_bar(settings: AbstainConfig, signal: str, threshold: float | None) -> AbstainConfig:
    return settings.model_copy(update={SIGNALS[signal]: threshold})


def replay(items: Sequence[CalibrationItem], settings: AbstainConfig) -> np.ndarray:
    """Which questions `settings` declines (the stage's decide, over the recorded signals)."""
    return np.array([decide(i.signals, settings).abstained for i in items], dtype=bool)


def point(items: Sequence[CalibrationItem], settings: AbstainConfig, signal: str,
          threshold: float | None) -> CurvePoint:
    declined = replay(items, with_bar(settings, signal, threshold))
    answerable = np.array([i.answerable for i in items], dtype=bool)
    answer_rate = float(np.mean(~declined[answerable])) if answerable.any() else float("nan")
    abstain_rate = float(np.mean(declined[~answerable])) if (~answerable).any() else float("nan")
    return CurvePoint(threshold, answer_rate, abstain_rate)


def candidate_bars(items: Sequence[CalibrationItem], signal: str) -> list[float]:
    """Midpoints between neighbouring observed scores, plus one below and one above them all."""
    values = sorted({v for i in items if (v := signal_value(i.signals, signal)) is not None})
    if not values:
        return []
    mids = [(a + b) / 2 for a, b in pairwise(values)]
    return [round(values[0] - 1e-3, 6), *(round(m, 6) for m in mids), round(values[-1] + 1e-3, 6)]


def tradeoff_curve(items: Sequence[CalibrationItem], settings: AbstainConfig, signal: str
                   ) -> list[CurvePoint]:
    """The bar off, then every candidate bar, lowest first."""
    return [point(items, settings, signal, t) for t in (None, *candidate_bars(items, signal))]


def choose(curve: Sequence[CurvePoint], min_answer_rate: float) -> CurvePoint:
    """Most unanswerable declined while answering ≥ min_answer_rate of the answerable (ties: the
    more answered, then the lower bar); else the best balanced accuracy."""
    bars = [p for p in curve if p.threshold is not None] or list(curve)
    feasible = [p for p in bars if p.answer_rate >= min_answer_rate]
    if feasible:
        return max(feasible, key=lambda p: (p.abstain_rate, p.answer_rate, -(p.threshold or 0.0)))
    return max(bars, key=lambda p: (p.balanced, p.answer_rate))


def _folds(items: Sequence[CalibrationItem], k: int, seed: int) -> np.ndarray:
    """A fold number per item, stratified by answerable."""
    rng = np.random.default_rng(seed)
    fold = np.zeros(len(items), dtype=int)
    for label in (True, False):
        index = np.flatnonzero([i.answerable is label for i in items])
        rng.shuffle(index)
        fold[index] = np.arange(len(index)) % k
    return fold


def cross_validated(items: Sequence[CalibrationItem], settings: AbstainConfig, signal: str,
                    min_answer_rate: float, folds: int = 5, seed: int = 0) -> list[AbstainOutcome]:
    """Out-of-fold decisions: each fold is declined or answered with the bar fitted on the rest."""
    fold = _folds(items, folds, seed)
    outcomes: list[AbstainOutcome] = []
    for f in range(folds):
        train = [i for i, g in zip(items, fold, strict=True) if g != f]
        test = [i for i, g in zip(items, fold, strict=True) if g == f]
        if not train or not test:
            continue
        bar = choose(tradeoff_curve(train, settings, signal), min_answer_rate).threshold
        tuned = with_bar(settings, signal, bar)
        outcomes += [AbstainOutcome(i.qid, i.answerable, d.abstained, d.kind or "")
                     for i in test for d in [decide(i.signals, tuned)]]
    return outcomes


def calibration_items(
    qa: QASet, config: PipelineConfig, signal: str, corpus: Path = SAMPLES_DIR,
    progress: Callable[[int, int], None] | None = None, collection: str | None = None,
) -> list[CalibrationItem]:
    """Run every question once with abstain on and the bar being calibrated off, over the
    `corpus` folder — or over an existing collection, with its own embedder and index, when
    `collection` names one (labels then name documents by file name)."""
    config = with_overrides(config, {"abstain.enabled": True, f"abstain.{SIGNALS[signal]}": None})
    if collection is not None:
        from eval.runs.own_corpus import collection_traces, preset_collection

        traces = collection_traces(qa, config, preset_collection(collection, config), progress)
    else:
        traces = ((item, trace) for item, trace, _ in qa_traces(qa, config, corpus, progress))
    items = []
    for item, trace in traces:
        decision = trace.output(AbstainDecision)
        signals = decision.signals if decision is not None else AbstainSignals()
        items.append(CalibrationItem(item.qid, item.answerable, signals))
    return items


@dataclass(frozen=True)
class Calibration:
    signal: str
    curve: tuple[CurvePoint, ...]
    chosen: CurvePoint
    min_answer_rate: float
    cross_validated: dict[str, Any]  # abstention_report of the out-of-fold decisions
    n_answerable: int
    n_unanswerable: int

    def as_json(self) -> dict[str, Any]:
        return {
            "signal": self.signal, "setting": f"abstain.{SIGNALS[self.signal]}",
            "chosen": {"threshold": self.chosen.threshold, "answer_rate": self.chosen.answer_rate,
                       "abstain_rate": self.chosen.abstain_rate},
            "min_answer_rate": self.min_answer_rate,
            "cross_validated": self.cross_validated,
            "n_answerable": self.n_answerable, "n_unanswerable": self.n_unanswerable,
            "curve": [{"threshold": p.threshold, "answer_rate": p.answer_rate,
                       "abstain_rate": p.abstain_rate} for p in self.curve],
        }


def calibrate(items: Sequence[CalibrationItem], settings: AbstainConfig, signal: str,
              min_answer_rate: float = 0.85, folds: int = 5, seed: int = 0,
              n_resamples: int = 2000) -> Calibration:
    """The curve, the chosen bar (fitted on every item), and its out-of-fold estimate."""
    answerable = sum(i.answerable for i in items)
    if not answerable or answerable == len(items):
        raise ValueError("calibration needs answerable and unanswerable questions "
                         f"(got {answerable} answerable of {len(items)})")
    curve = tradeoff_curve(items, settings, signal)
    chosen = choose(curve, min_answer_rate)
    held_out = cross_validated(items, settings, signal, min_answer_rate, folds, seed)
    return Calibration(signal, tuple(curve), chosen, min_answer_rate,
                       abstention_report(held_out, n_resamples, seed), answerable,
                       len(items) - answerable)


def override_yaml(preset: str, config: PipelineConfig, calibration: Calibration, source: str) -> str:
    """A preset file that extends `preset` with the calibrated bar (load it with load_preset)."""
    c = calibration
    cv = c.cross_validated
    header = (
        f"# Calibrated by `python -m eval calibrate-abstention` on {source}\n"
        f"# ({c.n_answerable} answerable, {c.n_unanswerable} unanswerable questions; signal {c.signal}).\n"
        f"# On those questions: answers {c.chosen.answer_rate:.3f} of the answerable, declines "
        f"{c.chosen.abstain_rate:.3f} of the unanswerable.\n"
        f"# Out of fold: answer rate {_num(cv['answer_rate']['value'])}, abstain recall "
        f"{_num(cv['abstain_recall']['value'])}.\n"
    )
    body = {"extends": preset, "name": f"{config.name}_calibrated",
            "abstain": {"enabled": True, SIGNALS[c.signal]: c.chosen.threshold}}
    return header + yaml.safe_dump(body, sort_keys=False)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
