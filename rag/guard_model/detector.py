"""Score a text with the committed learned detector: the probability that it is a prompt
injection or jailbreak. The threshold was chosen on a validation split by the training script
(eval/guard_detector/train.py) and ships beside the weights; metrics: eval/results/guard_detector.json."""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.guard_model.features import feature_ids
from rag.guard_model.logistic import sigmoid
from rag.injection import fold

MODEL_DIR = Path(__file__).resolve().parent
WEIGHTS = MODEL_DIR / "detector.npz"
CARD = MODEL_DIR / "detector.json"


@dataclass(frozen=True)
class LearnedModel:
    weights: dict[int, float]
    bias: float
    threshold: float
    version: str

    def probability(self, text: str) -> float:
        ids = feature_ids(fold(text))
        if not ids:
            return sigmoid(self.bias)
        z = self.bias + sum(self.weights.get(i, 0.0) for i in ids) / math.sqrt(len(ids))
        return sigmoid(z)


@functools.lru_cache(maxsize=1)
def load_model() -> LearnedModel | None:
    """The committed model, or None when its files are missing (the guard says so in its warnings)."""
    if not WEIGHTS.exists() or not CARD.exists():
        return None
    card = json.loads(CARD.read_text())
    with np.load(WEIGHTS) as data:
        weights = dict(zip(data["ids"].tolist(), data["weights"].astype(float).tolist(), strict=True))
    return LearnedModel(weights, float(card["bias"]), float(card["threshold"]), str(card["version"]))
