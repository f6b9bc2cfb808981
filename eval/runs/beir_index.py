"""A BEIR corpus as a workbench collection, and per-preset searchers over it.

Each BEIR document becomes one Document (doc_id = its `_id`, text = title + text) chunked by the
preset. The collection is named after the dataset's content hash and the preset's index
settings (chunking, embedding model, BM25 backend and tokenizer), so presets that share those
share one collection, and a second run reuses it: only missing documents are ever indexed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Literal, cast

from eval.data.shapes import BeirDataset
from eval.runs.preset_run import QueryBlocked, Searcher
from eval.runs.trace_tap import tap
from rag.config import PipelineConfig, with_overrides
from rag.documents.base import DocType, Document, DocumentMetadata
from rag.index import Collection, index_settings, settings_hash
from rag.index.collection import open_working
from rag.index.hits import Candidate
from rag.pipeline import Source, ranked_candidates, run_query
from rag.retrieve.stage import SelectOutput
from rag.trace import Trace

Mode = Literal["retrieval", "full"]
MODES: tuple[Mode, ...] = ("retrieval", "full")


def document_text(title: str, text: str) -> str:
    """BEIR convention: the title, when there is one, opens the passage."""
    return f"{title}\n\n{text}" if title else text


def beir_documents(dataset: BeirDataset) -> list[Document]:
    """One Document per BEIR document; `source` is `beir:<id>` so re-ingesting skips it. A corpus
    read from parsed files (eval.data.evalsets.qa_eval_set) carries each file's detected type and
    format, so type-aware chunking (EchoMind) cuts it as ingest would (issue 36, item 6)."""
    documents = []
    for doc_id, doc in dataset.corpus.items():
        text = document_text(doc.get("title", ""), doc["text"])
        metadata = DocumentMetadata(
            source=f"beir:{doc_id}",
            title=doc.get("title", "") or doc_id,
            content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
            format=doc.get("format") or "txt",
            doc_type=cast(DocType, doc.get("doc_type") or "USER"),
            doc_type_reason=doc.get("doc_type_reason", ""),
            # the headings the parser saw (the FAQ chunker cuts at them): JSON in the corpus
            extra=MappingProxyType({"heading_spans": json.loads(doc["heading_spans"])}
                                   if doc.get("heading_spans") else {}),
        )
        documents.append(Document(doc_id=doc_id, text=text, metadata=metadata))
    return documents


def collection_name(dataset: BeirDataset, config: PipelineConfig) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", dataset.name).strip("-.")[:24] or "beir"
    return f"beir-{slug}-{dataset.content_hash[:10]}-{settings_hash(index_settings(config))[:10]}"


def eval_config(config: PipelineConfig, dataset: BeirDataset) -> PipelineConfig:
    """The preset pointed at the dataset's collection, returning everything it fused (top_k =
    depth) so deep metrics such as recall@100 see the whole ranking; depth is left as is."""
    name = collection_name(dataset, config)
    if config.index.collection == name and config.retrieval.top_k == config.retrieval.depth:
        return config  # already so (a sweep point, eval.runs.sweep.point_config): not re-validated
    return with_overrides(config, {"index.collection": name, "retrieval.top_k": config.retrieval.depth})


def beir_collection(
    dataset: BeirDataset, config: PipelineConfig, progress: bool = True
) -> Collection:
    """Open (building or completing if needed) the collection for `dataset` under `config`."""
    config = eval_config(config, dataset)
    # eval's own index of the set, not a user's collection: never listed in the sidebar
    collection = open_working(config.index.collection, f"eval: set {dataset.name!r} "
                              f"({dataset.content_hash[:10]}) under one preset's index settings")
    indexed = collection.manifest.documents
    missing = [d for d in beir_documents(dataset) if d.metadata.source not in indexed]
    if missing:
        collection.add_documents(missing, config, progress=progress)
    return collection


def _clock(now: datetime | None) -> datetime:
    """One clock for a whole run: time windows and decay see every query at the same moment,
    so a run is reproducible and its queries comparable."""
    return now or datetime.now(UTC)


def refuse_if_blocked(trace: Trace) -> None:
    if trace.blocked is not None:
        raise QueryBlocked(trace.blocked)


def retrieval_searcher(
    config: PipelineConfig, collection: Source, now: datetime | None = None
) -> Searcher:
    """Query -> the pipeline up to `select` (guard … retrieve → fuse → postprocess → authority
    → rerank → select): exactly the ranking a full run of the preset hands to context building."""

    clock = _clock(now)

    def search(query: str) -> Sequence[Candidate]:
        trace = run_query(query, config, collection, last="select", raise_errors=True, now=clock)
        tap(query, trace)  # kept with a stored run (eval.runs.trace_tap)
        refuse_if_blocked(trace)
        selected = trace.output(SelectOutput)
        return selected.candidates if selected is not None else ()

    return search


def full_searcher(
    config: PipelineConfig, collection: Source, now: datetime | None = None
) -> Searcher:
    """Query -> every pipeline stage (understanding, rerank …) -> the final ranked candidates."""
    clock = _clock(now)

    def search(query: str) -> Sequence[Candidate]:
        trace = run_query(query, config, collection, raise_errors=True, now=clock)
        tap(query, trace)
        refuse_if_blocked(trace)
        return ranked_candidates(trace)

    return search


def make_searcher(
    dataset: BeirDataset, config: PipelineConfig, mode: Mode = "retrieval", progress: bool = True,
    now: datetime | None = None,
) -> Searcher:
    """A searcher for `config` over the dataset's collection (built on first use); every query
    runs at `now` (default: when the searcher is made)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")
    collection = beir_collection(dataset, config, progress)
    config = eval_config(config, dataset)
    factory = retrieval_searcher if mode == "retrieval" else full_searcher
    return factory(config, collection, now)
