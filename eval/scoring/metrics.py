"""Ranking metrics over BEIR shapes, computed per query with trec_eval's definitions.

Definitions follow trec_eval 9.x (as exposed by pytrec_eval, Van Gysel & de Rijke 2018), and the
tests check agreement with pytrec_eval to 1e-6:

- ranking: documents sorted by score descending, ties broken by doc id *descending* (trec_eval
  compares doc numbers with strcmp and reverses the order), so equal scores rank "z" above "a";
- relevant: relevance >= 1; relevance 0 or negative is judged non-relevant (gain 0);
- nDCG@k (Järvelin & Kekäläinen 2002, trec_eval `ndcg_cut`): gain = relevance, discount
  log2(rank + 1), ideal ranking = all judged relevances sorted descending, cut at k;
- Recall@k = relevant in top k / all relevant; Precision@k = relevant in top k / k;
- MRR@k = 1 / rank of the first relevant document within k (0 when none);
- MAP@k (trec_eval `map_cut`) = sum of precision at each relevant rank within k / all relevant;
- Hit@k (trec_eval `success`) = 1 when any relevant document is in the top k.

A query with no relevant judgement scores 0 on every metric, as in trec_eval. A query whose
scores are not finite numbers is *failed*: it is listed with its reason and never averaged in.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from eval.data.shapes import Qrels, Results

DEFAULT_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10", "map@100")

_METRIC_RE = re.compile(r"^(?P<name>[a-z]+)(?:@(?P<k>\d+))?$")


@dataclass(frozen=True)
class MetricSpec:
    """A metric name and its cutoff (None = the whole ranking)."""

    name: str
    k: int | None

    @property
    def key(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


@dataclass(frozen=True)
class MetricScores:
    """One metric over a run: a value per query, and the queries it failed on with the reason."""

    metric: str
    values: Mapping[str, float]
    failed: Mapping[str, str]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def n_failed(self) -> int:
        return len(self.failed)

    @property
    def mean(self) -> float:
        """Mean over the queries that succeeded; NaN when none did (shown as failed, not 0)."""
        return math.fsum(self.values.values()) / self.n if self.values else math.nan


@functools.lru_cache(maxsize=256)  # a sweep parses its metrics at every point
def parse_metric(text: str) -> MetricSpec:
    """'ndcg@10' -> MetricSpec('ndcg', 10); names are case-insensitive; valid names are listed."""
    match = _METRIC_RE.match(text.strip().lower())
    if not match or match["name"] not in _METRICS:
        raise ValueError(
            f"unknown metric {text!r}; valid: {', '.join(sorted(_METRICS))}, each with @k"
        )
    k = int(match["k"]) if match["k"] else None
    if k == 0:
        raise ValueError(f"metric {text!r}: the cutoff k must be at least 1")
    return MetricSpec(match["name"], k)


def trec_ranking(scores: Mapping[str, float]) -> list[str]:
    """Doc ids best first: score descending, ties by doc id descending (trec_eval's order)."""
    # (score, doc id) tuples compare natively (no key call per doc); doc ids are unique, so
    # the order is the same as sorting ids by that key
    return [doc_id for _, doc_id in sorted(((s, d) for d, s in scores.items()), reverse=True)]


# Each metric reads `hits`: (0-based rank, gain) of the relevant documents in ranked order —
# the only ranks that add anything — so a query costs its relevant documents, not its ranking.
Hits = Sequence[tuple[int, int]]


def _ndcg(hits: Hits, judged: Mapping[str, int], k: int) -> float:
    dcg = sum(g / math.log2(i + 2) for i, g in hits if i < k)
    ideal = sorted((r for r in judged.values() if r > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def _found(hits: Hits, k: int) -> int:
    return sum(1 for i, _ in hits if i < k)


def _recall(hits: Hits, n_rel: int, k: int) -> float:
    return _found(hits, k) / n_rel if n_rel else 0.0


def _precision(hits: Hits, k: int) -> float:
    return _found(hits, k) / k


def _mrr(hits: Hits, k: int) -> float:
    return 1.0 / (hits[0][0] + 1) if hits and hits[0][0] < k else 0.0


def _map(hits: Hits, n_rel: int, k: int) -> float:
    if not n_rel:
        return 0.0
    found, total = 0, 0.0
    for i, _ in hits:
        if i >= k:
            break
        found += 1
        total += found / (i + 1)
    return total / n_rel


def _hit(hits: Hits, k: int) -> float:
    return 1.0 if hits and hits[0][0] < k else 0.0


# name -> f(hits in ranked order, judged relevances, number relevant, cutoff)
_MetricFn = Callable[[Hits, Mapping[str, int], int, int], float]
_METRICS: dict[str, _MetricFn] = {
    "ndcg": lambda hits, judged, n_rel, k: _ndcg(hits, judged, k),
    "recall": lambda hits, judged, n_rel, k: _recall(hits, n_rel, k),
    "precision": lambda hits, judged, n_rel, k: _precision(hits, k),
    "mrr": lambda hits, judged, n_rel, k: _mrr(hits, k),
    "map": lambda hits, judged, n_rel, k: _map(hits, n_rel, k),
    "hit": lambda hits, judged, n_rel, k: _hit(hits, k),
}


def query_metrics(
    judged: Mapping[str, int], scores: Mapping[str, float], specs: Sequence[MetricSpec]
) -> dict[str, float]:
    """Every metric in `specs` for one query; raises ValueError on a non-finite score."""
    if not all(map(math.isfinite, scores.values())):  # the common case without a generator
        bad = next(d for d, s in scores.items() if not math.isfinite(s))
        raise ValueError(f"score of doc {bad!r} is {scores[bad]!r}, not a finite number")
    ranking = trec_ranking(scores)
    relevance = judged.get
    hits = [(i, g) for i, doc_id in enumerate(ranking) if (g := relevance(doc_id, 0)) > 0]
    n_rel = sum(r > 0 for r in judged.values())
    out = {}
    for spec in specs:
        k = spec.k if spec.k is not None else max(len(ranking), 1)
        # precision without a cutoff divides by the number retrieved
        out[spec.key] = _METRICS[spec.name](hits, judged, n_rel, k)
    return out


def evaluate(
    qrels: Qrels, results: Results, metrics: Sequence[str] = DEFAULT_METRICS
) -> dict[str, MetricScores]:
    """Per-query scores for every metric, over the queries that are in both qrels and results.

    A query missing from `results` is not scored here: the caller counts it as failed (the run
    harness keeps each failed query's error). Queries in results but not in qrels are ignored,
    as trec_eval does.
    """
    specs = [parse_metric(m) for m in metrics]
    values: dict[str, dict[str, float]] = {s.key: {} for s in specs}
    failed: dict[str, dict[str, str]] = {s.key: {} for s in specs}
    for qid in sorted(results.keys() & qrels.keys()):
        try:
            row = query_metrics(qrels[qid], results[qid], specs)
        except ValueError as exc:  # recorded per query, never averaged in
            for spec in specs:
                failed[spec.key][qid] = str(exc)
            continue
        for key, value in row.items():
            values[key][qid] = value
    return {
        s.key: MetricScores(s.key, values[s.key], failed[s.key]) for s in specs
    }
