"""What a cross-validated tune costs next to one plain run, timed in one process on the same data.

Same policy as benchmarks.sweep_cost: the collection is built and the embedding model loaded by
an untimed warm-up run, so query embeddings are warm on both sides; the in-memory candidate
cache is emptied before each side and the tune's on-disk list cache is off, so both pay their
searches. The plain run searches, fuses and scores every query once; the tune searches every
query once (at the space's deepest depth), then runs K fold searches and one all-query search of
`trials` points each, every point re-running the pipeline's tail over the cached lists.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from eval.data.shapes import BeirDataset
from eval.runs.beir_index import beir_collection, make_searcher
from eval.runs.preset_run import run_preset
from eval.scoring.metrics import DEFAULT_METRICS
from eval.tune.protocol import run_tune
from eval.tune.space import Space
from rag.config import PipelineConfig
from rag.retrieve.search import clear_candidate_cache


@dataclass(frozen=True)
class TuneCost:
    dataset: str
    preset: str
    space: str
    n_queries: int
    folds: int
    trials: int
    plain_s: float
    tune_s: float
    retrieval_s: float  # the tune's head runs (searching every query once)
    rescoring_s: float  # every tail it ran, metrics included
    tail_runs: int  # query x point tails actually run (repeated points are memoized)
    ratio: float  # tune_s / plain_s
    per_tail_ms: float
    load: str  # `uptime` load averages while it ran (the machine is shared)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def run_tune_cost(dataset: BeirDataset, base: PipelineConfig, space: Space, space_name: str,
                  folds: int = 5, trials: int = 50, n_resamples: int = 1000) -> TuneCost:
    """One plain run and one tune, both with cold candidate lists and warm embeddings."""
    beir_collection(dataset, base)  # untimed: build the index if missing
    warm = make_searcher(dataset, base, progress=False)
    run_preset(dataset, base.name, warm, DEFAULT_METRICS, 10)  # untimed: model, embeddings
    clear_candidate_cache()
    start = time.perf_counter()
    run_preset(dataset, base.name, make_searcher(dataset, base, progress=False),
               DEFAULT_METRICS, n_resamples)
    plain = time.perf_counter() - start
    clear_candidate_cache()
    start = time.perf_counter()
    result = run_tune(dataset, base, space, folds, trials, use_cache=False, progress=False,
                      note=lambda _: None)
    tuned = time.perf_counter() - start
    return TuneCost(dataset.name, base.name, space_name, len(dataset.queries), folds, trials,
                    plain, tuned, result.retrieval_s, result.rescoring_s, result.tails,
                    tuned / plain, result.rescoring_s / max(result.tails, 1) * 1000, _load())


def summary_lines(cost: TuneCost) -> list[str]:
    return [f"{cost.dataset}: {cost.n_queries} queries, preset {cost.preset}, space "
            f"{cost.space}: plain run {cost.plain_s:.1f} s; tune ({cost.folds} folds + all, "
            f"{cost.trials} trials each) {cost.tune_s:.1f} s = {cost.ratio:.1f}x plain "
            f"(searching {cost.retrieval_s:.1f} s, {cost.tail_runs} tails "
            f"{cost.rescoring_s:.1f} s = {cost.per_tail_ms:.2f} ms/tail; load {cost.load})"]
