"""`python -m benchmarks embed`: the default ingest embedder vs raw fp32 sentence-transformers.

Both embed the same passages in one process. The fast side is exactly what an ingest runs: the
preset's `TextEmbedder` (length-sorted batches, its backend, a fresh empty cache each round). The
reference is what a user would write by hand: `SentenceTransformer(all-MiniLM-L6-v2).encode`
(fp32 torch, default batch 32). Optional variants (other `embedding.onnx_variant` graphs) run the
same way in the same rounds. Rounds alternate them all and the best round of each is kept,
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

from benchmarks.timing import seconds
from rag.embed import EmbeddingConfig, TextEmbedder, load_backend
from rag.embed.cache import EmbeddingCache
from rag.embed.local_models import minilm_folder

if TYPE_CHECKING:  # torch is heavy: imported only when the bench runs
    from sentence_transformers import SentenceTransformer

REFERENCE = "SentenceTransformer(all-MiniLM-L6-v2).encode, fp32 torch, default batch (32)"


@dataclass(frozen=True)
class VariantThroughput:
    """One more embedder measured in the same rounds (the same texts, the same reference)."""

    onnx_variant: str
    model_id: str
    texts_per_s: float
    ratio: float  # texts/s vs the reference's best round
    cpu_seconds: float
    cpu_ratio: float  # reference CPU / this CPU
    min_cosine: float
    mean_cosine: float
    seconds: tuple[float, ...]


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
    variants: tuple[VariantThroughput, ...] = ()


def reference_model() -> SentenceTransformer:
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


@dataclass
class _Rounds:
    """(wall, cpu) seconds per round and the last round's vectors, for one embedder."""

    times: list[tuple[float, float]] = dataclasses.field(default_factory=list)
    vectors: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))

    def add(self, run: tuple[np.ndarray, float, float]) -> None:
        self.vectors = np.asarray(run[0])
        self.times.append((run[1], run[2]))

    @property
    def best(self) -> tuple[float, float]:
        return min(self.times)

    def cosines(self, reference: np.ndarray) -> np.ndarray:
        return (self.vectors * reference).sum(axis=1)


def embed_throughput(
    texts: Sequence[str],
    fast: EmbeddingConfig,
    rounds: int = 2,
    target_ratio: float = 4.0,
    variants: Sequence[str] = (),
) -> EmbedThroughput:
    """Texts/s of the `fast` embedder (cold cache) and of raw fp32 encode on the same texts;
    each of `variants` (onnx_variant names) is `fast` with that graph, timed in the same rounds."""
    import torch

    batch = list(texts)
    if not batch:
        raise ValueError("the embedding bench needs at least one text")
    others = {  # validated, so a misspelt variant fails before any timing
        v: EmbeddingConfig.model_validate({**fast.model_dump(), "backend": "onnx", "onnx_variant": v})
        for v in variants
    }
    load_before = os.getloadavg()
    reference = reference_model()
    reference.encode(batch[:8])  # warm-up: first-call allocations are not throughput
    for cfg in (fast, *others.values()):
        _fast_round(cfg, batch[:8])
    ref, ours = _Rounds(), _Rounds()
    theirs = {v: _Rounds() for v in others}
    for _ in range(rounds):
        ref.add(_cpu_and_wall(partial(reference.encode, batch, normalize_embeddings=True)))
        ours.add(_fast_round(fast, batch))
        for variant, cfg in others.items():
            theirs[variant].add(_fast_round(cfg, batch))
    cosines = ours.cosines(ref.vectors)
    fast_rate, reference_rate = len(batch) / ours.best[0], len(batch) / ref.best[0]
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
        fast_seconds=tuple(round(wall, 2) for wall, _ in ours.times),
        reference_seconds=tuple(round(wall, 2) for wall, _ in ref.times),
        fast_cpu_seconds=round(ours.best[1], 2),
        reference_cpu_seconds=round(ref.best[1], 2),
        cpu_ratio=round(ref.best[1] / max(ours.best[1], 1e-9), 2),
        load_average=load_before,
        load_average_after=os.getloadavg(),
        cpu_count=os.cpu_count() or 0,
        torch_threads=torch.get_num_threads(),
        variants=tuple(
            _variant(variant, load_backend(others[variant]).model_id, measured, ref, len(batch))
            for variant, measured in theirs.items()
        ),
    )


def _variant(
    name: str, model_id: str, measured: _Rounds, ref: _Rounds, n: int
) -> VariantThroughput:
    cosines = measured.cosines(ref.vectors)
    rate = n / measured.best[0]
    return VariantThroughput(
        onnx_variant=name,
        model_id=model_id,
        texts_per_s=round(rate, 2),
        ratio=round(rate * ref.best[0] / n, 2),
        cpu_seconds=round(measured.best[1], 2),
        cpu_ratio=round(ref.best[1] / max(measured.best[1], 1e-9), 2),
        min_cosine=round(float(cosines.min()), 5),
        mean_cosine=round(float(cosines.mean()), 5),
        seconds=tuple(round(wall, 2) for wall, _ in measured.times),
    )


def to_json(result: EmbedThroughput, corpus: str, preset: str) -> str:
    return json.dumps({"corpus": corpus, "preset": preset, **dataclasses.asdict(result)}, indent=2)


def summary_line(result: EmbedThroughput) -> str:
    r = result
    lines = [
        f"embedding {r.texts} passages: {r.fast_model_id} {r.fast_texts_per_s} texts/s vs raw fp32 "
        f"encode {r.reference_texts_per_s} texts/s = {r.ratio}x (target >= {r.target_ratio}x), "
        f"CPU {r.fast_cpu_seconds} s vs {r.reference_cpu_seconds} s = {r.cpu_ratio}x less; "
        f"cosine to fp32 min {r.min_cosine}, mean {r.mean_cosine}; load {r.load_average[0]:.1f}"
    ]
    lines += [
        f"  onnx_variant={v.onnx_variant}: {v.texts_per_s} texts/s = {v.ratio}x, CPU {v.cpu_seconds}"
        f" s = {v.cpu_ratio}x less; cosine to fp32 min {v.min_cosine}, mean {v.mean_cosine}"
        for v in r.variants
    ]
    return "\n".join(lines)
