"""QA test sets: question, reference answer, relevant doc ids and/or character spans.

Sources: JSONL or CSV files, and Hugging Face `datasets` (local files through the json/csv/parquet
builders, or hub names for users with internet). Span labels keep a set valid when the chunker
changes: `span_relevance` marks a chunk relevant when it overlaps a labeled span.

Row fields: `question` (required), `answer` (or `reference_answer`), `id` (default: row number),
`doc_ids` (list; in CSV a `;`-separated string), `spans` (list of {doc, start, end, text?}; in CSV
a JSON string). `text`, when given, is the exact labeled text, so a set can be re-validated.
`answerable` (default true): false marks a question the corpus cannot answer — it carries no
reference answer and no labels, and the right outcome is to decline (eval.scoring.abstention).
`provenance` (an object: how the row was made, eval/testsets/store.py) and any other field are
kept in the file and ignored here.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.data.shapes import DatasetError, Qrels, json_lines, text_lines
from rag.chunking.base import Chunk

_HF_BUILDERS = {".json": "json", ".jsonl": "json", ".csv": "csv", ".parquet": "parquet"}


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of the document named `doc` answer the question."""

    doc: str
    start: int
    end: int
    text: str = ""

    def overlaps(self, start: int, end: int) -> bool:
        return self.start < end and start < self.end


@dataclass(frozen=True)
class QAItem:
    qid: str
    question: str
    answer: str = ""
    doc_ids: tuple[str, ...] = ()
    spans: tuple[Span, ...] = ()
    answerable: bool = True

    @property
    def relevant_docs(self) -> tuple[str, ...]:
        """Doc ids labeled directly or through a span, in first-seen order."""
        return tuple(dict.fromkeys((*self.doc_ids, *(s.doc for s in self.spans))))


@dataclass(frozen=True)
class QASet:
    name: str
    items: tuple[QAItem, ...]
    source: str = ""

    def doc_qrels(self) -> Qrels:
        """Document-level qrels {qid: {doc: 1}} for items with labels."""
        return {i.qid: dict.fromkeys(i.relevant_docs, 1) for i in self.items if i.relevant_docs}

    def spans_by_query(self) -> dict[str, tuple[Span, ...]]:
        return {i.qid: i.spans for i in self.items if i.spans}


def _int(value: object, where: Path | str, line: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DatasetError(where, f"must be a non-negative integer, got {value!r}", line, field)
    return value


def _span(raw: object, where: Path | str, line: int, index: int) -> Span:
    field = f"spans[{index}]"
    if not isinstance(raw, Mapping):
        raise DatasetError(where, "must be an object {doc, start, end}", line, field)
    doc = raw.get("doc")
    if not isinstance(doc, str) or not doc:
        raise DatasetError(where, f"missing or empty doc, got {doc!r}", line, f"{field}.doc")
    start = _int(raw.get("start"), where, line, f"{field}.start")
    end = _int(raw.get("end"), where, line, f"{field}.end")
    if end <= start:
        raise DatasetError(where, f"end ({end}) must be greater than start ({start})", line,
                           f"{field}.end")
    text = raw.get("text") or ""
    if not isinstance(text, str):
        raise DatasetError(where, "must be a string", line, f"{field}.text")
    return Span(doc, start, end, text)


def _list_field(
    value: object, where: Path | str, line: int, field: str, csv_mode: bool
) -> list[object]:
    if value is None or value == "":
        return []
    if csv_mode and isinstance(value, str):
        if field == "doc_ids":
            return [part.strip() for part in value.split(";") if part.strip()]
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise DatasetError(where, f"not valid JSON ({exc.msg})", line, field) from None
    if not isinstance(value, list):
        raise DatasetError(where, f"must be a list, got {type(value).__name__}", line, field)
    return value


def item_from_row(
    row: Mapping[str, Any], where: Path | str, line: int, csv_mode: bool = False
) -> QAItem:
    """One validated QAItem from a row (a JSON object, a CSV row or a HF dataset row)."""
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DatasetError(where, "missing or empty", line, "question")
    answer = row.get("answer", row.get("reference_answer")) or ""
    if not isinstance(answer, str):
        raise DatasetError(where, "must be a string", line, "answer")
    raw_ids = _list_field(row.get("doc_ids"), where, line, "doc_ids", csv_mode)
    doc_ids = [d for d in raw_ids if isinstance(d, str) and d]
    if len(doc_ids) != len(raw_ids):
        raise DatasetError(where, "must be a list of non-empty strings", line, "doc_ids")
    spans = _list_field(row.get("spans"), where, line, "spans", csv_mode)
    answerable = _answerable(row.get("answerable", True), where, line)
    if not answerable and (answer or doc_ids or spans):
        raise DatasetError(where, "an unanswerable question has no answer, doc_ids or spans", line,
                           "answerable")
    qid = row.get("id")
    return QAItem(
        qid=str(qid) if qid not in (None, "") else f"q{line}",
        question=question.strip(),
        answer=answer,
        doc_ids=tuple(doc_ids),
        spans=tuple(_span(raw, where, line, i) for i, raw in enumerate(spans)),
        answerable=answerable,
    )


def _answerable(value: object, where: Path | str, line: int) -> bool:
    """JSON true/false; in CSV "true"/"false" (also 1/0, yes/no; empty = true)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    if text in ("", "true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise DatasetError(where, f"must be true or false, got {value!r}", line, "answerable")


def _rows(path: Path) -> Iterator[tuple[int, Mapping[str, Any], bool]]:
    """(line number, row, csv_mode) for each non-blank row of a JSONL or CSV file."""
    if path.suffix.lower() == ".csv":
        # decoded line by line first, so a non-UTF-8 byte is reported with its line
        reader = csv.DictReader([text for _, text in text_lines(path)])
        if not reader.fieldnames or "question" not in reader.fieldnames:
            raise DatasetError(path, "the header row must name a 'question' column", 1)
        for row in reader:
            yield reader.line_num, row, True
        return
    for number, obj in json_lines(path):
        yield number, obj, False


def _collect(name: str, source: str, rows: Iterable[QAItem]) -> QASet:
    items = tuple(rows)
    seen: set[str] = set()
    for item in items:
        if item.qid in seen:
            raise DatasetError(source, f"duplicate question id {item.qid!r}", field="id")
        seen.add(item.qid)
    if not items:
        raise DatasetError(source, "no questions")
    return QASet(name=name, items=items, source=source)


def load_qa_file(path: str | Path) -> QASet:
    """A QA set from a .jsonl/.json-lines or .csv file."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(path, "file not found")
    items = (item_from_row(row, path, line, csv_mode) for line, row, csv_mode in _rows(path))
    return _collect(path.stem, str(path), items)


def load_hf_qa(source: str | Path, split: str = "train", **load_kwargs: object) -> QASet:
    """A QA set from Hugging Face `datasets`: a local json/csv/parquet file, or a hub name.

    Hub names need internet (and HF_DATASETS_OFFLINE unset); rows need the fields listed in the
    module docstring (rename columns with `datasets` first if they differ).
    """
    # heavy, so imported only when asked for; the Hugging Face package wins over our
    # namespace folder datasets/ at run time (a regular package), mypy cannot tell them apart
    import datasets

    path = Path(source)
    if path.is_file():
        builder = _HF_BUILDERS.get(path.suffix.lower())
        if builder is None:
            raise DatasetError(path, f"unsupported file type; use one of {sorted(_HF_BUILDERS)}")
        table = datasets.load_dataset(  # type: ignore[attr-defined]
            builder, data_files=str(path), split=split, **load_kwargs
        )
    else:
        table = datasets.load_dataset(  # type: ignore[attr-defined]
            str(source), split=split, **load_kwargs
        )
    items = (item_from_row(row, str(source), i + 1) for i, row in enumerate(table))
    return _collect(path.stem if path.is_file() else str(source), str(source), items)


def span_relevance(
    chunks: Iterable[Chunk],
    spans: Mapping[str, Sequence[Span]],
    doc_of: Callable[[Chunk], str] = lambda chunk: chunk.doc_id,
) -> Qrels:
    """Chunk-level qrels {qid: {chunk_id: 1}}: a chunk is relevant when it overlaps a span.

    `doc_of` maps a chunk to the document name its spans use (default: its doc_id). Queries with
    no overlapping chunk get {}.
    """
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_doc.setdefault(doc_of(chunk), []).append(chunk)
    qrels: dict[str, dict[str, int]] = {}
    for qid, labeled in spans.items():
        relevant: dict[str, int] = {}
        for span in labeled:
            for chunk in by_doc.get(span.doc, ()):
                if span.overlaps(chunk.start, chunk.end):
                    relevant[chunk.chunk_id] = 1
        qrels[qid] = relevant
    return qrels
