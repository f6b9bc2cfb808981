"""What the Retrieval page needs around the pipeline: configs for fetching and re-fusing,
rank maps for the movement chart, labels and query terms.

The head of the run (guard … retrieve) is fetched once at MAX_DEPTH and cached; every control
re-runs only the tail (fuse → postprocess → authority → select, rag.pipeline.run_tail) over the
cached lists cut to the depth slider, so no control ever searches again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from pages.ui.configs import page_config
from rag.config import PipelineConfig, with_overrides
from rag.index import Candidate, Tokenizer
from rag.settings import TokenizerConfig

USES_K = ("rrf", "weighted_rrf")  # fusion methods each control applies to
USES_ALPHA = ("relative_score", "convex")
USES_WEIGHTS = ("weighted_rrf",)
MAX_DEPTH = 200  # lists are fetched this deep once; the depth control cuts them
RRF_K_MAX = 200  # the RRF k control's range is 1..RRF_K_MAX
TITLES = {"bm25": "BM25", "dense": "Dense", "fused": "Final (fused → selected)"}


@dataclass(frozen=True)
class FusionControls:
    """The page's live controls; defaults come from the preset."""

    method: str
    k: int
    weights: Mapping[str, float]
    alpha: float
    depth: int
    top_k: int
    threshold: float | None
    threshold_on: str


def controls_from(config: PipelineConfig) -> FusionControls:
    fusion, post = config.fusion, config.postprocess
    return FusionControls(
        method=fusion.method,
        k=min(fusion.k, RRF_K_MAX),
        weights={name: fusion.weights.get(name, 0.5) for name in config.retrieval.retrievers},
        alpha=fusion.alpha,
        depth=min(config.retrieval.depth, MAX_DEPTH),
        top_k=config.retrieval.top_k,
        threshold=post.threshold,
        threshold_on=post.threshold_on,
    )


def fetch_config(config: PipelineConfig, collection_name: str | None = None) -> PipelineConfig:
    """The preset over the collection (pages.ui.configs.page_config), fetching MAX_DEPTH deep:
    the head's lists are cut back to the depth control, so a page left alone runs the preset."""
    return page_config(config, collection_name or config.index.collection,
                       {"retrieval.depth": MAX_DEPTH})


def fusion_config(config: PipelineConfig, controls: FusionControls) -> PipelineConfig:
    """The fetch config with the page's fusion, depth, top-k and threshold controls applied
    (weights only for a method that reads them), so untouched controls give the preset back."""
    overrides: dict[str, Any] = {
        "fusion.method": controls.method, "fusion.k": controls.k, "fusion.alpha": controls.alpha,
        "retrieval.depth": controls.depth, "retrieval.top_k": min(controls.top_k, controls.depth),
        "postprocess.threshold": controls.threshold,
        "postprocess.threshold_on": controls.threshold_on,
    }
    if controls.method in USES_WEIGHTS:
        overrides["fusion.weights"] = {**config.fusion.weights, **controls.weights}
    return with_overrides(config, overrides)


def rank_map(candidates: Sequence[Candidate]) -> dict[str, int]:
    """chunk_id -> 1-based position."""
    return {c.chunk_id: i for i, c in enumerate(candidates, start=1)}


def movement(
    lists: Mapping[str, Sequence[Candidate]], fused: Sequence[Candidate], top_k: int
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Every chunk's rank in each list and in the fused list, and the chunks worth drawing:
    the union of the top-k of every list, in first-seen order."""
    ranks = {name: rank_map(found) for name, found in lists.items()}
    ranks["fused"] = rank_map(fused)
    tops = [tuple(found[:top_k]) for found in lists.values()] + [tuple(fused[:top_k])]
    return ranks, list(dict.fromkeys(c.chunk_id for group in tops for c in group))


def top_movers(
    ranks: Mapping[str, Mapping[str, int]], shown: Sequence[str], cap: int, n: int = 8
) -> list[str]:
    """The `n` chunks of `shown` whose fused rank differs most from their rank in a first-stage
    list (absent or beyond `cap` counts as cap + 1); ties keep the fused order."""
    floor = cap + 1
    fused = ranks.get("fused", {})

    def moved(chunk_id: str) -> int:
        end = min(fused.get(chunk_id, floor), floor)
        return max((abs(min(r.get(chunk_id, floor), floor) - end)
                    for name, r in ranks.items() if name != "fused"), default=0)

    order = sorted(shown, key=lambda c: (-moved(c), fused.get(c, floor)))
    return order[:n]


def threshold_line(controls: FusionControls) -> float | None:
    """Where to draw the threshold on the fused-score axis (None when it compares another score)."""
    return controls.threshold if controls.threshold_on in ("score", "fusion") else None


def label(candidate: Candidate) -> str:
    """Short, readable chunk label: source file stem, start offset, and level when not flat."""
    chunk = candidate.chunk
    stem = PurePath(str(chunk.metadata.get("source") or chunk.doc_id)).stem
    level = "" if chunk.level == "chunk" else f"/{chunk.level}"
    return f"{stem[:22]}@{chunk.start}{level}"


def labels(*groups: Sequence[Candidate]) -> dict[str, str]:
    """chunk_id -> label, unique: a repeated label gets "#2", "#3" …"""
    result: dict[str, str] = {}
    used: dict[str, int] = {}
    for candidate in (c for group in groups for c in group):
        if candidate.chunk_id in result:
            continue
        text = label(candidate)
        used[text] = used.get(text, 0) + 1
        result[candidate.chunk_id] = text if used[text] == 1 else f"{text}#{used[text]}"
    return result


def query_terms(query: str, tokenizer: Mapping[str, Any] | None = None) -> list[str]:
    """The query's words as the collection's BM25 tokenizer sees them (stopwords out), unstemmed
    so they can be found as whole words in chunk text."""
    cfg = TokenizerConfig.model_validate({**(tokenizer or {}), "stemming": False})
    return Tokenizer(cfg)(query)
