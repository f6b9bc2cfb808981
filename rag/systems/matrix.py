"""The five seed systems as presets, and their feature matrix.

The matrix is generated, never typed: each feature is a probe over a loaded PipelineConfig
(on with a detail, or off); a cell is "mapped" when the preset's YAML says, in a comment
`# mapped(<feature>): <note>`, that the seed's part runs here on our equivalent. The same comment
is the note shown in the matrix, so the YAML stays the one source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from rag.config import PipelineConfig, load_preset
from rag.paths import PRESETS_DIR

SYSTEMS = ("axiom", "echomind", "adaptive", "vexora", "intellidocs")
BASELINES = ("bm25", "dense", "hybrid")
CellStatus = Literal["on", "off", "mapped"]
Probe = Callable[[PipelineConfig], str | None]  # a detail when the feature is on, else None

_MAPPED = re.compile(r"#\s*mapped\(([a-z_]+)\):\s*(.+?)\s*$")


@dataclass(frozen=True)
class Feature:
    key: str  # the name a `# mapped(key): …` comment uses
    stage: str  # the pipeline stage it belongs to
    label: str
    probe: Probe


@dataclass(frozen=True)
class Cell:
    status: CellStatus
    detail: str = ""  # what the preset does (e.g. "rrf k=60")
    note: str = ""  # the mapping comment, when mapped

    @property
    def text(self) -> str:
        """Compact cell text for a table: "on: rrf k=60", "mapped: … → …", "off"."""
        if self.status == "off":
            return "off"
        shown = self.note if self.status == "mapped" else self.detail
        return f"{self.status}: {shown}".rstrip(": ")


def _on(flag: bool, detail: str = "") -> str | None:
    return (detail or "on") if flag else None


def _query(c: PipelineConfig) -> bool:
    return c.query.enabled


def _fusion(c: PipelineConfig) -> str | None:
    f = c.fusion
    if f.method == "rrf":
        return f"RRF k={f.k}"
    if f.method == "weighted_rrf":
        weights = ", ".join(f"{k} {v:g}" for k, v in f.weights.items())
        return f"weighted RRF k={f.k} ({weights})"
    if f.method in ("relative_score", "convex"):
        return f"{f.method.replace('_', ' ')} alpha={f.alpha:g}"
    return None if f.method == "none" else f.method


def _rerank(method: str) -> Probe:
    def probe(c: PipelineConfig) -> str | None:
        r = c.rerank
        if not r.enabled or r.method != method:
            return None
        model = f"{r.model} " if method == "cross_encoder" and r.model else ""
        cut = f", ≥ {r.threshold:g}" if r.threshold is not None else ""
        return f"{model}top {r.top_n} of {r.depth}{cut}, policy {r.policy}"

    return probe


def _expansion(method: str) -> Probe:
    return lambda c: _on(_query(c) and method in c.query.expand.methods,
                         f"≤ {c.query.expand.max_queries} queries")


def _chunking(c: PipelineConfig) -> str:
    params = ", ".join(f"{k} {v}" for k, v in c.chunking.params.items() if k != "separators")
    return f"{c.chunking.strategy} {params}".strip()


def _threshold(c: PipelineConfig) -> str | None:
    p = c.postprocess
    return None if p.threshold is None else f"{p.threshold_on} ≥ {p.threshold:g}"


def _set(value: object, template: str) -> str | None:
    """`template` filled with an optional setting's value, or None (off) when it is unset."""
    return None if value is None else template.format(value)


def _cache(c: PipelineConfig) -> str | None:
    q = c.query.cache
    detail = f"{q.precision_threshold:g}/{q.recall_threshold:g}, TTL {q.ttl_s:g}s"
    return _on(_query(c) and q.enabled, detail)


def _retrievers(c: PipelineConfig) -> str:
    r = c.retrieval
    return f"{' + '.join(r.retrievers)}, depth {r.depth}, top {r.top_k}"


def _context(field: str) -> Probe:
    """A context option that is off at its default ("none" / None)."""
    def probe(c: PipelineConfig) -> str | None:
        value = getattr(c.context, field)
        return _on(c.context.enabled and value not in ("none", None), str(value))

    return probe


F = Feature
FEATURES: tuple[Feature, ...] = (
    F("parser", "documents", "parsers (pdf, docx, pptx, html, md, txt, csv)",
      lambda c: "rag.documents"),
    F("pii_redaction", "documents", "PII redaction at ingest",
      lambda c: _on(c.documents.redact_pii, "[REDACTED_KIND] before chunking")),
    F("chunking", "chunking", "chunking", _chunking),
    F("dense_model", "index", "dense embedding model", lambda c: c.embedding.model),
    F("vector_store", "index", "vector store", lambda c: "Qdrant"),
    F("bm25", "index", "BM25 index",
      lambda c: f"{c.index.sparse_backend} (k1 {c.index.k1:g}, b {c.index.b:g})"),
    F("guard", "guard", "input guardrails", lambda c: _on(c.query.guard.enabled)),
    F("semantic_cache", "understand", "semantic cache", _cache),
    F("spell", "understand", "guarded spell correction",
      lambda c: _on(_query(c) and c.query.spell.enabled)),
    F("intent_router", "understand", "intent router (no-RAG answers)",
      lambda c: _on(_query(c) and c.query.intent.enabled,
                    f"semantic ≥ {c.query.intent.semantic_threshold:g}")),
    F("classify", "understand", "query classification",
      lambda c: _on(_query(c) and c.query.classify.enabled)),
    F("route", "understand", "query router (complexity, type, entities)",
      lambda c: _on(_query(c) and c.query.route.enabled)),
    F("rewrite", "understand", "follow-up rewriting",
      lambda c: _on(_query(c) and c.query.rewrite.enabled,
                    f"last {c.query.rewrite.history_messages} messages")),
    F("multi_query", "understand", "multi-query expansion", _expansion("multi_query")),
    F("hyde", "understand", "HyDE", _expansion("hyde")),
    F("step_back", "understand", "step-back question", _expansion("step_back")),
    F("rag_fusion", "understand", "RAG-Fusion queries", _expansion("rag_fusion")),
    F("adaptive_router", "adapt", "adaptive strategy (dense / hybrid / fusion / two-stage)",
      lambda c: _on(c.query.adaptive.enabled and c.query.adaptive.strategies)),
    F("level_filter", "adapt", "chunk-level filter by query type",
      lambda c: _on(c.query.adaptive.enabled and c.query.adaptive.level_filter)),
    F("summarize_path", "adapt", "summarize path (whole document in order)",
      lambda c: _on(c.query.adaptive.enabled and c.query.adaptive.summarize_path)),
    F("retrievers", "retrieve", "retrievers", _retrievers),
    F("permissions", "retrieve", "per-user permissions",
      lambda c: "owner / visibility payload filter"),
    F("fusion", "fuse", "fusion", _fusion),
    F("threshold", "postprocess", "score threshold", _threshold),
    F("content_penalties", "postprocess", "content-type penalties",
      lambda c: _on(c.postprocess.content_penalties)),
    F("time_window", "postprocess", "time window",
      lambda c: _set(c.postprocess.time_window_hours, "{:g} h")),
    F("time_decay", "postprocess", "time decay",
      lambda c: _set(c.postprocess.time_decay_half_life_days, "half-life {:g} d")),
    F("tag_boost", "postprocess", "tag boost",
      lambda c: _on(bool(c.postprocess.tag_boost or c.postprocess.tag_query_boost))),
    F("dedupe", "postprocess", "semantic de-duplication",
      lambda c: _set(c.postprocess.dedupe_threshold, "cosine > {:g}")),
    F("authoritative", "authority", "documents before transcripts on ties",
      lambda c: _on(c.postprocess.prefer_authoritative)),
    F("cross_encoder", "rerank", "cross-encoder rerank", _rerank("cross_encoder")),
    F("llm_rerank", "rerank", "LLM rerank (0–10)", _rerank("llm")),
    F("graph", "graph", "entity graph enrichment",
      lambda c: _on(c.context.graph.enabled, f"depth {c.context.graph.max_depth}")),
    F("self_rag", "verify", "Self-RAG chunk verification",
      lambda c: _on(c.context.verify.enabled,
                    f"{c.context.verify.method}, ≥ {c.context.verify.threshold:g}")),
    F("context_expansion", "context", "context expansion (parent / document)",
      _context("expansion")),
    F("compression", "context", "context compression", _context("compression")),
    F("sentence_dedupe", "context", "sentence de-duplication (Jaccard ≥)",
      _context("dedupe_jaccard")),
    F("ordering", "context", "context ordering",
      lambda c: _on(c.context.enabled and c.context.ordering != "rank", c.context.ordering)),
    F("no_rag_fallback", "context", "no-RAG fallback (best score <)",
      _context("relevance_threshold")),
    F("llm", "generate", "answer generation",
      lambda c: _on(c.generation.enabled, f"{c.generation.model} ({c.generation.mode})")),
    F("memory", "generate", "conversation memory",
      lambda c: _on(c.generation.enabled and c.generation.history_messages > 0,
                    f"last {c.generation.history_messages} messages")),
    F("grounding", "ground", "groundedness check",
      lambda c: _on(c.grounding.enabled,
                    f"{c.grounding.model_check}, retries {c.grounding.max_retries}")),
    F("citations", "ground", "citations required",
      lambda c: _on(c.grounding.enabled and c.grounding.require_citations)),
    F("tracing", "trace", "per-stage tracing", lambda c: "Trace"),
)
FEATURE_KEYS = frozenset(f.key for f in FEATURES)


def preset_mappings(name: str) -> dict[str, str]:
    """`# mapped(<feature>): <note>` comments of a preset's YAML, feature -> note."""
    text = (PRESETS_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for line in text.splitlines() if (m := _MAPPED.search(line))}


@dataclass(frozen=True)
class FeatureMatrix:
    systems: tuple[str, ...]
    features: tuple[Feature, ...]
    cells: Mapping[tuple[str, str], Cell]  # (feature key, system) -> cell

    def cell(self, feature: str, system: str) -> Cell:
        return self.cells[(feature, system)]

    def rows(self) -> list[dict[str, str]]:
        """One row per feature: stage, feature, then one text column per system."""
        return [{"stage": f.stage, "feature": f.label,
                 **{s: self.cell(f.key, s).text for s in self.systems}} for f in self.features]

    def to_markdown(self) -> str:
        """A GitHub Markdown table (on / – / mapped with a short detail), then every mapping
        note as a list, so cells stay one line."""
        head = ["stage", "feature", *self.systems]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for f in self.features:
            cells = [_md(self.cell(f.key, s)) for s in self.systems]
            lines.append("| " + " | ".join([f.stage, f.label, *cells]) + " |")
        notes = [f"- **{s}**, {f.label}: {self.cell(f.key, s).note}"
                 for s in self.systems for f in self.features
                 if self.cell(f.key, s).status == "mapped"]
        return "\n".join([*lines, "", "Mapped parts (from the presets' `# mapped(…)` comments):",
                          *notes])


def _md(cell: Cell) -> str:
    if cell.status == "off":
        return "–"
    detail = f" ({cell.detail})" if cell.detail and cell.detail != "on" else ""
    return f"{cell.status}{detail}".replace("|", "/")


def features_matrix(systems: Sequence[str] = SYSTEMS) -> FeatureMatrix:
    """Probe every feature on every preset; "mapped" where its YAML maps the seed's part."""
    cells: dict[tuple[str, str], Cell] = {}
    for system in systems:
        config, mapped = load_preset(system), preset_mappings(system)
        for feature in FEATURES:
            detail = feature.probe(config)
            if detail is None:
                cells[(feature.key, system)] = Cell("off")
            elif feature.key in mapped:
                cells[(feature.key, system)] = Cell("mapped", detail, mapped[feature.key])
            else:
                cells[(feature.key, system)] = Cell("on", detail)
    return FeatureMatrix(tuple(systems), FEATURES, MappingProxyType(cells))
