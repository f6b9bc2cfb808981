"""`python -m benchmarks roofline`: could any int8 MiniLM embed 4x as fast as fp32 torch here?

One process, the same passages as `bench embed`:
1. work — tokens per passage (MiniLM's tokenizer, cut at its max_seq_length), the padding each
   path adds, and the FLOPs of the model's products from its config (roofline_work);
2. achieved — the reference `SentenceTransformer.encode` (fp32, batch 32, torch threads as set)
   and our onnx graphs, timed by `bench embed`'s own rounds: texts/s and useful GFLOP/s;
3. ceilings — GFLOP/s of this machine's fp32, bf16 and int8 matrix-product kernels on MiniLM's
   shapes at the token counts the paths run (roofline_ceilings), and the int8 graphs' time per op
   type from onnxruntime's profiler (roofline_profile);
4. the bound — the reference's wall time over the least time the int8 path could take if its
   products ran at the fastest int8 rate measured on their shape and everything else kept its
   measured cost.

Every assumption in the bound flatters the fast path (README "A roofline") except one: what is
not a product costs what onnxruntime charges for it now. So a bound below the target means the
target needs faster non-product kernels or a change in what is computed (shorter texts, a smaller
model); the bound with an unfused LayerNorm shows how much the slowest of those kernels weighs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.contention import OtherLoad
from benchmarks.embed_throughput import EmbedThroughput, embed_throughput, reference_model
from benchmarks.roofline_ceilings import Ceiling, best_rates, measure_ceilings
from benchmarks.roofline_profile import (
    OpProfile,
    layernorm_costs,
    profile_variant,
    softmax_seconds,
)
from benchmarks.roofline_work import (
    EncoderShape,
    Work,
    call_shapes,
    measure_work,
    onnx_batches,
    reference_batches,
)
from rag.embed.local_models import minilm_folder
from rag.embed.onnx_build import BuiltVariant
from rag.embed.onnx_minilm import SLICE
from rag.settings.embedding import EmbeddingConfig

PROFILED: tuple[BuiltVariant, ...] = ("int8", "int8-smooth")
ASSUMPTIONS = (
    "useful FLOPs only: no padding (work.onnx.padding_share says what the path pads)",
    "every dense product at the fastest int8 kernel measured on its own shape, at the better of "
    "the two paths' token counts per call",
    "attention's Q K^T and softmax(.) V (fp32 in every graph today) at the fastest int8 rate "
    "measured on any shape",
    "the fused attention ops (QAttention) count as products, except their softmax, which costs "
    "what onnxruntime's Softmax kernel takes on the same score shapes alone (one thread, best "
    "of several runs); masking, scaling and head transposes cost nothing",
    "everything else that is not a product (LayerNorm, GELU, (de)quantization, embeddings) at "
    "its profiled cost (each kernel at its fastest of two passes), spread over the two workers "
    "with no wait",
    "tokenization, pooling, Python and thread hand-offs cost nothing",
)


@dataclass(frozen=True)
class Achieved:
    path: str
    texts_per_s: float
    ratio: float  # vs the reference's texts/s
    useful_gflops: float  # FLOPs of the unpadded work / wall seconds
    computed_gflops: float  # FLOPs of the padded shapes the path really runs / wall seconds


@dataclass(frozen=True)
class Bound:
    """The best speed-up over the reference one int8 graph's recipe allows on this machine."""

    variant: str
    reference_seconds: float
    matmul_seconds_at_peak: float
    softmax_seconds: float  # attention softmax thread seconds / workers
    other_seconds: float  # the rest of the profile's non-product kernel time / workers
    least_seconds: float
    speedup_bound: float
    matmul_only_bound: float  # if everything but the products were free
    # the same bound with SkipLayerNormalization at the cost of unfused Add + LayerNormalization
    unfused_layernorm_seconds_saved: float
    unfused_layernorm_bound: float
    target: float
    reachable: bool


def token_counts(texts: Sequence[str]) -> tuple[int, list[int]]:
    """(max_seq_length, tokens per text incl. [CLS]/[SEP] after truncation), MiniLM's tokenizer."""
    from tokenizers import Tokenizer

    folder = minilm_folder()
    max_tokens = int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()
    return max_tokens, [len(e.ids) for e in tokenizer.encode_batch(list(texts))]


def reference_best_seconds(texts: Sequence[str], passes: int = 2) -> float:
    """The reference's time for `texts` with each of its batches (as encode cuts them) at the
    fastest of `passes` timings: bursts of other load discounted, as for the kernel ceilings."""
    model = reference_model()
    model.encode(list(texts[:8]))  # warm-up
    batches = reference_batches(texts)
    best = [float("inf")] * len(batches)
    for _ in range(passes):
        for i, indices in enumerate(batches):
            chunk = [texts[j] for j in indices]
            start = time.perf_counter()
            model.encode(chunk, batch_size=len(chunk), normalize_embeddings=True)
            best[i] = min(best[i], time.perf_counter() - start)
    return sum(best)


def _achieved(work: Work, measured: EmbedThroughput, fast_variant: str) -> list[Achieved]:
    rates = [("reference: " + measured.reference, measured.reference_texts_per_s, work.reference),
             (f"onnx {fast_variant} (the default ingest path)", measured.fast_texts_per_s,
              work.onnx)]
    rates += [(f"onnx {v.onnx_variant}", v.texts_per_s, work.onnx) for v in measured.variants]
    return [Achieved(path=name, texts_per_s=rate,
                     ratio=round(rate / measured.reference_texts_per_s, 2),
                     useful_gflops=round(work.flops * rate / work.texts / 1e9, 1),
                     computed_gflops=round(padded.flops * rate / work.texts / 1e9, 1))
            for name, rate, padded in rates]


def matmul_seconds_at_peak(shape: EncoderShape, work: Work, ceilings: Sequence[Ceiling]) -> float:
    """Useful product FLOPs at the fastest int8 rate measured for each product at any token count
    per call (attention: at the fastest of all)."""
    best = best_rates(ceilings, "int8")
    seconds = 0.0
    for product, (k, n) in shape.products().items():
        rate = max(c.gflops for (_, name), c in best.items() if name == product)
        seconds += shape.layers * 2 * work.tokens * k * n / (rate * 1e9)
    return seconds + work.attention_flops / (max(c.gflops for c in best.values()) * 1e9)


def bound(reference_seconds: float, matmul_s: float, softmax_s: float, profile: OpProfile,
          layernorm_ns: dict[str, float], target: float) -> Bound:
    softmax, other = softmax_s / profile.workers, profile.other_seconds / profile.workers
    least = matmul_s + softmax + other
    fused = profile.op_seconds.get("SkipLayerNormalization", 0.0) / profile.workers
    saved = fused * (1 - layernorm_ns["Add + LayerNormalization"]
                     / layernorm_ns["SkipLayerNormalization"])
    return Bound(variant=profile.variant, reference_seconds=round(reference_seconds, 2),
                 matmul_seconds_at_peak=round(matmul_s, 2), softmax_seconds=round(softmax, 2),
                 other_seconds=round(other, 2),
                 least_seconds=round(least, 2), speedup_bound=round(reference_seconds / least, 2),
                 matmul_only_bound=round(reference_seconds / matmul_s, 2),
                 unfused_layernorm_seconds_saved=round(saved, 2),
                 unfused_layernorm_bound=round(reference_seconds / (least - saved), 2),
                 target=target,
                 reachable=reference_seconds / least >= target)


@dataclass(frozen=True)
class Phase:
    """The machine around one measurement: load average at its end (this bench's own threads
    count in it) and the cores other processes kept busy meanwhile (0 on a quiet machine)."""

    load_average_after: tuple[float, float, float]
    other_cores: float | None


@dataclass(frozen=True)
class Roofline:
    texts: int
    mean_chars: float
    model: EncoderShape
    work: Work
    achieved: tuple[Achieved, ...]
    ceilings: tuple[Ceiling, ...]
    peak_gflops: dict[str, float]  # fastest kernel per precision, any shape
    profiles: tuple[OpProfile, ...]
    # the reference with each batch at its fastest of two timings; the bound takes the lesser of
    # this and its best whole round
    reference_best_batches_seconds: float
    layernorm_ns: dict[str, float]  # per element: fused SkipLayerNormalization vs unfused
    bounds: tuple[Bound, ...]
    assumptions: tuple[str, ...]
    verdict: str
    embed_bench: EmbedThroughput
    load_average: tuple[float, float, float]  # before the first measurement
    phases: dict[str, Phase]
    cpu_count: int


def run_roofline(texts: Sequence[str], fast: EmbeddingConfig, rounds: int = 2,
                 target: float = 4.0, ceiling_budget_s: float = 0.5) -> Roofline:
    batch = list(texts)
    if not batch:
        raise ValueError("the roofline bench needs at least one text")
    load_before = os.getloadavg()
    shape = EncoderShape.from_config(minilm_folder() / "config.json")
    max_tokens, tokens = token_counts(batch)
    work = measure_work(shape, batch, tokens, max_tokens, fast.batch_size, SLICE)
    phases: dict[str, Phase] = {}
    with OtherLoad() as other:
        measured = embed_throughput(batch, fast, rounds=rounds, target_ratio=target,
                                    variants=[v for v in PROFILED if v != fast.onnx_variant])
    phases["achieved"] = Phase(os.getloadavg(), other.cores)
    with OtherLoad() as other:
        reference_best_s = reference_best_seconds(batch)
    phases["reference_batches"] = Phase(os.getloadavg(), other.cores)
    ms = sorted({round(work.onnx.mean_tokens_per_call), round(work.reference.mean_tokens_per_call)})
    with OtherLoad() as other:
        ceilings = measure_ceilings(shape.products(), ms, ceiling_budget_s)
    phases["ceilings"] = Phase(os.getloadavg(), other.cores)
    with OtherLoad() as other:
        profiles = tuple(profile_variant(v, batch, fast.batch_size) for v in PROFILED)
        calls = onnx_batches(batch, fast.batch_size, SLICE)
        softmax_s = softmax_seconds(call_shapes(tokens, calls), shape.heads, shape.layers)
        layernorm_ns = layernorm_costs(shape.hidden, round(work.onnx.mean_tokens_per_call))
    phases["profiles"] = Phase(os.getloadavg(), other.cores)
    reference_s = min(len(batch) / measured.reference_texts_per_s, reference_best_s)
    matmul_s = matmul_seconds_at_peak(shape, work, ceilings)
    bounds = tuple(bound(reference_s, matmul_s, softmax_s, p, layernorm_ns, target)
                   for p in profiles)
    return Roofline(
        texts=len(batch), mean_chars=measured.mean_chars, model=shape, work=work,
        achieved=tuple(_achieved(work, measured, fast.onnx_variant)), ceilings=tuple(ceilings),
        peak_gflops={p: max(c.gflops for c in ceilings if c.precision == p)
                     for p in ("fp32", "bf16", "int8")},
        profiles=profiles, bounds=bounds, assumptions=ASSUMPTIONS,
        reference_best_batches_seconds=round(reference_best_s, 2), layernorm_ns=layernorm_ns,
        verdict=verdict(bounds, target, layernorm_ns), embed_bench=measured, load_average=load_before,
        phases=phases, cpu_count=os.cpu_count() or 0)


def verdict(bounds: Sequence[Bound], target: float, layernorm_ns: dict[str, float]) -> str:
    best = max(bounds, key=lambda b: b.speedup_bound)
    unfused = max(b.unfused_layernorm_bound for b in bounds)
    layernorm = (f"onnxruntime's fused SkipLayerNormalization costs "
                 f"{layernorm_ns['SkipLayerNormalization']} ns per element where unfused Add + "
                 f"LayerNormalization costs {layernorm_ns['Add + LayerNormalization']}: at that "
                 f"cost the bound is {unfused}x")
    if best.reachable:
        return (f"the bound ({best.speedup_bound}x with {best.variant}) is above the {target}x "
                f"target: the gap is in kernel efficiency and the non-product ops; {layernorm}")
    return (f"{target}x is not reachable with today's kernels at the quality bar without changing "
            f"what is computed: with every product at the measured int8 peak and every other "
            f"flattering assumption the best bound is {best.speedup_bound}x ({best.variant}); "
            f"with all non-product work free it would be {best.matmul_only_bound}x; {layernorm}"
            + (f", so the machine itself does not rule {target}x out" if unfused >= target else ""))


def to_json(result: Roofline, corpus: str, preset: str) -> str:
    def encode(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
            extra = {name: getattr(value, name) for name in ("flops", "other_share")
                     if hasattr(type(value), name)}
            return {**fields, **extra}
        if isinstance(value, tuple | list):
            return [encode(v) for v in value]
        if isinstance(value, dict):
            return {k: encode(v) for k, v in value.items()}
        return value

    return json.dumps({"corpus": corpus, "preset": preset, **encode(result)}, indent=2)


def summary_lines(r: Roofline) -> list[str]:
    lines = [f"{r.texts} passages, mean {r.work.mean_tokens} tokens ({r.work.tokens:,} in all), "
             f"{r.work.flops / 1e12:.2f} TFLOP useful; load {r.load_average[0]:.1f}; cores other "
             f"processes used: " + ", ".join(f"{name} {p.other_cores}"
                                             for name, p in r.phases.items())]
    lines += [f"  {a.path}: {a.texts_per_s} texts/s = {a.ratio}x, {a.useful_gflops} GFLOP/s useful"
              for a in r.achieved]
    lines.append("  residual add + LayerNorm, ns per element: " + ", ".join(
        f"{name} {ns}" for name, ns in r.layernorm_ns.items()))
    lines.append("  peak GFLOP/s: " + ", ".join(f"{p} {g}" for p, g in r.peak_gflops.items()))
    lines += [f"  {p.variant}: non-product ops {p.other_share:.0%} of kernel time "
              f"({p.other_seconds} of {p.matmul_seconds + p.other_seconds:.1f} thread-s)"
              for p in r.profiles]
    lines += [f"  bound {b.variant}: {b.reference_seconds} s / ({b.matmul_seconds_at_peak} s "
              f"products + {b.softmax_seconds} s softmax + {b.other_seconds} s rest) = "
              f"{b.speedup_bound}x; with unfused LayerNorm {b.unfused_layernorm_bound}x "
              f"(products only: "
              f"{b.matmul_only_bound}x)" for b in r.bounds]
    return [*lines, r.verdict]


def write(result: Roofline, out: Path, corpus: str, preset: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_json(result, corpus, preset), encoding="utf-8")
