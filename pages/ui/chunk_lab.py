"""What the Chunk Lab shows for one (document, strategy, params): chunks, stats, sizes, export."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from rag.chunking import Chunk, ChunkStats, count_tokens, get_chunker, stats_by_level
from rag.config import PipelineConfig, preset_yaml, with_overrides
from rag.documents import Document


@dataclass(frozen=True)
class ChunkRun:
    """One strategy's chunks of one document, their stats per level and token count per chunk."""

    strategy: str
    params: Mapping[str, Any]
    chunks: tuple[Chunk, ...]
    stats: Mapping[str, ChunkStats]  # level -> stats, parents before children
    tokens: Mapping[str, int]  # chunk_id -> MiniLM word pieces


def run_key(document: Document, strategy: str, params: Mapping[str, Any]) -> tuple[str, str, str]:
    """Cache key: the document's content, the strategy and its params."""
    return document.metadata.content_hash, strategy, json.dumps(params, sort_keys=True, default=str)


def run_strategy(document: Document, strategy: str, params: Mapping[str, Any]) -> ChunkRun:
    """Chunk `document` and measure the result (sizes in characters and MiniLM tokens)."""
    chunks = tuple(get_chunker(strategy, dict(params)).chunk(document))
    tokens = {c.chunk_id: count_tokens(c.text) for c in chunks}
    stats = stats_by_level(chunks, document, count_tokens)
    return ChunkRun(strategy, dict(params), chunks, stats, tokens)


def stats_frame(runs: Sequence[ChunkRun]) -> pd.DataFrame:
    """One row per strategy and level: counts, sizes (chars, tokens), overlap ratio, coverage."""
    rows = [
        {"strategy": run.strategy, "level": level, "chunks": s.count,
         "min chars": s.min_chars, "mean chars": round(s.mean_chars, 1), "max chars": s.max_chars,
         "min tokens": s.min_tokens, "mean tokens": None if s.mean_tokens is None
         else round(s.mean_tokens, 1), "max tokens": s.max_tokens,
         "overlap ratio": round(s.overlap_ratio, 3), "coverage": round(s.coverage, 3)}
        for run in runs for level, s in run.stats.items()
    ]
    return pd.DataFrame(rows)


def size_series(runs: Sequence[ChunkRun], unit: str) -> dict[str, list[int]]:
    """Chunk sizes per strategy (and level, when a strategy has several) in chars or tokens."""
    series: dict[str, list[int]] = {}
    for run in runs:
        for level in run.stats:
            name = run.strategy if len(run.stats) == 1 else f"{run.strategy} · {level}"
            series[name] = [
                run.tokens[c.chunk_id] if unit == "tokens" else c.size
                for c in run.chunks if c.level == level
            ]
    return series


def export_preset(config: PipelineConfig, strategy: str, params: Mapping[str, Any]) -> str:
    """`config` with its chunking section replaced, as preset YAML (validated on the way). For the
    preset's own strategy, settings the page does not edit keep the preset's values."""
    if strategy == config.chunking.strategy:
        params = {**config.chunking.params, **params}
    changed = with_overrides(config, {"name": f"{config.name}-{strategy}",
                                      "chunking.strategy": strategy, "chunking.params": dict(params)})
    return preset_yaml(changed)
