"""Does a generated test set rank systems the way a human-labelled one does? (issue 24, item 7)

Every system (preset) is scored — nDCG@10, retrieval mode — on the human set and on each
generated set over the same corpus. Agreement between the two rankings of the systems is Kendall's
τ-b (Kendall 1938; the usual yardstick for test-collection agreement since Voorhees 2000, who
read τ ≥ 0.9 as "equivalent", below 0.8 as "noticeably different"), beside Pearson and Spearman
correlations of the per-system means. Confidence intervals come from a bootstrap over queries:
both sets' queries are resampled (independently, with replacement), the system means recomputed
and the statistics recomputed (percentile intervals). The human set's own split-half τ (its
queries split at random into halves, τ between the halves' rankings) says how stable the human
ranking itself is: a generated set cannot be expected to agree with it better than that.

Separation (eval.scoring.separation): for each set, which system pairs a paired test separates
(p < 0.05) and how many questions the closest pair would need, said in words ("tied within
noise") as well as in numbers.

Pool bias (Zobel 1998; Buckley et al. 2007): the human judgments are held back and only what a
depth-k pool of the systems brings up is judged with them; unjudged = non-relevant. Two pools: all
systems (every system's top k judged: scores move only through the relevance that no system
found), and leave-one-out (each system scored with the pool of the others — the bias against a
new system that finds what the pooled ones missed). Span labels are pooled by overlap: a labelled
span is found when a pooled passage overlaps it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from scipy import stats

from eval.data.beir import load_beir, load_qa_file
from eval.data.evalsets import EvalSet, qa_eval_set
from eval.data.qa import QASet, Span, span_relevance
from eval.data.shapes import Qrels
from eval.runs.beir_index import beir_collection
from eval.runs.evalset_runner import score_config
from eval.scoring.metrics import evaluate
from eval.scoring.separation import separation
from rag.chunking.base import Chunk
from rag.config import load_preset, preset_yaml

SYSTEMS: tuple[str, ...] = ("bm25", "dense", "hybrid", "axiom", "echomind", "adaptive", "vexora",
                            "intellidocs")
METRIC = "ndcg@10"
POOL_DEPTH = 10
MIN_QUERIES = 3  # fewer cannot order eight systems at all: such a set is reported, not scored


@dataclass(frozen=True)
class SystemRun:
    """One system on one set: each query's ranking (unit id -> score) and its nDCG@10."""

    results: Mapping[str, Mapping[str, float]]
    ndcg: Mapping[str, float]
    chunks: Mapping[str, Chunk]  # unit id -> chunk, for span sets (empty for document sets)


# -- building the sets ------------------------------------------------------------------------------

def human_set(corpus: Path, human: Path) -> EvalSet:
    """The human set: a BEIR folder (its queries and qrels), or a QA file over a folder of documents."""
    if human.is_dir():
        return EvalSet(load_beir(human))
    return qa_eval_set(load_qa_file(human), corpus)


def sibling_set(base: EvalSet, qa: QASet) -> EvalSet:
    """`qa` over the same corpus as `base`, in the same unit: a document set gets each row's
    documents as qrels (the spans name them), a span set its spans. The dataset keeps `base`'s
    name and content hash, so every system reuses the collection it built for `base`."""
    queries = {i.qid: i.question for i in qa.items if i.answerable}
    if base.unit == "document":
        qrels = {i.qid: dict.fromkeys(i.relevant_docs, 1) for i in qa.items
                 if i.answerable and i.relevant_docs}
        missing = sorted({d for rel in qrels.values() for d in rel} - set(base.dataset.corpus))
        if missing:
            raise ValueError(f"{qa.source}: documents not in the corpus: {', '.join(missing[:5])}")
        return EvalSet(replace(base.dataset, queries=queries, qrels=qrels, source=qa.source))
    spans = {i.qid: i.spans for i in qa.items if i.answerable and i.spans}
    return EvalSet(replace(base.dataset, queries=queries, qrels=qa.doc_qrels(), source=qa.source),
                   MappingProxyType(spans))


# -- scoring ----------------------------------------------------------------------------------------

def run_key(evalset: EvalSet, system: str) -> str:
    """What a system's run on a set depends on: the corpus, the questions, the labels, the preset."""
    d = evalset.dataset
    qrels = sorted((q, sorted(r.items())) for q, r in d.qrels.items())
    stamp = repr((d.content_hash, sorted(d.queries.items()), qrels, sorted(evalset.spans.items()),
                  preset_yaml(load_preset(system))))
    return hashlib.sha256(stamp.encode()).hexdigest()[:20]


def run_system(evalset: EvalSet, system: str, cache: Path | None = None) -> SystemRun:
    """The system's rankings and nDCG@10 on the set; with `cache`, kept there as JSON and read back
    (a long validation interrupted resumes where it stopped)."""
    config = load_preset(system)
    path = cache / f"{system}-{run_key(evalset, system)}.json" if cache is not None else None
    if path is not None and path.is_file():
        saved = json.loads(path.read_text())
        results, ndcg = saved["results"], saved["ndcg"]
    else:
        scored = score_config(evalset, config, system, metrics=(METRIC,), n_resamples=1)
        results = {o.qid: dict(o.ranking) for o in scored.run.outcomes if o.error is None}
        ndcg = dict(scored.run.scores[METRIC].values)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"results": results, "ndcg": ndcg}))
    chunks: dict[str, Chunk] = {}
    if evalset.unit == "chunk":
        chunks = {c.chunk_id: c for c in beir_collection(evalset.dataset, config, progress=False).chunks()}
    return SystemRun(results, ndcg, chunks)


def ndcg_with(run: SystemRun, qrels: Qrels) -> dict[str, float]:
    """The run's nDCG@10 per query against other judgments (queries with none relevant dropped)."""
    judged = {q: r for q, r in qrels.items() if any(v > 0 for v in r.values())}
    return dict(evaluate(judged, run.results, (METRIC,))[METRIC].values)


def score_matrix(runs: Mapping[str, SystemRun], queries: Sequence[str]) -> np.ndarray:
    """systems × queries nDCG@10 (a query a system failed scores 0)."""
    return np.array([[runs[s].ndcg.get(q, 0.0) for q in queries] for s in runs])


# -- agreement --------------------------------------------------------------------------------------

def agreement(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Kendall τ-b (with its exact/asymptotic p against no association), Pearson r, Spearman ρ;
    NaN when either side gives every system the same score (no ranking to compare)."""
    if np.std(a) == 0 or np.std(b) == 0:
        return dict.fromkeys(("kendall_tau", "tau_p", "pearson", "spearman"), math.nan)
    tau = stats.kendalltau(a, b)
    return {"kendall_tau": _num(tau.statistic), "tau_p": _num(tau.pvalue),
            "pearson": _num(stats.pearsonr(a, b).statistic),
            "spearman": _num(stats.spearmanr(a, b).statistic)}


def bootstrap_agreement(human: np.ndarray, generated: np.ndarray, n_resamples: int = 1000,
                        seed: int = 0) -> dict[str, list[float]]:
    """95% percentile intervals of τ, Pearson and Spearman with both sets' queries resampled."""
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {"kendall_tau": [], "pearson": [], "spearman": []}
    for _ in range(n_resamples):
        h = human[:, rng.integers(0, human.shape[1], human.shape[1])].mean(axis=1)
        g = generated[:, rng.integers(0, generated.shape[1], generated.shape[1])].mean(axis=1)
        values = agreement(h, g)
        for key in draws:
            if math.isfinite(values[key]):
                draws[key].append(values[key])
    return {k: [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))] if v else [math.nan] * 2
            for k, v in draws.items()}


def split_half_tau(matrix: np.ndarray, n_splits: int = 200, seed: int = 0) -> dict[str, float]:
    """τ between the system rankings of two random halves of one set's queries: its own stability."""
    rng = random.Random(seed)
    n = matrix.shape[1]
    taus = []
    for _ in range(n_splits):
        order = list(range(n))
        rng.shuffle(order)
        first, second = order[: n // 2], order[n // 2:]
        tau = stats.kendalltau(matrix[:, first].mean(axis=1), matrix[:, second].mean(axis=1)).statistic
        if math.isfinite(tau):
            taus.append(tau)
    return {"mean": float(np.mean(taus)), "p2_5": float(np.percentile(taus, 2.5)),
            "p97_5": float(np.percentile(taus, 97.5)), "splits": len(taus)}


def shuffled_labels_null(evalset: EvalSet, runs: Mapping[str, SystemRun], human_means: Sequence[float],
                         n_shuffles: int = 200, seed: int = 0) -> dict[str, float]:
    """τ with the human ranking when the set's labels are shuffled among its questions: what a set
    gets from the systems' structural differences alone (chunk sizes, how many units overlap a
    span), with no question matched to its answer. A set is better than chance when its τ is
    above this null's 95th percentile."""
    rng = random.Random(seed)
    systems = list(runs)
    labelled = sorted(evalset.spans if evalset.unit == "chunk" else evalset.dataset.qrels)
    taus = []
    for _ in range(n_shuffles):
        moved = labelled[:]
        rng.shuffle(moved)
        means = []
        for s in systems:
            if evalset.unit == "chunk":
                qrels = span_relevance(runs[s].chunks.values(),
                                       {q: evalset.spans[m] for q, m in zip(labelled, moved, strict=True)})
            else:
                qrels = {q: evalset.dataset.qrels[m] for q, m in zip(labelled, moved, strict=True)}
            means.append(_mean(ndcg_with(runs[s], qrels).values()))
        tau = agreement(human_means, means)["kendall_tau"]
        if math.isfinite(tau):
            taus.append(tau)
    if not taus:
        return {"mean": math.nan, "p95": math.nan, "shuffles": 0}
    return {"mean": float(np.mean(taus)), "p95": float(np.percentile(taus, 95)), "shuffles": len(taus)}


# -- pool bias --------------------------------------------------------------------------------------

def _top(run: SystemRun, qid: str, depth: int) -> list[str]:
    ranking = run.results.get(qid, {})
    return sorted(ranking, key=lambda d: (ranking[d], d), reverse=True)[:depth]


def pooled_qrels(evalset: EvalSet, runs: Mapping[str, SystemRun], pool_of: Sequence[str],
                 scored: SystemRun, depth: int = POOL_DEPTH) -> Qrels:
    """The judgments a depth-`depth` pool of `pool_of` recovers, as qrels over `scored`'s units."""
    queries = evalset.dataset.queries
    if evalset.unit == "document":
        full = evalset.dataset.qrels
        return {q: {d: r for d, r in full.get(q, {}).items()
                    if any(d in _top(runs[s], q, depth) for s in pool_of)} for q in queries}
    found: dict[str, tuple[Span, ...]] = {}
    for q, spans in evalset.spans.items():
        pooled = [runs[s].chunks[u] for s in pool_of for u in _top(runs[s], q, depth) if u in runs[s].chunks]
        found[q] = tuple(sp for sp in spans if any(c.doc_id == sp.doc and sp.overlaps(c.start, c.end)
                                                   for c in pooled))
    return span_relevance(scored.chunks.values(), found)


def full_qrels(evalset: EvalSet, run: SystemRun) -> Qrels:
    if evalset.unit == "chunk":
        return span_relevance(run.chunks.values(), evalset.spans)
    return evalset.dataset.qrels


def pool_bias(evalset: EvalSet, runs: Mapping[str, SystemRun], depth: int = POOL_DEPTH) -> dict[str, Any]:
    """Each system's mean nDCG@10 with full judgments, with the all-systems pool and with the
    leave-one-out pool, and τ between the full-judgment ranking and each pooled one."""
    systems = list(runs)
    per_system: dict[str, dict[str, float]] = {}
    for s in systems:
        full = ndcg_with(runs[s], full_qrels(evalset, runs[s]))
        everyone = ndcg_with(runs[s], pooled_qrels(evalset, runs, systems, runs[s], depth))
        rest = [o for o in systems if o != s]
        others = ndcg_with(runs[s], pooled_qrels(evalset, runs, rest, runs[s], depth))
        per_system[s] = {"full": _mean(full.values()), "pool_all": _mean(everyone.values()),
                         "pool_leave_one_out": _mean(others.values()),
                         "queries_full": len(full), "queries_pool_all": len(everyone),
                         "queries_pool_leave_one_out": len(others)}
    full_scores = [per_system[s]["full"] for s in systems]
    return {"depth": depth, "per_system": per_system,
            "tau_full_vs_pool_all": agreement(full_scores, [per_system[s]["pool_all"] for s in systems]),
            "tau_full_vs_leave_one_out": agreement(full_scores,
                                                   [per_system[s]["pool_leave_one_out"] for s in systems])}


# -- the whole validation ---------------------------------------------------------------------------

def validate(human: EvalSet, generated: Mapping[str, EvalSet], systems: Sequence[str] = SYSTEMS, *,
             n_resamples: int = 1000, seed: int = 0, cache: Path | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Score every system on every set; agreement of each generated set with the human one."""
    say = progress or (lambda _: None)
    too_few = {label: len(e.dataset.queries) for label, e in generated.items()
               if len(e.dataset.queries) < MIN_QUERIES}
    sets = {"human": human, **{k: v for k, v in generated.items() if k not in too_few}}
    runs: dict[str, dict[str, SystemRun]] = {}
    for label, evalset in sets.items():
        runs[label] = {}
        for system in systems:
            say(f"{label}: {system} ({len(evalset.dataset.queries)} queries)")
            runs[label][system] = run_system(evalset, system, cache)
    matrices = {label: score_matrix(runs[label], sorted(runs[label][systems[0]].ndcg)) for label in sets}
    means = {label: dict(zip(systems, m.mean(axis=1).tolist(), strict=True)) for label, m in matrices.items()}
    report: dict[str, Any] = {
        "metric": METRIC, "systems": list(systems),
        "sets": {label: {"queries": int(m.shape[1]), "source": sets[label].dataset.source,
                         "unit": sets[label].unit, "ndcg@10": means[label],
                         "ranking": sorted(systems, key=lambda s: -means[label][s]),
                         "split_half_tau": split_half_tau(m, seed=seed)}
                 for label, m in matrices.items()},
        "agreement": {},
        "resamples": n_resamples, "seed": seed,
    }
    for label in sets:  # which pairs each set separates, and what the closest would need
        say(f"{label}: paired tests between systems")
        report["sets"][label]["separation"] = separation(
            {s: dict(runs[label][s].ndcg) for s in systems}, METRIC, seed=seed).as_dict()
    for label, count in too_few.items():
        report["sets"][label] = {"queries": count, "source": generated[label].dataset.source,
                                 "skipped": f"{count} question(s): too few to rank {len(systems)} systems"}
    h = [means["human"][s] for s in systems]
    for label in sets:
        if label == "human":
            continue
        g = [means[label][s] for s in systems]
        say(f"{label}: bootstrap and shuffled-label null")
        report["agreement"][label] = agreement(h, g) | {
            "ci95": bootstrap_agreement(matrices["human"], matrices[label], n_resamples, seed),
            "shuffled_labels_null": shuffled_labels_null(sets[label], runs[label], h, seed=seed)}
    say("pool bias on the human set")
    report["pool_bias"] = pool_bias(human, runs["human"])
    return report


def _mean(values: Any) -> float:
    values = list(values)
    return float(np.mean(values)) if values else math.nan


def _num(x: Any) -> float:
    return float(x) if x is not None and math.isfinite(float(x)) else math.nan
