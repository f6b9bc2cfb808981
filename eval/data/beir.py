"""Load BEIR-format folders (Thakur et al. 2021): corpus.jsonl, queries.jsonl, qrels/<split>.tsv.

Ids are strings (integer ids are read as their decimal string). Every problem raises DatasetError
naming the file, the line and the field. Queries without any qrels row are dropped, as BEIR's own
loader does. QA files and Hugging Face datasets live in eval.data.qa and are re-exported here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from eval.data.qa import QAItem, QASet, Span, load_hf_qa, load_qa_file, span_relevance
from eval.data.shapes import BeirDataset, Corpus, DatasetError, Qrels, Queries, json_lines, text_lines

QRELS_HEADER = ("query-id", "corpus-id", "score")


def _require(path: Path) -> Path:
    if not path.is_file():
        raise DatasetError(path, "file not found (a BEIR folder holds corpus.jsonl, "
                           "queries.jsonl and qrels/<split>.tsv)")
    return path


def _id(obj: dict[str, Any], key: str, path: Path, line: int) -> str:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
        problem = "missing" if value is None else f"must be a non-empty string, got {value!r}"
        raise DatasetError(path, problem, line, key)
    return str(value)


def _text(obj: dict[str, Any], key: str, path: Path, line: int, required: bool) -> str:
    value = obj.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        problem = "missing" if value is None else f"must be a string, got {type(value).__name__}"
        raise DatasetError(path, problem, line, key)
    return value


def _check_unique(seen: dict[str, int], item_id: str, path: Path, line: int) -> None:
    if item_id in seen:
        raise DatasetError(path, f"duplicate id {item_id!r} (first on line {seen[item_id]})",
                           line, "_id")
    seen[item_id] = line


def load_corpus(path: Path) -> Corpus:
    """corpus.jsonl: {"_id", "text", "title"?} per line -> {doc_id: {"title", "text"}}."""
    corpus: dict[str, dict[str, str]] = {}
    seen: dict[str, int] = {}
    for line, obj in json_lines(_require(path)):
        doc_id = _id(obj, "_id", path, line)
        _check_unique(seen, doc_id, path, line)
        corpus[doc_id] = {
            "title": _text(obj, "title", path, line, required=False),
            "text": _text(obj, "text", path, line, required=True),
        }
    return corpus


def load_queries(path: Path) -> Queries:
    """queries.jsonl: {"_id", "text"} per line -> {query_id: text}."""
    queries: dict[str, str] = {}
    seen: dict[str, int] = {}
    for line, obj in json_lines(_require(path)):
        query_id = _id(obj, "_id", path, line)
        _check_unique(seen, query_id, path, line)
        text = _text(obj, "text", path, line, required=True)
        if not text.strip():
            raise DatasetError(path, "is empty: every query needs text", line, "text")
        queries[query_id] = text
    return queries


def load_qrels(path: Path, corpus: Corpus, queries: Queries) -> Qrels:
    """qrels TSV with a header row: query-id, corpus-id, integer score; ids must exist."""
    qrels: dict[str, dict[str, int]] = {}
    for number, raw in text_lines(_require(path)):
        if not raw.strip():
            continue
        cells = raw.rstrip("\r\n").split("\t")
        if number == 1 and tuple(c.strip().lower() for c in cells[:3]) == QRELS_HEADER:
            continue
        if len(cells) != 3:
            raise DatasetError(path, f"expected 3 tab-separated columns "
                               f"(query-id, corpus-id, score), got {len(cells)}", number)
        query_id, doc_id, score = (c.strip() for c in cells)
        if query_id not in queries:
            raise DatasetError(path, f"unknown query id {query_id!r} "
                               "(not in queries.jsonl)", number, "query-id")
        if doc_id not in corpus:
            raise DatasetError(path, f"unknown doc id {doc_id!r} (not in corpus.jsonl)",
                               number, "corpus-id")
        try:
            relevance = int(score)
        except ValueError:
            raise DatasetError(path, f"relevance must be an integer, got {score!r}",
                               number, "score") from None
        qrels.setdefault(query_id, {})[doc_id] = relevance
    return qrels


def files_hash(paths: list[Path]) -> str:
    """sha256 over the files' names and bytes: the identity of a dataset for caches and runs."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def load_beir(folder: str | Path, split: str = "test") -> BeirDataset:
    """Load and validate a BEIR folder; queries are restricted to those that have qrels."""
    root = Path(folder)
    if not root.is_dir():
        raise DatasetError(root, "dataset folder not found")
    paths = [root / "corpus.jsonl", root / "queries.jsonl", root / "qrels" / f"{split}.tsv"]
    corpus = load_corpus(paths[0])
    queries = load_queries(paths[1])
    qrels = load_qrels(paths[2], corpus, queries)
    if not qrels:
        raise DatasetError(paths[2], "no relevance judgements")
    if not any(score > 0 for judged in qrels.values() for score in judged.values()):
        raise DatasetError(paths[2], "every relevance score is 0: no query has a relevant document, "
                           "so every metric would be 0", field="score")
    if not any(doc["text"].strip() or doc["title"].strip() for doc in corpus.values()):
        raise DatasetError(paths[0], "every document's title and text are empty: nothing to retrieve",
                           field="text")
    return BeirDataset(
        name=root.name,
        corpus=corpus,
        queries={qid: text for qid, text in queries.items() if qid in qrels},
        qrels=qrels,
        content_hash=files_hash(paths),
        source=str(root),
    )


__all__ = [
    "BeirDataset",
    "DatasetError",
    "QAItem",
    "QASet",
    "Span",
    "files_hash",
    "load_beir",
    "load_corpus",
    "load_hf_qa",
    "load_qa_file",
    "load_qrels",
    "load_queries",
    "span_relevance",
]
