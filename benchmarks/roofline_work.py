"""The work in embedding a set of passages with a BERT encoder: tokens, padding and FLOPs.

FLOPs come from the model's own config.json (layers, hidden, FFN width, heads), per layer and
sequence of T tokens: dense products 2*T*(4*h^2 + 2*h*ff) (Q, K, V and attention output are h x h,
the FFN h x ff and ff x h) plus attention 4*T^2*h (Q K^T and the weighted sum of V, every head
together). Embedding lookups, LayerNorm, GELU, softmax and pooling are not FLOPs of a product and
are left out: they are the "non-matmul" time the roofline bench measures instead.

Padding follows each path's batching: sentence-transformers sorts by character length
(np.argsort of -len) and pads each batch of 32 to its longest text; our ingest sorts the unique
texts longest first (TextEmbedder), cuts batches of `embedding.batch_size`, and the onnx backend
runs slices of 8, each padded to its own longest text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.embed.cache import text_hash


@dataclass(frozen=True)
class EncoderShape:
    """What the FLOP count needs from a BERT config."""

    layers: int
    hidden: int
    ffn: int
    heads: int

    @classmethod
    def from_config(cls, config_json: Path) -> EncoderShape:
        config = json.loads(config_json.read_text(encoding="utf-8"))
        return cls(layers=int(config["num_hidden_layers"]), hidden=int(config["hidden_size"]),
                   ffn=int(config["intermediate_size"]), heads=int(config["num_attention_heads"]))

    def products(self) -> dict[str, tuple[int, int]]:
        """Each dense product of a layer as (k, n) of an (tokens x k) @ (k x n) matmul."""
        h, ff = self.hidden, self.ffn
        return {"qkv": (h, 3 * h), "attention_out": (h, h), "ffn_in": (h, ff), "ffn_out": (ff, h)}

    def dense_flops(self, tokens: int) -> int:
        """All layers' dense products for `tokens` tokens (of any number of sequences)."""
        h, ff = self.hidden, self.ffn
        return self.layers * 2 * tokens * (4 * h * h + 2 * h * ff)

    def attention_flops(self, sequence_tokens: int) -> int:
        """All layers' Q K^T and softmax(.) V for one sequence of `sequence_tokens` tokens."""
        return self.layers * 4 * sequence_tokens * sequence_tokens * self.hidden


def reference_batches(texts: Sequence[str], batch_size: int = 32) -> list[list[int]]:
    """Indices per batch as SentenceTransformer.encode orders them (by -len(text), argsort)."""
    order = np.argsort([-len(t) for t in texts])
    return [[int(i) for i in order[s : s + batch_size]] for s in range(0, len(order), batch_size)]


def onnx_batches(texts: Sequence[str], batch_size: int, slice_size: int) -> list[list[int]]:
    """Indices per onnxruntime call as our ingest orders them: unique texts sorted by hash,
    then longest first (TextEmbedder), in batches of `batch_size` cut into slices."""
    first: dict[str, int] = {}
    for i, text in enumerate(texts):
        first.setdefault(text_hash(text), i)
    order = [i for _, i in sorted(first.items())]
    order.sort(key=lambda i: -len(texts[i]))
    calls: list[list[int]] = []
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        calls += [batch[s : s + slice_size] for s in range(0, len(batch), slice_size)]
    return calls


def call_shapes(tokens: Sequence[int], calls: list[list[int]]) -> list[tuple[int, int]]:
    """(sequences, padded tokens) of each call."""
    return [(len(call), max(tokens[i] for i in call)) for call in calls]


@dataclass(frozen=True)
class PaddedWork:
    """What one path computes: tokens including padding, FLOPs of its padded shapes."""

    calls: int
    padded_tokens: int
    padding_share: float  # padded tokens that are padding
    mean_tokens_per_call: float  # the M of the path's (tokens x k) @ (k x n) products
    dense_flops: int
    attention_flops: int

    @property
    def flops(self) -> int:
        return self.dense_flops + self.attention_flops


def padded_work(shape: EncoderShape, tokens: Sequence[int], calls: list[list[int]]) -> PaddedWork:
    """Tokens and FLOPs when each call pads its sequences to the longest of them."""
    shapes = call_shapes(tokens, calls)
    padded = sum(b * t for b, t in shapes)
    return PaddedWork(
        calls=len(calls),
        padded_tokens=padded,
        padding_share=round(1 - sum(tokens) / padded, 4) if padded else 0.0,
        mean_tokens_per_call=round(padded / len(calls), 1) if calls else 0.0,
        dense_flops=shape.dense_flops(padded),
        attention_flops=sum(b * shape.attention_flops(t) for b, t in shapes),
    )


@dataclass(frozen=True)
class Work:
    """The useful work (no padding) and what each path really computes."""

    texts: int
    max_tokens: int
    tokens: int
    mean_tokens: float
    texts_at_limit: int  # texts of max_tokens tokens: cut there (or exactly that long)
    dense_flops: int
    attention_flops: int
    reference: PaddedWork
    onnx: PaddedWork

    @property
    def flops(self) -> int:
        return self.dense_flops + self.attention_flops


def measure_work(shape: EncoderShape, texts: Sequence[str], tokens: Sequence[int], max_tokens: int,
                 onnx_batch_size: int, onnx_slice: int) -> Work:
    """`tokens[i]` is text i's token count (with [CLS] and [SEP]) after truncation at max_tokens."""
    if len(texts) != len(tokens) or not texts:
        raise ValueError("measure_work needs one token count per text, and at least one text")
    return Work(
        texts=len(texts),
        max_tokens=max_tokens,
        tokens=sum(tokens),
        mean_tokens=round(sum(tokens) / len(tokens), 1),
        texts_at_limit=sum(1 for n in tokens if n >= max_tokens),
        dense_flops=shape.dense_flops(sum(tokens)),
        attention_flops=sum(shape.attention_flops(n) for n in tokens),
        reference=padded_work(shape, tokens, reference_batches(texts)),
        onnx=padded_work(shape, tokens, onnx_batches(texts, onnx_batch_size, onnx_slice)),
    )
