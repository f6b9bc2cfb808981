"""Evaluation sets the workbench can score: BEIR folders, and span-labeled QA files over a folder
of documents (judged per chunk, so the same set scores any chunker).

A QA set becomes a BEIR dataset whose corpus is the documents themselves (doc id = file name,
text = the parsed text, so span offsets stay valid once the collection is chunked). Its relevance
is decided per collection: a chunk is relevant when it overlaps a labeled span
(eval.data.qa.span_relevance). Scoring then treats each chunk as the unit (`as_chunk_units`), so
eval.runs.preset_run and eval.runs.sweep compute chunk-level metrics with their usual document machinery.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from eval.data.beir import (
    QASet,
    Span,
    files_hash,
    load_beir,
    load_corpus,
    load_qa_file,
    span_relevance,
)
from eval.data.shapes import BeirDataset, DatasetError, Qrels
from eval.runs.candidates import QueryLists
from rag.chunking.base import Chunk
from rag.documents import parse_file
from rag.index.hits import Candidate, RankedList
from rag.paths import PROJECT_ROOT, SAMPLES_DIR

Unit = Literal["document", "chunk"]
DATASETS_DIR = PROJECT_ROOT / "datasets"
QA_SUFFIXES = (".jsonl", ".csv")


@dataclass(frozen=True)
class EvalSet:
    """A BEIR dataset, plus span labels when relevance is judged per chunk (QA span sets), and
    for judged sets the spans a person judged not relevant (`nonrelevant`)."""

    dataset: BeirDataset
    spans: Mapping[str, tuple[Span, ...]] = field(default_factory=lambda: MappingProxyType({}))
    nonrelevant: Mapping[str, tuple[Span, ...]] = field(
        default_factory=lambda: MappingProxyType({}))
    title: str = ""  # what the page calls the set, when not the dataset's name
    collection: str = ""  # the collection a set stored with one is asked of

    @property
    def unit(self) -> Unit:
        return "chunk" if self.spans else "document"

    @property
    def name(self) -> str:
        return self.title or self.dataset.name

    @property
    def judged(self) -> bool:
        """Whether passages were judged not relevant too: then unjudged passages are known."""
        return bool(self.nonrelevant)

    def qrels_for(self, chunks: Iterable[Chunk]) -> Qrels:
        """Relevance over a collection's chunks: span overlap for span sets, else the qrels. A
        chunk overlapping a span judged not relevant (and no relevant one) is judged 0, so
        eval.scoring.judged can tell it from a chunk nobody judged."""
        if not self.spans:
            return self.dataset.qrels
        chunks = list(chunks)
        qrels = span_relevance(chunks, self.spans)
        if self.nonrelevant:
            for qid, judged in span_relevance(chunks, self.nonrelevant).items():
                qrels[qid] = {**dict.fromkeys(judged, 0), **qrels.get(qid, {})}
        return qrels

    def scoring_dataset(self, chunks: Iterable[Chunk]) -> BeirDataset:
        """The dataset with the qrels a run over these chunks is scored against."""
        return replace(self.dataset, qrels=self.qrels_for(chunks)) if self.spans else self.dataset

    def limit(self, n: int | None) -> EvalSet:
        """The first `n` queries by id (all for None)."""
        if n is None or n >= len(self.dataset.queries):
            return self
        if n < 1:
            raise ValueError(f"the number of queries must be at least 1, got {n}")
        keep = sorted(self.dataset.queries)[:n]
        dataset = replace(self.dataset, queries={q: self.dataset.queries[q] for q in keep},
                          qrels={q: self.dataset.qrels[q] for q in keep if q in self.dataset.qrels})
        spans = {q: s for q, s in self.spans.items() if q in dataset.queries}
        nonrelevant = {q: s for q, s in self.nonrelevant.items() if q in dataset.queries}
        return EvalSet(dataset, MappingProxyType(spans), MappingProxyType(nonrelevant),
                       self.title, self.collection)


def as_chunk_units(candidates: Sequence[Candidate]) -> tuple[Candidate, ...]:
    """Candidates whose `doc_id` is their chunk id: the unit eval.runs.preset_run maps rankings to, so a
    span set is scored chunk by chunk (new Candidates; the inputs stay untouched)."""
    return tuple(replace(c, chunk=replace(c.chunk, doc_id=c.chunk_id)) for c in candidates)


def chunk_unit_lists(items: Sequence[QueryLists]) -> tuple[QueryLists, ...]:
    """Cached lists with every candidate keyed by chunk (see `as_chunk_units`)."""
    return tuple(
        replace(item, lists=MappingProxyType({
            name: RankedList(r.retriever, as_chunk_units(r.candidates))
            for name, r in item.lists.items()
        }))
        for item in items
    )


def _require_labeled(
    qa: QASet, known: Iterable[str], where: str, field: str, noun: str, shown: int | None
) -> None:
    """Every document a question's labels name is in the corpus, or a DatasetError naming the
    first `shown` missing ones (all when None)."""
    available = set(known)
    for item in qa.items:
        missing = sorted(set(item.relevant_docs) - available)
        if missing:
            raise DatasetError(qa.source, f"question {item.qid!r} names {noun} not in "
                               f"{where}: {', '.join(missing[:shown])}", field=field)


def qa_eval_set(qa: QASet, documents_dir: Path = SAMPLES_DIR) -> EvalSet:
    """A span-labeled QA set over the files of `documents_dir` (span `doc` = a file name)."""
    files = sorted(p for p in documents_dir.iterdir() if p.is_file())
    parsed = {p.name: parse_file(p) for p in files}
    # the detected type and format travel with the text: type-aware chunking needs them
    corpus = {name: {"title": "", "text": d.text, "doc_type": d.metadata.doc_type,
                     "doc_type_reason": d.metadata.doc_type_reason, "format": d.metadata.format,
                     "heading_spans": json.dumps(d.metadata.extra.get("heading_spans", []))}
              for name, d in parsed.items()}
    _require_labeled(qa, corpus, str(documents_dir), "spans", "documents", None)
    dataset = BeirDataset(
        name=qa.name,
        corpus=corpus,
        queries={i.qid: i.question for i in qa.items},
        qrels=qa.doc_qrels(),
        # the documents and the labels: a changed span makes it another dataset
        # "typed-2": collections built before documents kept their type and headings not reused
        content_hash=hashlib.sha256(
            (files_hash(files) + repr(qa.items) + "typed-2").encode()).hexdigest(),
        source=qa.source,
    )
    return EvalSet(dataset, MappingProxyType(qa.spans_by_query()))


def qa_corpus_set(qa: QASet, corpus: Path = SAMPLES_DIR) -> EvalSet:
    """A QA set over a folder of documents (`qa_eval_set`) or over a BEIR folder's corpus.jsonl
    (passage ids are the documents; one collection per corpus, whatever the questions)."""
    if not (corpus / "corpus.jsonl").is_file():
        return qa_eval_set(qa, corpus)
    passages = load_corpus(corpus / "corpus.jsonl")
    _require_labeled(qa, passages, f"{corpus}/corpus.jsonl", "doc_ids", "passages", 5)
    dataset = BeirDataset(
        name=corpus.name, corpus=passages, queries={i.qid: i.question for i in qa.items},
        qrels=qa.doc_qrels(), content_hash=files_hash([corpus / "corpus.jsonl"]), source=str(corpus),
    )
    return EvalSet(dataset, MappingProxyType(qa.spans_by_query()))


def load_eval_set(source: str | Path, documents_dir: Path = SAMPLES_DIR) -> EvalSet:
    """A BEIR folder, or a QA file (.jsonl / .csv) whose spans point into `documents_dir`."""
    path = Path(source)
    if path.is_dir():
        return EvalSet(load_beir(path))
    if path.suffix.lower() in QA_SUFFIXES:
        return qa_eval_set(load_qa_file(path), documents_dir)
    raise DatasetError(path, "not a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) "
                       f"nor a QA file ({', '.join(QA_SUFFIXES)})")


def bundled_sets(root: Path = DATASETS_DIR) -> dict[str, Path]:
    """Label -> path of the sets shipped or built under datasets/: the BEIR sample, the span
    QA set over datasets/samples/, and every BEIR folder a builder wrote under datasets/build/."""
    found = {"beir_sample (BEIR)": root / "beir_sample",
             "qa_samples (spans over samples/)": root / "qa_samples.jsonl"}
    build = root / "build"
    if build.is_dir():
        for folder in sorted(build.iterdir()):
            if (folder / "corpus.jsonl").is_file() and (folder / "qrels").is_dir():
                found[f"build/{folder.name} (BEIR)"] = folder
    return {label: path for label, path in found.items() if path.exists()}
