"""A test set stored with a collection (or any QA file over its documents) as an EvalSet that
every Evaluate mode runs: presets, sweeps, tuning, abstention, failure classes."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from types import MappingProxyType

from eval.data.evalsets import EvalSet
from eval.data.qa import QASet, Span
from eval.data.shapes import BeirDataset
from eval.runs.own_corpus import collection_texts, qa_dataset
from rag.index import Collection


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
    corpus = {name: {"title": "", "text": doc["text"]}
              for name, doc in sorted(collection_texts(collection).items())}
    digest = hashlib.sha256()
    for name, doc in corpus.items():
        digest.update(f"{name}\0{doc['text']}\0".encode())
    dataset = BeirDataset(collection.name, corpus, {i.qid: i.question for i in qa.items},
                          qa.doc_qrels(), digest.hexdigest(), qa.source)
    return EvalSet(dataset, MappingProxyType(qa.spans_by_query()),
                   MappingProxyType(dict(nonrelevant or {})), f"{collection.name} / {qa.name}",
                   collection.name)
