"""Honest scores on incomplete judgments: how much of a system's top k nobody judged, and metrics
that read judged passages only.

Pooled judging (TREC style) labels the union of a few systems' top k; a system outside the pool,
or ranked deeper, retrieves passages nobody looked at. nDCG counts those as not relevant, so its
score is a lower bound. Beside it:

- unjudged@k: the share of the system's top k absent from the judgments (relevant or not);
- bpref (Buckley & Voorhees 2004, trec_eval's form): for each judged relevant passage retrieved,
  1 - (judged non-relevant passages ranked above it, capped at R) / min(R, N), summed and divided
  by R (R relevant, N non-relevant judgments); unjudged passages are ignored;
- condensed nDCG@k (Sakai 2007): nDCG@k of the ranking with every unjudged passage removed.

A system whose top k is more than `UNJUDGED_WARNING` unjudged gets a warning: its nDCG is a lower
bound and the judged-only metrics are the fairer comparison.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.data.shapes import Qrels, Results
from eval.scoring.metrics import parse_metric, query_metrics, trec_ranking

UNJUDGED_WARNING = 0.30  # more than this share of a top 10 unjudged: the score is a lower bound
DEPTH = 10


def unjudged_at(ranking: Sequence[str], judged: Mapping[str, int], k: int = DEPTH) -> float:
    """Share of the first k of `ranking` (best first) that has no judgment; 0 for an empty list."""
    top = list(ranking[:k])
    return sum(doc not in judged for doc in top) / len(top) if top else 0.0


def bpref(ranking: Sequence[str], judged: Mapping[str, int]) -> float:
    """bpref of one ranking (best first) against judgments {doc: relevance}, 0 when nothing
    judged relevant (as trec_eval)."""
    n_rel = sum(r > 0 for r in judged.values())
    n_non = sum(r <= 0 for r in judged.values())
    if n_rel == 0:
        return 0.0
    cap = min(n_rel, n_non)
    above, total = 0, 0.0
    for doc in ranking:
        if doc not in judged:
            continue  # unjudged: neither rewarded nor penalised
        if judged[doc] > 0:
            total += 1.0 - (min(above, n_rel) / cap if cap else 0.0)
        else:
            above += 1
    return total / n_rel


def condensed(ranking: Sequence[str], judged: Mapping[str, int]) -> list[str]:
    """The ranking with every unjudged passage removed (Sakai 2007's condensed list)."""
    return [doc for doc in ranking if doc in judged]


def condensed_ndcg(ranking: Sequence[str], judged: Mapping[str, int], k: int = DEPTH) -> float:
    """nDCG@k over the condensed list (judged passages only), trec_eval's nDCG definition."""
    kept = condensed(ranking, judged)
    # strictly decreasing scores keep the condensed order through trec_ranking
    scores = {doc: float(len(kept) - i) for i, doc in enumerate(kept)}
    return query_metrics(judged, scores, [parse_metric(f"ndcg@{k}")])[f"ndcg@{k}"]


@dataclass(frozen=True)
class JudgedScores:
    """One system's honest figures, means over the queries it was scored on."""

    system: str
    queries: int
    unjudged: float  # mean share of its top `depth` nobody judged
    ndcg: float  # plain nDCG@depth (unjudged = not relevant): a lower bound
    condensed_ndcg: float
    bpref: float
    depth: int = DEPTH

    @property
    def lower_bound(self) -> bool:
        """More than UNJUDGED_WARNING of its top `depth` unjudged: nDCG understates it."""
        return self.unjudged > UNJUDGED_WARNING

    def warning(self) -> str | None:
        if not self.lower_bound:
            return None
        return (f"{self.system}: {self.unjudged:.0%} of its top {self.depth} was never judged "
                f"(over {UNJUDGED_WARNING:.0%}), so its nDCG@{self.depth} {self.ndcg:.3f} is a "
                f"lower bound; compare on bpref or condensed nDCG, or judge more of its passages.")

    def as_json(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {"system": self.system, "queries": self.queries, "depth": self.depth,
                f"unjudged@{self.depth}": num(self.unjudged), f"ndcg@{self.depth}": num(self.ndcg),
                f"condensed_ndcg@{self.depth}": num(self.condensed_ndcg),
                "bpref": num(self.bpref), "lower_bound": self.lower_bound,
                "warning": self.warning()}


def judged_scores(system: str, qrels: Qrels, results: Results, depth: int = DEPTH) -> JudgedScores:
    """Mean unjudged@depth, nDCG@depth, condensed nDCG@depth and bpref over the queries in both
    `qrels` (judgments with 0 for judged non-relevant) and `results` ({qid: {doc: score}})."""
    qids = sorted(qrels.keys() & results.keys())
    rows = []
    for qid in qids:
        judged, ranking = qrels[qid], trec_ranking(results[qid])
        plain = query_metrics(judged, results[qid], [parse_metric(f"ndcg@{depth}")])
        rows.append((unjudged_at(ranking, judged, depth), plain[f"ndcg@{depth}"],
                     condensed_ndcg(ranking, judged, depth), bpref(ranking, judged)))

    def mean(i: int) -> float:
        return sum(r[i] for r in rows) / len(rows) if rows else math.nan

    return JudgedScores(system, len(rows), mean(0), mean(1), mean(2), mean(3), depth)
