"""Scores on human labels plus the learned judge's fill, with the judge's doubt in the interval.

Each chunk of a system's top k is relevant or not by the person's labels when they judged it;
otherwise it takes the probability of the judge-filled passage it overlaps (the largest, when
several), and chunks neither judged nor filled count as not relevant (their share is reported).
The score takes the judge's call on each filled unit (relevant when p ≥ 0.5: on a held-out
Debian documentation set, the Securing Debian Manual, drawing the fill from p put relevant mass
on many unlikely passages and lowered every system's nDCG through its ideal ranking; error 0.058
against 0.017 at 20 % of the pool). The 95 % interval resamples the questions and uses a fresh
draw of the filled labels (Bernoulli(p)) in each resample, so it widens with the judge's doubt
as well as with the questions' spread.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from eval.data.shapes import Qrels, Results
from eval.scoring.metrics import trec_ranking

DRAWS = 200
RESAMPLES = 1000


@dataclass(frozen=True)
class FilledScores:
    system: str
    queries: int
    ndcg: float  # mean nDCG@depth, human labels + the judge's calls (p ≥ 0.5) on the rest
    low: float
    high: float
    filled_share: float  # of the top `depth`, share taking the judge's probability
    unfilled_share: float  # of the top `depth`, share neither judged nor filled
    depth: int = 10

    def as_json(self) -> dict[str, Any]:
        return {"system": self.system, "queries": self.queries,
                f"filled_ndcg@{self.depth}": self.ndcg, "ci95": [self.low, self.high],
                "filled_share": self.filled_share, "unfilled_share": self.unfilled_share}


def filled_scores(system: str, qrels: Qrels, results: Results,
                  probabilities: Mapping[str, Mapping[str, float]], depth: int = 10,
                  seed: int = 0, draws: int = DRAWS, resamples: int = RESAMPLES) -> FilledScores:
    """`qrels` are the person's labels (0 = judged not relevant), `probabilities` the judge's
    P(relevant) of unjudged units per query; see the module docstring."""
    rng = np.random.default_rng(seed)
    discount = 1.0 / np.log2(np.arange(2, depth + 2))
    qids = sorted(qrels.keys() & results.keys())
    table = np.zeros((draws + 1, len(qids)))  # the last row: the judge's calls at p ≥ 0.5
    filled = unfilled = shown = 0
    for j, qid in enumerate(qids):
        human = qrels[qid]
        probs = {u: p for u, p in probabilities.get(qid, {}).items() if u not in human}
        units = sorted(set(human) | set(probs))
        col = {u: c for c, u in enumerate(units)}
        p = np.array([float(human[u] > 0) if u in human else probs[u] for u in units])
        g = np.vstack([(rng.random((draws, len(units))) < p), (p >= 0.5)[None, :]]) \
            .astype(np.float64)
        ideal = -np.sort(-g, axis=1)[:, :depth] @ discount[:min(depth, len(units))] \
            if units else np.zeros(draws + 1)
        top = trec_ranking(results[qid])[:depth]
        dcg = np.zeros(draws + 1)
        for rank, unit in enumerate(top):
            shown += 1
            if unit in col:
                dcg += g[:, col[unit]] * discount[rank]
                filled += unit in probs
            else:
                unfilled += 1
        table[:, j] = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    if not qids:
        return FilledScores(system, 0, math.nan, math.nan, math.nan, math.nan, math.nan, depth)
    means = np.empty(resamples)
    for b in range(resamples):
        cols = rng.integers(0, len(qids), len(qids))
        means[b] = table[b % draws, cols].mean()
    low, high = np.percentile(means, [2.5, 97.5])
    return FilledScores(system, len(qids), float(table[-1].mean()), float(low), float(high),
                        filled / max(shown, 1), unfilled / max(shown, 1), depth)


def chunk_probabilities(chunks: Sequence[tuple[str, str, int, int]],
                        filled: Mapping[str, Sequence[tuple[Any, float]]],
                        ) -> dict[str, dict[str, float]]:
    """{qid: {chunk id: P}}: each chunk (id, doc, start, end) overlapping a filled span takes
    the largest probability among those it overlaps."""
    by_doc: dict[str, list[tuple[str, int, int]]] = {}
    for cid, doc, start, end in chunks:
        by_doc.setdefault(doc, []).append((cid, start, end))
    out: dict[str, dict[str, float]] = {}
    for qid, spans in filled.items():
        mine: dict[str, float] = {}
        for span, p in spans:
            for cid, start, end in by_doc.get(span.doc, ()):
                if start < span.end and span.start < end:
                    mine[cid] = max(mine.get(cid, 0.0), p)
        out[qid] = mine
    return out
