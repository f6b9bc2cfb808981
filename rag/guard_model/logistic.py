"""The logistic link every guard model shares, clipped so exp() cannot overflow on an extreme
score (a probability of 1 - 1e-13 carries no more information)."""

from __future__ import annotations

import math

_CLIP = 30.0


def sigmoid(z: float) -> float:
    """1 / (1 + e^-z), with z clipped to ±30."""
    return 1.0 / (1.0 + math.exp(-max(-_CLIP, min(_CLIP, z))))
