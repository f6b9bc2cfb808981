"""`python -m eval bench embed`: the default ingest embedder vs raw fp32 sentence-transformers.

Both embed the same passages in one process. The fast side is exactly what an ingest runs: the
preset's `TextEmbedder` (length-sorted batches, its backend, a fresh empty cache each round). The
reference is what a user would write by hand: `SentenceTransformer(all-MiniLM-L6-v2).encode`
(fp32 torch, default batch 32). Rounds alternate the two and the best round of each is kept,
which discounts bursts of other load on a shared machine; the load average is recorded beside it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from eval.bench.timing import seconds
from rag.embed import EmbeddingConfig, TextEmbedder, load_backend
from rag.embed.cache import EmbeddingCache
from rag.embed.local_models import minilm_folder

if TYPE_CHECKING:  # torch is heavy: imported only when the bench runs
    from sentence_transformers import SentenceTransformer

REFERENCE = "SentenceTransformer(all-MiniLM-L6-v2).encode, fp32 torch, default batch (32)"


@dataclass(frozen=True)
class EmbedThroughput:
    texts: int
    mean_chars: float
    fast_model_id: str
    fast_batch_size: int
    fast_texts_per_s: float
    reference: str
    reference_texts_per_s: float
    ratio: float  # fast / reference texts per second
    target_ratio: float
    min_cosine: float  # fast vs reference vector of the same text: the worst text
    mean_cosine: float
    rounds: int
    fast_seconds: tuple[float, ...]  # every round, so the spread is visible
    reference_seconds: tuple[float, ...]
    # process CPU seconds (all threads) of the best round: under heavy load wall time measures the
    # share of the cores each side got, CPU time what the work costs
    fast_cpu_seconds: float
    reference_cpu_seconds: float
    cpu_ratio: float  # reference CPU / fast CPU for the same texts
    load_average: tuple[float, float, float]  # before the first round
    load_average_after: tuple[float, float, float]
    cpu_count: int
    torch_threads: int


def _reference_model() -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(minilm_folder()), device="cpu", local_files_only=True)


def _cpu_and_wall(fn: Callable[[], np.ndarray]) -> tuple[np.ndarray, float, float]:
    cpu = time.process_time()
    result, wall = seconds(fn)
    return result, wall, time.process_time() - cpu


def _fast_round(cfg: EmbeddingConfig, texts: list[str]) -> tuple[np.ndarray, float, float]:
    """One cold ingest-style embedding of `texts` (an empty cache in a temporary folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        embedder = TextEmbedder(load_backend(cfg), cfg, EmbeddingCache(Path(tmp) / "cold.sqlite"))
        embedder.show_progress = False
        return _cpu_and_wall(partial(embedder.embed_documents, texts))


def embed_throughput(
    texts: Sequence[str], fast: EmbeddingConfig, rounds: int = 2, target_ratio: float = 4.0
) -> EmbedThroughput:
    """Texts/s of the `fast` embedder (cold cache) and of raw fp32 encode on the same texts."""
    import torch

    batch = list(texts)
    if not batch:
        raise ValueError("the embedding bench needs at least one text")
    load_before = os.getloadavg()
    reference = _reference_model()
    reference.encode(batch[:8])  # warm-up: first-call allocations are not throughput
    _fast_round(fast, batch[:8])
    fast_s: list[tuple[float, float]] = []  # (wall, cpu) per round
    reference_s: list[tuple[float, float]] = []
    ours = raw = np.zeros(0)
    for _ in range(rounds):
        raw, wall, cpu = _cpu_and_wall(partial(reference.encode, batch, normalize_embeddings=True))
        reference_s.append((wall, cpu))
        ours, wall, cpu = _fast_round(fast, batch)
        fast_s.append((wall, cpu))
    fast_best, reference_best = min(fast_s), min(reference_s)
    cosines = (np.asarray(ours) * np.asarray(raw)).sum(axis=1)
    fast_rate, reference_rate = len(batch) / fast_best[0], len(batch) / reference_best[0]
    return EmbedThroughput(
        texts=len(batch),
        mean_chars=round(sum(map(len, batch)) / len(batch), 1),
        fast_model_id=load_backend(fast).model_id,
        fast_batch_size=fast.batch_size,
        fast_texts_per_s=round(fast_rate, 2),
        reference=REFERENCE,
        reference_texts_per_s=round(reference_rate, 2),
        ratio=round(fast_rate / reference_rate, 2),
        target_ratio=target_ratio,
        min_cosine=round(float(cosines.min()), 5),
        mean_cosine=round(float(cosines.mean()), 5),
        rounds=rounds,
        fast_seconds=tuple(round(wall, 2) for wall, _ in fast_s),
        reference_seconds=tuple(round(wall, 2) for wall, _ in reference_s),
        fast_cpu_seconds=round(fast_best[1], 2),
        reference_cpu_seconds=round(reference_best[1], 2),
        cpu_ratio=round(reference_best[1] / max(fast_best[1], 1e-9), 2),
        load_average=load_before,
        load_average_after=os.getloadavg(),
        cpu_count=os.cpu_count() or 0,
        torch_threads=torch.get_num_threads(),
    )


def to_json(result: EmbedThroughput, corpus: str, preset: str) -> str:
    return json.dumps({"corpus": corpus, "preset": preset, **dataclasses.asdict(result)}, indent=2)


def summary_line(result: EmbedThroughput) -> str:
    r = result
    return (
        f"embedding {r.texts} passages: {r.fast_model_id} {r.fast_texts_per_s} texts/s vs raw fp32 "
        f"encode {r.reference_texts_per_s} texts/s = {r.ratio}x (target >= {r.target_ratio}x), "
        f"CPU {r.fast_cpu_seconds} s vs {r.reference_cpu_seconds} s = {r.cpu_ratio}x less; "
        f"cosine to fp32 min {r.min_cosine}, mean {r.mean_cosine}; load {r.load_average[0]:.1f}"
    )
