"""Ceiling diagnostics of a scored configuration, and the verdict: fix retrieval or ranking?

Built on eval.diagnostics.ceiling (recall any retriever reached at each depth; the nDCG@k an oracle
reranker reaches by reordering the run's own candidates by true relevance). Added here: the
recall of each retriever's list beside their union, the retrieval for it (once per set and
settings, at the deepest depth, cached on disk), span sets judged per chunk, and a verdict:

- retrieval gap = 1 - oracle nDCG@k: relevant units the final candidates never contained —
  either no retriever found them within its depth ("retrieval"), or the lists had them and a
  post-step (threshold, top-k, filters) dropped them ("filtering");
- ranking gap = oracle nDCG@k - actual nDCG@k: relevant units kept but ranked too low.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal

from eval.data.evalsets import EvalSet, chunk_unit_lists
from eval.data.shapes import Qrels
from eval.diagnostics.ceiling import DEPTHS, Ceiling, ceiling, recall_at_depth
from eval.runs.beir_index import beir_collection
from eval.runs.candidates import QueryLists, retrieve_all
from eval.runs.evalset_runner import ScoredRun
from eval.runs.preset_run import PresetRun

ANY = "any retriever"
NEAR_CEILING = 0.02  # gaps below this are noise on sample-sized sets, not a bottleneck

Bottleneck = Literal["retrieval", "filtering", "ranking", "none"]


@dataclass(frozen=True)
class Verdict:
    bottleneck: Bottleneck
    retrieval_gap: float  # 1 - oracle nDCG@k
    ranking_gap: float  # oracle nDCG@k - actual nDCG@k
    message: str


@dataclass(frozen=True)
class CeilingReport:
    """Recall at depth per list (ANY = their union) and oracle vs actual nDCG@k of one run."""

    label: str
    pool_depth: int  # how deep the configuration retrieves (retrieval.depth)
    recall: Mapping[str, Mapping[int, float]]  # ANY or list name -> depth -> mean recall
    final_recall: float  # mean share of relevant units among the run's final candidates
    ceiling: Ceiling

    def verdict(self) -> Verdict:
        c = self.ceiling
        retrieval_gap, ranking_gap = 1.0 - c.oracle_ndcg, c.oracle_ndcg - c.actual_ndcg
        if not (math.isfinite(retrieval_gap) and math.isfinite(ranking_gap)):
            return Verdict("none", retrieval_gap, ranking_gap,
                           "No scored query with a relevant unit: nothing to diagnose.")
        if max(retrieval_gap, ranking_gap) < NEAR_CEILING:
            return Verdict("none", retrieval_gap, ranking_gap,
                           f"Near the ceiling: nDCG@{c.k} {c.actual_ndcg:.3f}, "
                           f"oracle {c.oracle_ndcg:.3f}.")
        if retrieval_gap >= ranking_gap:
            found = _at_most(self.recall.get(ANY, {}), self.pool_depth)
            if found - self.final_recall >= NEAR_CEILING:
                return Verdict("filtering", retrieval_gap, ranking_gap,
                               f"Fix filtering: the lists held {found:.0%} of the relevant units "
                               f"within depth {self.pool_depth}, the final candidates only "
                               f"{self.final_recall:.0%}; threshold, top-k or filters dropped "
                               f"them (oracle nDCG@{c.k} {c.oracle_ndcg:.3f}).")
            return Verdict("retrieval", retrieval_gap, ranking_gap,
                           f"Fix retrieval: the final candidates hold {self.final_recall:.0%} "
                           f"of the relevant units, so even a perfect reranker stops at "
                           f"nDCG@{c.k} {c.oracle_ndcg:.3f} (actual {c.actual_ndcg:.3f}).")
        return Verdict("ranking", retrieval_gap, ranking_gap,
                       f"Fix ranking: the candidates allow nDCG@{c.k} {c.oracle_ndcg:.3f} but "
                       f"the configuration reaches {c.actual_ndcg:.3f}; a better reranker or "
                       f"fusion could gain {ranking_gap:.3f}.")


def _at_most(by_depth: Mapping[int, float], depth: int) -> float:
    """Recall at the deepest measured depth not beyond `depth` (NaN when none)."""
    usable = [d for d in by_depth if d <= depth]
    return by_depth[max(usable)] if usable else math.nan


def _only(cached: Sequence[QueryLists], name: str) -> list[QueryLists]:
    return [replace(q, lists=MappingProxyType({name: q.lists[name]} if name in q.lists else {}))
            for q in cached]


def per_list_recall(
    qrels: Qrels, cached: Sequence[QueryLists], depths: Sequence[int] = DEPTHS
) -> dict[str, dict[int, float]]:
    """Recall at depth of the union of lists (ANY), then of each list on its own."""
    names = dict.fromkeys(name for q in cached for name in q.lists)
    return {ANY: recall_at_depth(qrels, cached, depths),
            **{name: recall_at_depth(qrels, _only(cached, name), depths) for name in names}}


def final_recall(qrels: Qrels, run: PresetRun) -> float:
    """Mean over judged, scored queries of the share of relevant units the run returned."""
    shares = []
    for outcome in run.outcomes:
        relevant = {u for u, rel in qrels.get(outcome.qid, {}).items() if rel > 0}
        if outcome.error is None and relevant:
            shares.append(len(relevant & outcome.ranking.keys()) / len(relevant))
    return math.fsum(shares) / len(shares) if shares else math.nan


def report(
    label: str, qrels: Qrels, cached: Sequence[QueryLists], scored: ScoredRun, k: int = 10,
    depths: Sequence[int] = DEPTHS,
) -> CeilingReport:
    """The report of a run from lists already retrieved (pure: no index, no model); recall is
    measured at the run's own depth too."""
    pool = scored.config.retrieval.depth
    depths = sorted({*depths, pool})
    return CeilingReport(label, pool,
                         per_list_recall(qrels, cached, depths), final_recall(qrels, scored.run),
                         ceiling(qrels, cached, scored.run, k, depths))


def diagnose(
    evalset: EvalSet, scored: ScoredRun, k: int = 10, depths: Sequence[int] = DEPTHS,
    use_cache: bool = True,
) -> CeilingReport:
    """Retrieve every query of the set once at the deepest depth with the run's settings (cached
    on disk), then report its ceilings. The oracle reorders the run's own final candidates."""
    config = scored.config
    collection = beir_collection(evalset.dataset, config, progress=False)
    cached, _ = retrieve_all(evalset.dataset, config, collection, max(depths), use_cache)
    qrels = evalset.qrels_for(collection.chunks())
    if evalset.unit == "chunk":
        cached = chunk_unit_lists(cached)
    return report(scored.label, qrels, cached, scored, k, depths)
