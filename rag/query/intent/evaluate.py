"""Score the rules + semantic layers of the intent router on a labeled set (datasets/intents.csv).

One embedding pass serves every threshold, so a page can sweep the threshold instantly. The LLM
layer is not part of this score: below the threshold a query gets the default intent.
"""

from __future__ import annotations

import csv
import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.paths import PROJECT_ROOT
from rag.query.intent.exemplars import INTENTS
from rag.query.intent.rules import hard_rules
from rag.query.intent.semantic import SemanticRouter, SemanticScores

LABELED_SET = PROJECT_ROOT / "datasets" / "intents.csv"
THRESHOLD_GRID: tuple[float, ...] = tuple(round(0.30 + 0.05 * i, 2) for i in range(13))  # 0.30-0.90


@dataclass(frozen=True)
class LabeledQuery:
    query: str
    intent: str


@dataclass(frozen=True)
class Prediction:
    query: str
    gold: str
    predicted: str
    layer: str  # rules / semantic / default
    score: float  # 1.0 for rules, the best cosine otherwise
    semantic_best: str | None

    @property
    def correct(self) -> bool:
        return self.gold == self.predicted


@dataclass(frozen=True)
class IntentEvaluation:
    threshold: float
    predictions: tuple[Prediction, ...]

    @property
    def accuracy(self) -> float:
        return sum(p.correct for p in self.predictions) / len(self.predictions) if self.predictions else 0.0

    def recall_by_intent(self) -> dict[str, tuple[float, int]]:
        """intent -> (share of its queries predicted right, how many there are)."""
        totals = Counter(p.gold for p in self.predictions)
        right = Counter(p.gold for p in self.predictions if p.correct)
        return {i: (right[i] / totals[i], totals[i]) for i in INTENTS if totals[i]}

    def layer_counts(self) -> dict[str, int]:
        return dict(Counter(p.layer for p in self.predictions))

    def confusion(self) -> dict[tuple[str, str], int]:
        """(gold, predicted) -> count, mistakes only."""
        return dict(Counter((p.gold, p.predicted) for p in self.predictions if not p.correct))


def load_labeled(path: Path = LABELED_SET) -> list[LabeledQuery]:
    """Rows of a `query,intent` CSV; an unknown intent is an error naming the row."""
    rows: list[LabeledQuery] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            if row["intent"] not in INTENTS:
                raise ValueError(f"{path.name}:{number}: unknown intent {row['intent']!r}; "
                                 f"valid: {', '.join(INTENTS)}")
            rows.append(LabeledQuery(row["query"], row["intent"]))
    return rows


def _normal(text: str) -> str:
    return " ".join(text.lower().strip(" ?!.").split())


def leaked(labeled: Sequence[LabeledQuery], exemplars: Mapping[str, Sequence[str]]) -> list[str]:
    """Labeled queries that are also exemplars (after case/punctuation folding): must be none."""
    known = {_normal(t) for texts in exemplars.values() for t in texts}
    return [item.query for item in labeled if _normal(item.query) in known]


def _decide(item: LabeledQuery, scores: SemanticScores | None, threshold: float,
            default: str) -> Prediction:
    if scores is None:  # decided by the hard rules
        hit = hard_rules(item.query)
        assert hit is not None, "semantic_scores() leaves only rule-decided queries unscored"
        return Prediction(item.query, item.intent, hit.intent, "rules", 1.0, None)
    if scores.best_score >= threshold:
        return Prediction(item.query, item.intent, scores.best_intent, "semantic",
                          scores.best_score, scores.best_intent)
    return Prediction(item.query, item.intent, default, "default", scores.best_score,
                      scores.best_intent)


def semantic_scores(labeled: Sequence[LabeledQuery], router: SemanticRouter) -> list[SemanticScores | None]:
    """The router's scores for every query the hard rules leave undecided (one batch)."""
    undecided = [i for i, item in enumerate(labeled) if hard_rules(item.query) is None]
    scored = router.score_many([labeled[i].query for i in undecided])
    out: list[SemanticScores | None] = [None] * len(labeled)
    for index, scores in zip(undecided, scored, strict=True):
        out[index] = scores
    return out


def evaluate(
    labeled: Sequence[LabeledQuery], scores: Sequence[SemanticScores | None], threshold: float,
    default: str = "question",
) -> IntentEvaluation:
    """Rules + semantic predictions at `threshold` from precomputed `semantic_scores`."""
    predictions = tuple(_decide(item, s, threshold, default) for item, s in zip(labeled, scores, strict=True))
    return IntentEvaluation(threshold, predictions)


def calibrate(router: SemanticRouter, thresholds: Sequence[float],
              default: str = "question") -> tuple[float, list[tuple[float, float]]]:
    """Pick the threshold with the best leave-one-out accuracy over the exemplars themselves
    (ties: the highest, the more cautious); returns it and the whole (threshold, accuracy) curve.

    Cosine scales differ by model (bge-small scores sit far higher than MiniLM's), so Axiom's
    0.85 for bge-small is not MiniLM's 0.85; this finds the model's own value from exemplars only."""
    rows = router.leave_one_out()
    held_out = [LabeledQuery(text, intent) for text, intent, _ in rows]
    scores = [None if hard_rules(text) else s for text, _, s in rows]  # as the router would
    curve = sweep(held_out, scores, thresholds, default)
    best = max(curve, key=lambda point: (point[1], point[0]))
    return best[0], curve


@functools.lru_cache(maxsize=8)
def calibrated_threshold(router: SemanticRouter) -> float:
    """The router's leave-one-out threshold over THRESHOLD_GRID (cached per router)."""
    return calibrate(router, THRESHOLD_GRID)[0]


def sweep(
    labeled: Sequence[LabeledQuery], scores: Sequence[SemanticScores | None],
    thresholds: Sequence[float], default: str = "question",
) -> list[tuple[float, float]]:
    """(threshold, accuracy) for each threshold."""
    return [(t, evaluate(labeled, scores, t, default).accuracy) for t in thresholds]
