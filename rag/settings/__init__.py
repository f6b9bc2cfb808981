"""Every setting of a pipeline, in one place: one module per config section (abstain, chunking,
context, documents, embedding, enrich, generation, grounding, index, query, adaptive, rerank,
retrieval) and the composite PipelineConfig (pipeline.py). Sections import nothing of rag/ but
each other and rag.privacy; names they hold are checked against registries when a stage is
built and when a preset is loaded (rag.config), never by a section's validator.

The few names pages read from here load on first use, so importing one section loads only it."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "GenerationMode": "rag.settings.generation",
    "QueryConfig": "rag.settings.query",
    "TokenizerConfig": "rag.settings.index",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
