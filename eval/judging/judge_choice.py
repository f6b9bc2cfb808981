"""Which learned judge a collection uses: (a) the logistic feature judge or (b) the frozen MiniLM
cross-encoder with a head trained on the labels, cross-validated by question on the person's
own labels (Cohen's κ, precision and recall of "relevant"); the one with the higher κ is kept
(a tie keeps the feature judge: cheaper, and the one measured by simulation). The choice is
stored with the collection's judging state (`<collection>/judging/judge.json`), refreshed in
the background as labels come in, and shown on the Judge page with both judges' agreement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from eval.judging.cross_judge import NAME as CROSS
from eval.judging.cross_judge import cross_validate_head
from eval.judging.features import Features, context_features
from eval.judging.learned_judge import Agreement, cross_validate
from eval.judging.live import LivePool
from rag.index.collection import check_name
from rag.paths import collections_root

FEATURES = "logistic"
JUDGES = (FEATURES, CROSS)


@dataclass(frozen=True)
class JudgeChoice:
    chosen: str  # FEATURES or CROSS
    agreements: Mapping[str, Agreement]
    set_name: str  # the set whose labels decided
    labels: int
    at: str  # ISO time

    def as_json(self) -> dict[str, object]:
        return {"chosen": self.chosen, "set": self.set_name, "labels": self.labels,
                "at": self.at,
                "agreements": {k: a.as_json() for k, a in self.agreements.items()}}

    def describe(self) -> str:
        parts = [f"{'kept: ' if k == self.chosen else ''}{k} κ {a.kappa:.2f} (precision "
                 f"{a.precision:.2f}, recall {a.recall:.2f})" for k, a in self.agreements.items()]
        return f"Judges compared on your {self.labels} labels, out of fold: " + "; ".join(parts)


def choice_path(collection: str) -> Path:
    check_name(collection)
    return collections_root() / collection / "judging" / "judge.json"


def better(agreements: Mapping[str, Agreement]) -> str:
    if CROSS in agreements and FEATURES in agreements and \
            agreements[CROSS].kappa > agreements[FEATURES].kappa:
        return CROSS
    return FEATURES if FEATURES in agreements else next(iter(agreements), FEATURES)


def compare(live: LivePool, features: Features, vectors: np.ndarray, set_name: str,
            folds: int = 5, seed: int = 0) -> JudgeChoice | None:
    """Both judges cross-validated by question on the person's labels (None: too few)."""
    idx = list(live.trained)
    y = [live.trained[i] for i in idx]
    groups = [live.pool.items[i].qid for i in idx]
    x = np.column_stack([features.matrix, context_features(live.pool, live.trained)])
    found = {FEATURES: cross_validate(x[idx], y, groups, FEATURES, folds, seed),
             CROSS: cross_validate_head(vectors[idx], y, groups, folds, seed)}
    agreements = {k: a for k, a in found.items() if a is not None}
    if not agreements:
        return None
    return JudgeChoice(better(agreements), agreements, set_name, len(idx),
                       datetime.now(UTC).isoformat(timespec="seconds"))


def save_choice(collection: str, choice: JudgeChoice) -> None:
    path = choice_path(collection)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(choice.as_json(), indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)  # a reader never sees half a file


def load_choice(collection: str) -> JudgeChoice | None:
    """The stored choice, or None (none yet, or a file this version cannot read)."""
    path = choice_path(collection)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        agreements = {k: Agreement(**a) for k, a in raw["agreements"].items()}
        return JudgeChoice(raw["chosen"], agreements, raw["set"], int(raw["labels"]), raw["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
