"""What a stored run was scored on, as hashes a later comparison can check.

- data hash: the documents (corpus ids and texts), whatever the questions;
- test set hash: the questions and every label (document qrels, relevant and not-relevant spans),
  so a relabelled set is another set even when its name stays;
- labels: who made the labels (human-judged, judge-filled, mined, generated, a bundled set);
- judgments version: for a set judged on the Judge page, how many judgments its judging file held
  and the latest one's time, so two runs on one set judged further say so;
- config hash: the scored config, canonical JSON.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.data.evalsets import EvalSet
from eval.data.qa import Span
from eval.data.shapes import BeirDataset


def _digest(parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False,
                                     default=str).encode("utf-8")).hexdigest()


def data_hash(dataset: BeirDataset) -> str:
    """The documents alone: ids, titles and texts (sorted by id)."""
    digest = hashlib.sha256()
    for doc_id in sorted(dataset.corpus):
        doc = dataset.corpus[doc_id]
        digest.update(f"{doc_id}\0{doc.get('title', '')}\0{doc.get('text', '')}\0".encode())
    return digest.hexdigest()


def _spans(spans: Mapping[str, Sequence[Span]]) -> dict[str, list[list[Any]]]:
    return {q: sorted([s.doc, s.start, s.end] for s in v) for q, v in spans.items()}


def testset_hash(dataset: BeirDataset, spans: Mapping[str, Sequence[Span]] | None = None,
                 nonrelevant: Mapping[str, Sequence[Span]] | None = None) -> str:
    """The questions and all their labels; any changed label makes another hash."""
    return _digest({"queries": dict(dataset.queries),
                    "qrels": {q: dict(v) for q, v in dataset.qrels.items()},
                    "spans": _spans(spans or {}), "nonrelevant": _spans(nonrelevant or {})})


def config_hash(config: Mapping[str, Any]) -> str:
    """The first 12 hex digits of the config's canonical JSON."""
    return _digest(dict(config))[:12]


def labels_kind(provenance: Mapping[str, int]) -> str:
    """Who labelled a set, from its rows' provenance counts ('judged' rows were judged by a
    person; a method naming a judge model, e.g. 'llm-judge', filled labels by a model)."""
    methods = {key.split(":", 1)[0] for key, n in provenance.items() if n}
    if any("judge" in m and m != "judged" for m in methods):
        return "judge-filled"
    if "judged" in methods:
        return "human-judged"
    kept = sorted(methods - {"unanswerable", "unlabelled"}) or sorted(methods)
    return "+".join(kept) if kept else "unlabelled"


def judgments_version(collection: str, set_name: str) -> str | None:
    """'<judgments> judgments, last <time>' from the set's judging file, None when unjudged."""
    from eval.judging.store import judging_path

    try:
        path = judging_path(collection, set_name)
    except ValueError:
        return None
    if not path.is_file():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            count, last = db.execute("SELECT COUNT(*), MAX(at) FROM judgments").fetchone()
    except sqlite3.Error:  # a judging file of another shape: the run says unknown
        return "unknown"
    return f"{count} judgments, last {last}" if count else None


@dataclass(frozen=True)
class TestSetIdentity:
    """The test set part of a run record."""

    __test__ = False  # not a pytest class

    name: str
    hash: str
    labels: str
    judgments: str | None
    collection: str | None  # the collection the set belongs to (None: a bundled or file set)

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "hash": self.hash, "labels": self.labels,
                "judgments": self.judgments, "collection": self.collection}


def evalset_identity(evalset: EvalSet) -> TestSetIdentity:
    """The identity of a set the Evaluate page or a notebook scored."""
    digest = testset_hash(evalset.dataset, evalset.spans, evalset.nonrelevant)
    if evalset.collection:
        set_name = evalset.name.split(" / ", 1)[-1]
        return _collection_set(evalset.collection, set_name, digest, evalset.judged)
    return TestSetIdentity(evalset.name, digest, "qrels" if not evalset.spans else "spans",
                           None, None)


def dataset_identity(dataset: BeirDataset, collection: str | None = None,
                     set_name: str | None = None,
                     spans: Mapping[str, Sequence[Span]] | None = None) -> TestSetIdentity:
    """The identity of a set the command line scored: a BEIR folder, or `set_name` (a stored set
    or a QA file) over `collection`. A stored set is hashed from its own rows (spans and the
    passages judged not relevant), as Evaluate hashes it, so one set is one hash on every path."""
    if collection and set_name:
        rows = _stored_rows(collection, set_name)
        if rows is None:
            return TestSetIdentity(set_name, testset_hash(dataset, spans), "file", None, collection)
        from eval.judging.export import nonrelevant_spans
        from eval.testsets.store import load_set

        nonrelevant = nonrelevant_spans(rows)
        digest = testset_hash(dataset, load_set(collection, set_name).spans_by_query(), nonrelevant)
        return _collection_set(collection, set_name, digest, bool(nonrelevant), rows)
    return TestSetIdentity(set_name or dataset.name, testset_hash(dataset, spans),
                           "qrels" if not spans else "spans", None, None)


def _stored_rows(collection: str, set_name: str) -> list[dict[str, Any]] | None:
    """The rows of `set_name` when it is a set stored with `collection`, else None (a file)."""
    from eval.testsets.store import read_rows, set_path

    try:
        stored = set_path(collection, set_name).is_file()
    except ValueError:  # a QA file's path, not a stored set's name
        return None
    return read_rows(collection, set_name) if stored else None


def _collection_set(collection: str, set_name: str, digest: str, judged: bool,
                    rows: Sequence[Mapping[str, Any]] | None = None) -> TestSetIdentity:
    from eval.judging.filled import FILLED
    from eval.testsets.store import provenance_key

    rows = _stored_rows(collection, set_name) if rows is None else rows
    if rows is None:
        return TestSetIdentity(set_name, digest, "file", None, collection)
    counts = Counter(provenance_key(r) for r in rows)
    # the learned judge's fill rides on the rows (eval.judging.filled), not in their provenance key
    labels = "judge-filled" if any(r.get(FILLED) for r in rows) else labels_kind(counts)
    if judged and labels not in ("human-judged", "judge-filled"):
        labels = "human-judged"
    return TestSetIdentity(set_name, digest, labels, judgments_version(collection, set_name),
                           collection)
