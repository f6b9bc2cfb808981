"""Adaptive's intelligence levels (basic / standard / enhanced / maximum) as stage toggles.

Adaptive: Basic = dense search, no verification, no expansion; Standard = hybrid search, basic
verification; Enhanced = + knowledge graph, query expansion, chain-of-thought, full verification;
Maximum = + all engines, ensemble voting, extended thinking, multi-query fusion. A level is a set
of config overrides applied to a preset (`apply_level`); features of the seed this workbench has
no stage for are listed, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rag.registry import Registry
from rag.settings.overrides import apply_overrides
from rag.settings.pipeline import PipelineConfig


@dataclass(frozen=True)
class IntelligenceLevel:
    name: str
    summary: str
    overrides: Mapping[str, Any]
    unavailable: tuple[str, ...] = ()  # seed features with no stage here


LEVELS: Registry[IntelligenceLevel] = Registry("intelligence level")
LEVEL_ORDER = ("basic", "standard", "enhanced", "maximum")


def _level(name: str, summary: str, overrides: dict[str, Any], unavailable: tuple[str, ...] = ()
           ) -> None:
    LEVELS.add(name, IntelligenceLevel(name, summary, MappingProxyType(overrides), unavailable))


_level("basic", "dense search, direct answer", {
    "retrieval.retrievers": ["dense"], "query.expand.methods": [],
    "context.verify.enabled": False, "context.graph.enabled": False,
})
_level("standard", "hybrid search, basic (lexical) verification", {
    "retrieval.retrievers": ["bm25", "dense"], "query.expand.methods": [],
    "context.verify.enabled": True, "context.verify.method": "lexical",
    "context.graph.enabled": False,
})
_level("enhanced", "+ entity graph, query expansion, full (LLM when available) verification", {
    "retrieval.retrievers": ["bm25", "dense"], "query.expand.methods": ["multi_query"],
    "context.verify.enabled": True, "context.verify.method": "auto",
    "context.graph.enabled": True,
}, ("chain-of-thought prompting",))
_level("maximum", "+ every expansion engine (multi-query, HyDE, step-back, RAG-Fusion)", {
    "retrieval.retrievers": ["bm25", "dense"],
    "query.expand.methods": ["multi_query", "hyde", "step_back", "rag_fusion"],
    "context.verify.enabled": True, "context.verify.method": "auto",
    "context.graph.enabled": True,
}, ("chain-of-thought prompting", "ensemble voting", "extended thinking"))


def apply_level(config: PipelineConfig, level: str) -> PipelineConfig:
    """`config` with the level's toggles; the name records the level ("adaptive@enhanced")."""
    found = LEVELS.get(level)
    changed = apply_overrides(config, dict(found.overrides))
    return changed.model_copy(update={"name": f"{config.name.split('@')[0]}@{found.name}"})
