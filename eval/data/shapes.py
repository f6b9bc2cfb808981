"""BEIR shapes, the common language of eval/: corpus, queries, qrels and results dicts.

corpus  {doc_id: {"title": str, "text": str}}
queries {query_id: text}
qrels   {query_id: {doc_id: relevance}}   (relevance >= 1 counts as relevant)
results {query_id: {doc_id: score}}       (higher is better)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Corpus = Mapping[str, Mapping[str, str]]
Queries = Mapping[str, str]
Qrels = Mapping[str, Mapping[str, int]]
Results = Mapping[str, Mapping[str, float]]


class DatasetError(ValueError):
    """A dataset that cannot be loaded; the message names the file, the line and the field."""

    def __init__(
        self, path: Path | str, problem: str, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        what = f" field {field!r}:" if field else ""
        super().__init__(f"{where}:{what} {problem}")


@dataclass(frozen=True)
class BeirDataset:
    """A loaded BEIR folder. `content_hash` covers the files read, so runs can name their data."""

    name: str
    corpus: Corpus
    queries: Queries
    qrels: Qrels
    content_hash: str
    source: str = ""


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file; a line that is not UTF-8 is a DatasetError naming it."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(path, f"not UTF-8 (byte {exc.start + 1} of the line is "
                                   f"{raw[exc.start]:#04x}); re-save the file as UTF-8", number) from None
            yield number, text


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; bad JSON names the line."""
    for number, line in text_lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(path, f"not valid JSON ({exc.msg})", number) from None
        if not isinstance(obj, dict):
            raise DatasetError(path, "each line must be a JSON object", number)
        yield number, obj
