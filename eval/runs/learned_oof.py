"""Out-of-fold learned fusion: every query is scored by a model fitted without it.

The queries are shuffled (seeded) into K folds; for each fold a model is fitted on the other
K − 1 folds' cached heads (eval.runs.learned_fusion) and the held-out queries run the pipeline's
tail with `fusion.method: learned` and that model (eval.runs.sweep.rescore). The K held-out runs
together are one run over every query, compared query by query (paired test) with baselines
run on the same queries. The in-sample figure (fit and score on every query) is reported beside
it: the gap is how much a fit on the test queries would flatter the method.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from eval.data.shapes import BeirDataset
from eval.runs.beir_index import beir_collection, eval_config
from eval.runs.candidates import QueryLists, retrieve_all
from eval.runs.learned_fusion import fit_learned_fusion
from eval.runs.preset_run import PresetRun, summarize
from eval.runs.sweep import rescore
from eval.scoring.metrics import DEFAULT_METRICS
from eval.scoring.stats import PairedComparison, paired_test
from rag.config import PipelineConfig, with_overrides
from rag.index import Collection
from rag.retrieve.fusion.learned import LearnedModel


@dataclass(frozen=True)
class OutOfFold:
    learned: PresetRun  # every query scored by the model of the fold that held it out
    in_sample: PresetRun  # fitted and scored on every query (optimistic, for comparison)
    folds: tuple[tuple[str, ...], ...]
    models: tuple[LearnedModel, ...]  # one per fold
    baselines: Mapping[str, PresetRun]
    paired: Mapping[str, PairedComparison]  # learned minus each baseline, on nDCG@10


def query_folds(qids: Sequence[str], k: int, seed: int = 0) -> tuple[tuple[str, ...], ...]:
    """K disjoint folds covering every query, shuffled with `seed` (sorted first: reproducible)."""
    if not 2 <= k <= len(qids):
        raise ValueError(f"folds must be between 2 and the number of queries ({len(qids)}), got {k}")
    order = sorted(qids)
    np.random.default_rng(seed).shuffle(order)
    return tuple(tuple(order[i::k]) for i in range(k))


def learned_config(config: PipelineConfig, model: Path) -> PipelineConfig:
    return with_overrides(config, {"fusion.method": "learned", "fusion.model": str(model)})


def _heads(dataset: BeirDataset, config: PipelineConfig) -> tuple[Collection, PipelineConfig,
                                                                  tuple[QueryLists, ...]]:
    config = eval_config(config, dataset)
    collection = beir_collection(dataset, config)
    heads, _ = retrieve_all(dataset, config, collection, config.retrieval.depth)
    return collection, config, heads


def out_of_fold(
    dataset: BeirDataset,
    config: PipelineConfig,
    model_dir: Path,
    baselines: Mapping[str, PipelineConfig],
    folds: int = 5,
    seed: int = 0,
    c: float = 1.0,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_resamples: int = 2000,
) -> OutOfFold:
    """Fit per fold, score held-out queries, compare with `baselines` (name -> config) on the
    same queries. Model files are written to `model_dir/fold<i>.model.json` and `all.model.json`."""
    now = datetime.now(UTC)
    collection, config, heads = _heads(dataset, config)
    depth = config.retrieval.depth
    by_qid = {h.qid: h for h in heads}
    split = query_folds(list(by_qid), folds, seed)
    outcomes, models = [], []
    for index, held_out in enumerate(split, start=1):
        training = [by_qid[q] for q in by_qid if q not in set(held_out)]
        path = model_dir / f"fold{index}.model.json"
        models.append(fit_learned_fusion(training, dataset.qrels, path, depth, c))
        scored = rescore(dataset, learned_config(config, path), [by_qid[q] for q in held_out],
                         collection, metrics, 10, seed, f"fold {index}", now)
        outcomes += scored.outcomes
    label = f"{config.name} learned (out of fold, {folds} folds)"
    learned = summarize(label, dataset, outcomes, metrics, n_resamples, seed)
    everything = model_dir / "all.model.json"
    fit_learned_fusion(heads, dataset.qrels, everything, depth, c)
    in_sample = rescore(dataset, learned_config(config, everything), heads, collection, metrics,
                        n_resamples, seed, f"{config.name} learned (in sample)", now)
    runs: dict[str, PresetRun] = {}
    paired: dict[str, PairedComparison] = {}
    for name, base in baselines.items():
        base_collection, base_config, base_heads = _heads(dataset, base)
        runs[name] = rescore(dataset, base_config, base_heads, base_collection, metrics,
                             n_resamples, seed, name, now)
        paired[name] = paired_test(runs[name].scores["ndcg@10"].values,
                                   learned.scores["ndcg@10"].values, seed=seed)
    return OutOfFold(learned, in_sample, split, tuple(models), runs, paired)
