"""Learned fusion: a logistic-regression model scores each candidate from what the lists say.

Features per list the model was trained on (a list that missed the chunk gives its lowest
score, its lowest normalized score, rank term 0 and presence 0): `raw` score, min-max `norm`
score, `inv_rank` (1 / rank), `present`; and per candidate `chunk_chars` (log of 1 + length),
`query_words` (log of 1 + words) and each list's `norm*query_words` (query length alone shifts
every candidate of a query equally, so it can only matter through an interaction).
Features are standardized with the training means and scales; the fused score is the logit
`bias + Σ coef · (x − mean) / scale`, and each term is the candidate's contribution under the
feature's name ("dense.norm", "chunk_chars", "bias"), so contributions add up to the score as
in every fusion method. Fitting lives in eval (eval.runs.learned_fusion.fit_learned_fusion);
this module only reads the JSON model file named by `fusion.model`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion.base import FUSION, Pool, assemble, min_max, pool, raw_scores
from rag.settings.retrieval import FusionConfig

MODEL_KIND = "logistic_regression"
PER_LIST = ("raw", "norm", "inv_rank", "present", "norm*query_words")
SHARED = ("chunk_chars", "query_words")
BIAS = "bias"


class LearnedModelError(ValueError):
    """A learned-fusion model that is missing, unreadable or does not fit the lists given."""


def feature_names(lists: Sequence[str]) -> tuple[str, ...]:
    """The model's feature order: every list's features, then the shared ones."""
    return (*(f"{name}.{feat}" for name in lists for feat in PER_LIST), *SHARED)


@dataclass(frozen=True)
class LearnedModel:
    """A fitted linear model over `feature_names(lists)`, with the standardization it was fit on."""

    lists: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    kind: str = MODEL_KIND
    trained: Mapping[str, Any] = field(default_factory=dict)  # what it was fit on (provenance)

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.mean) == len(self.scale) == len(self.coef) == n):
            raise LearnedModelError(f"model has {n} features but mean/scale/coef of lengths "
                                    f"{len(self.mean)}/{len(self.scale)}/{len(self.coef)}")
        if any(s <= 0 for s in self.scale):
            raise LearnedModelError("model scales must be positive")

    @property
    def features(self) -> tuple[str, ...]:
        return feature_names(self.lists)

    def weights(self) -> dict[str, float]:
        """Each feature's coefficient per unit of the raw feature (coef / scale): readable weights."""
        return {name: c / s for name, c, s in zip(self.features, self.coef, self.scale, strict=True)}

    def contributions(self, x: np.ndarray) -> np.ndarray:
        """(n, features) terms coef · (x − mean) / scale; their row sum + intercept is the logit."""
        return (x - np.asarray(self.mean)) / np.asarray(self.scale) * np.asarray(self.coef)

    def save(self, path: str | Path) -> Path:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = {"kind": self.kind, "lists": list(self.lists), "features": list(self.features),
                "mean": list(self.mean), "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept, "trained": dict(self.trained)}
        target.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return target


def load_model(path: str | Path) -> LearnedModel:
    """Read a model file; a missing or malformed file is a LearnedModelError naming it."""
    target = Path(path)
    if not target.is_file():
        raise LearnedModelError(
            f"fusion.model {str(path)!r} does not exist; fit one with "
            f"`python -m eval learned-fusion --dataset DIR --preset P --fit-out MODEL.json` "
            f"(or eval.runs.learned_fusion.fit_learned_fusion)"
        )
    stat = target.stat()
    return _load_cached(str(target.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _load_cached(path: str, mtime_ns: int, size: int) -> LearnedModel:
    """Parsed once per file version (path, mtime, size), so a slider move re-reads nothing."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("kind") != MODEL_KIND:
            raise LearnedModelError(f"model kind {data.get('kind')!r}; expected {MODEL_KIND!r}")
        model = LearnedModel(
            lists=tuple(data["lists"]), mean=tuple(data["mean"]), scale=tuple(data["scale"]),
            coef=tuple(data["coef"]), intercept=float(data["intercept"]),
            trained=MappingProxyType(dict(data.get("trained", {}))),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LearnedModelError(f"fusion.model {path!r} is not a learned-fusion model: {exc}") from None
    if tuple(data.get("features", model.features)) != model.features:
        raise LearnedModelError(f"fusion.model {path!r} lists features this version does not compute")
    return model


def candidate_features(
    found: Pool, lists: Sequence[str], query: str
) -> tuple[tuple[str, ...], np.ndarray]:
    """(chunk ids in pool order, their feature matrix over `feature_names(lists)`). Lists named
    in `lists` that the pool lacks count as having missed every chunk; the reverse is an error."""
    unknown = [name for name in found.names if name not in lists]
    if unknown:
        raise LearnedModelError(
            f"the learned-fusion model was trained on lists {', '.join(lists) or '(none)'}; "
            f"it cannot score {', '.join(unknown)} — refit it on these lists"
        )
    ids = tuple(found.chunks)
    query_words = math.log1p(len(query.split()))
    columns: list[np.ndarray] = []
    for name in lists:
        raw = raw_scores(found, name) if name in found.placed else {}
        norm = min_max(raw)
        floor_raw = min(raw.values(), default=0.0)
        places = found.placed.get(name, {})
        norms = np.array([norm.get(cid, 0.0) for cid in ids])
        columns += [
            np.array([raw.get(cid, floor_raw) for cid in ids]),
            norms,
            np.array([1.0 / places[cid][0] if cid in places else 0.0 for cid in ids]),
            np.array([1.0 if cid in places else 0.0 for cid in ids]),
            norms * query_words,
        ]
    columns.append(np.array([math.log1p(len(found.chunks[cid].text)) for cid in ids]))
    columns.append(np.full(len(ids), query_words))
    matrix = np.column_stack(columns) if ids else np.zeros((0, len(feature_names(lists))))
    return ids, matrix.astype(float)


def learned(lists: Sequence[RankedList], model: LearnedModel, query: str = "") -> tuple[Candidate, ...]:
    """Score every pooled chunk with the model; contributions are per feature plus the bias."""
    found = pool(lists)
    ids, x = candidate_features(found, model.lists, query)
    terms_matrix = model.contributions(x)
    names = model.features
    terms = {name: {cid: float(terms_matrix[row, col]) for row, cid in enumerate(ids)}
             for col, name in enumerate(names)}
    terms[BIAS] = dict.fromkeys(ids, model.intercept)
    normalized = {name: min_max(raw_scores(found, name)) for name in found.names}
    return assemble(found, terms, normalized=normalized, contributors=(*names, BIAS))


@FUSION.register("learned")
def _from_config(lists: Sequence[RankedList], config: FusionConfig, query: str) -> tuple[Candidate, ...]:
    if not config.model:
        raise LearnedModelError(
            "fusion 'learned' needs fusion.model: the path of a model file fitted on training "
            "queries (`python -m eval learned-fusion … --fit-out MODEL.json`)"
        )
    return learned(lists, load_model(config.model), query)
