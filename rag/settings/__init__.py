"""Every setting of a pipeline, in one place: one module per config section (abstain, chunking,
context, documents, embedding, enrich, generation, grounding, index, query, adaptive, rerank,
retrieval) and the composite PipelineConfig (pipeline.py). Sections import nothing of rag/ but
each other and rag.privacy; names they hold are checked against registries when a stage is
built and when a preset is loaded (rag.config), never by a section's validator.

This package exports nothing itself so that importing one section loads only that section."""
