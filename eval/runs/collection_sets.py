"""A test set stored with a collection (or any QA file over its documents) as an EvalSet that
every Evaluate mode runs: presets, sweeps, tuning, abstention, failure classes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import PurePath
from types import MappingProxyType

from eval.data.evalsets import EvalSet
from eval.data.qa import QASet, Span
from eval.data.shapes import BeirDataset
from eval.runs.own_corpus import collection_texts, qa_dataset
from rag.documents.base import DocumentMetadata
from rag.index import Collection
from rag.index.derived import kept_documents


def _kept_type(meta: DocumentMetadata | None) -> dict[str, str]:
    """The detected type, format and headings a document was ingested with (issue 36, item 6:
    EchoMind chunks by type), as eval.runs.beir_index.beir_documents reads them."""
    if meta is None:
        return {}
    return {"doc_type": meta.doc_type, "doc_type_reason": meta.doc_type_reason, "format": meta.format,
            "heading_spans": json.dumps([list(s) for s in meta.extra.get("heading_spans", ())])}


def collection_eval_set(
    qa: QASet, collection: Collection, nonrelevant: Mapping[str, tuple[Span, ...]] | None = None,
) -> EvalSet:
    """A set stored with `collection` (or any QA file over its documents) as an EvalSet every
    Evaluate mode runs: the corpus is the collection's kept text per file name, so the set's
    spans keep their offsets, and each preset indexes it with its own chunking and embedding
    (the harness's collection per index settings; vectors come from the embedding cache).

    The dataset is named after the collection and hashed over its texts only, so every set of
    one collection shares those indexes; `title` says which set it is."""
    qa_dataset(qa, collection)  # every labelled document is in the collection, or a clear error
    typed = {PurePath(d.metadata.source).name: d.metadata for d in kept_documents(collection)}
    corpus = {name: {"title": "", "text": doc["text"], **_kept_type(typed.get(name))}
              for name, doc in sorted(collection_texts(collection).items())}
    digest = hashlib.sha256()
    for name, doc in corpus.items():
        kind = f"{doc.get('doc_type', '')}{doc.get('heading_spans', '')}"
        digest.update(f"{name}\0{doc['text']}\0{kind}\0".encode())
    dataset = BeirDataset(collection.name, corpus, {i.qid: i.question for i in qa.items},
                          qa.doc_qrels(), digest.hexdigest(), qa.source)
    return EvalSet(dataset, MappingProxyType(qa.spans_by_query()),
                   MappingProxyType(dict(nonrelevant or {})), f"{collection.name} / {qa.name}",
                   collection.name)
