"""Scoring a user's own documents: a QA file over a folder of documents, or over a collection
they already built (in the app or with `python -m rag ingest`).

A QA file's labels name documents by file name (span `doc`, `doc_ids`). Over a folder, the
harness builds its own collection per index settings (eval.data.evalsets.qa_eval_set). Over an
existing collection, each chunk's document is its source's file name, the preset runs as it is —
its chunking and embedding read the index derived for them from the collection's documents
(rag/index/derived.py) — and reference passages come from the documents' kept text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import PurePath

from eval.data.evalsets import as_chunk_units
from eval.data.qa import QAItem, QASet, span_relevance
from eval.data.shapes import BeirDataset, DatasetError
from eval.runs.beir_index import Mode, full_searcher, retrieval_searcher
from eval.runs.preset_run import Searcher
from eval.scoring.answers import ANSWER_STAGES, AnswerSample, reference_passages, sample_from_trace
from rag.config import PipelineConfig, with_overrides
from rag.index import Collection, open_collection
from rag.index.derived import index_for, kept_documents, resolve
from rag.index.hits import Candidate
from rag.pipeline import run_query
from rag.trace import Trace


def document_name(candidate: Candidate) -> str:
    """The file name a chunk came from: what QA labels call a document."""
    return PurePath(str(candidate.chunk.metadata.get("source") or candidate.chunk.doc_id)).name


def collection_config(config: PipelineConfig, collection: Collection) -> PipelineConfig:
    """`config`, all of it, pointed at `collection`."""
    return with_overrides(config, {"index.collection": collection.name})


def qa_dataset(qa: QASet, collection: Collection) -> BeirDataset:
    """The QA file's questions and document qrels; every labelled document must be in the
    collection (by file name), else the message lists the ones it has."""
    names = {PurePath(source).name for source in collection.manifest.documents}
    for item in qa.items:
        missing = sorted(set(item.relevant_docs) - names)
        if missing:
            raise DatasetError(qa.source, f"question {item.qid!r} names documents not in "
                               f"collection {collection.name!r}: {', '.join(missing)} (it has "
                               f"{', '.join(sorted(names)) or 'none'})", field="spans")
    stamp = f"{collection.name}:{collection.manifest.updated_at}:{qa.items!r}"
    return BeirDataset(qa.name, {}, {i.qid: i.question for i in qa.items}, qa.doc_qrels(),
                       hashlib.sha256(stamp.encode()).hexdigest(), qa.source)


def corpus_dataset(qa: QASet, collection: Collection) -> BeirDataset:
    """`qa_dataset` with the collection's documents (kept text, by file name) as its corpus, for
    what indexes a dataset itself (tuning: eval.tune builds its own index per list setting)."""
    dataset = qa_dataset(qa, collection)
    return replace(dataset, corpus=collection_texts(collection))


def collection_searcher(config: PipelineConfig, collection: Collection, mode: Mode) -> Searcher:
    """The preset's ranking over the collection, each candidate's document named by file."""
    config = with_overrides(collection_config(config, collection),
                            {"retrieval.top_k": config.retrieval.depth})
    factory = retrieval_searcher if mode == "retrieval" else full_searcher
    search = factory(config, resolve(collection, config), None)

    def by_file(query: str) -> Sequence[Candidate]:
        return [replace(c, chunk=replace(c.chunk, doc_id=document_name(c))) for c in search(query)]

    return by_file


def span_scoring(qa: QASet, config: PipelineConfig, collection: Collection, mode: Mode,
                 dataset: BeirDataset) -> tuple[BeirDataset, Searcher]:
    """A span-labelled set over `collection` scored chunk by chunk, as Evaluate and `eval
    validate-testset` score span sets (one scoring path, issue 36 item 6): each candidate is its
    own chunk, and a chunk of the index the preset reads is relevant when it overlaps a labelled
    span of its file. Returns the dataset with those qrels and the chunk-unit searcher."""
    index = index_for(collection, with_overrides(collection_config(config, collection),
                                                 {"retrieval.top_k": config.retrieval.depth}))
    chunks = [replace(c, doc_id=PurePath(str(c.metadata.get("source") or c.doc_id)).name)
              for c in index.chunks()]
    search = collection_searcher(config, collection, mode)

    def by_chunk(query: str) -> Sequence[Candidate]:
        return as_chunk_units(search(query))

    return replace(dataset, qrels=span_relevance(chunks, qa.spans_by_query())), by_chunk


def collection_texts(collection: Collection) -> dict[str, dict[str, str]]:
    """{file name: {"title", "text"}}: the kept parsed text, or for a collection built before it
    was kept, rebuilt from the chunks (uncovered characters are spaces)."""
    kept = kept_documents(collection)
    if kept and len(kept) == len(collection.manifest.documents):
        return {PurePath(d.metadata.source).name: {"title": d.metadata.title, "text": d.text}
                for d in kept}
    pieces: dict[str, list[tuple[int, str]]] = {}
    titles: dict[str, str] = {}
    for chunk in collection.chunks():
        name = PurePath(str(chunk.metadata.get("source") or chunk.doc_id)).name
        pieces.setdefault(name, []).append((chunk.start, chunk.text))
        titles.setdefault(name, str(chunk.metadata.get("title", "")))
    corpus = {}
    for name, parts in pieces.items():
        chars = [" "] * max(start + len(text) for start, text in parts)
        for start, text in parts:
            chars[start : start + len(text)] = text
        corpus[name] = {"title": titles[name], "text": "".join(chars)}
    return corpus


def collection_traces(
    qa: QASet, config: PipelineConfig, collection: Collection,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[QAItem, Trace]]:
    """Every question through the full pipeline (context, generation, grounding on) over an
    existing collection: (item, trace) per question."""
    config = with_overrides(collection_config(config, collection), ANSWER_STAGES)
    ref = resolve(collection, config)  # once: every question reads this index and its text
    for done, item in enumerate(qa.items, start=1):
        yield item, run_query(item.question, config, ref)
        if progress is not None:
            progress(done, len(qa.items))


def collection_answer_samples(
    qa: QASet, config: PipelineConfig, collection: Collection,
    progress: Callable[[int, int], None] | None = None,
) -> list[AnswerSample]:
    """Answer every question with the full pipeline over an existing collection."""
    corpus: Mapping[str, Mapping[str, str]] = collection_texts(collection)
    return [sample_from_trace(item.qid, trace, item.answer, reference_passages(item, corpus),
                              item.answerable)
            for item, trace in collection_traces(qa, config, collection, progress)]


def preset_collection(name: str, config: PipelineConfig) -> Collection:
    """Collection `name`, with the index `config` reads built or brought up to date now (and
    said on stdout) rather than inside the first query's retrieve stage."""
    collection = open_collection(name)
    resolve(collection, config, on_sync=lambda done: print(done.describe()))
    return collection
