"""BEIR folders load into BEIR shapes; every malformed file names its file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.data.beir import DatasetError, load_beir
from rag.paths import PROJECT_ROOT


def write_beir(root: Path, corpus: list, queries: list, qrels: str) -> Path:
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "test.tsv").write_text(qrels)
    return root


CORPUS = [{"_id": "d1", "title": "Apt", "text": "apt installs packages"},
          {"_id": 2, "text": "dpkg is lower level"}]
QUERIES = [{"_id": "q1", "text": "how to install"}, {"_id": "q2", "text": "unjudged"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\t2\t0\n"


def test_loads_beir_shapes(tmp_path: Path) -> None:
    ds = load_beir(write_beir(tmp_path / "set", CORPUS, QUERIES, QRELS))
    assert ds.corpus == {"d1": {"title": "Apt", "text": "apt installs packages"},
                         "2": {"title": "", "text": "dpkg is lower level"}}
    assert ds.queries == {"q1": "how to install"}  # q2 has no judgements: dropped, like BEIR
    assert ds.qrels == {"q1": {"d1": 2, "2": 0}}
    assert ds.name == "set" and len(ds.content_hash) == 64


def test_header_is_optional_and_hash_follows_content(tmp_path: Path) -> None:
    a = load_beir(write_beir(tmp_path / "a", CORPUS, QUERIES, "q1\td1\t1\n"))
    assert a.qrels == {"q1": {"d1": 1}}
    b = load_beir(write_beir(tmp_path / "b", CORPUS, QUERIES, "q1\td1\t2\n"))
    assert a.content_hash != b.content_hash


@pytest.mark.parametrize(
    ("corpus_lines", "line", "field", "message"),
    [
        ('{"_id": "d1", "text": "x"}\n{"_id": "d2", "text": "y"\n', 2, None, "not valid JSON"),
        ('{"_id": "d1", "text": "x"}\n\n{"text": "y"}\n', 3, "_id", "missing"),
        ('{"_id": "d1"}\n', 1, "text", "missing"),
        ('{"_id": "d1", "text": 5}\n', 1, "text", "must be a string"),
        ('{"_id": "d1", "text": "x"}\n{"_id": "d1", "text": "y"}\n', 2, "_id", "duplicate"),
        ('[1, 2]\n', 1, None, "JSON object"),
    ],
)
def test_bad_corpus_line_is_named(
    tmp_path: Path, corpus_lines: str, line: int, field: str | None, message: str
) -> None:
    root = write_beir(tmp_path, CORPUS, QUERIES, QRELS)
    (root / "corpus.jsonl").write_text(corpus_lines)
    with pytest.raises(DatasetError, match=message) as info:
        load_beir(root)
    assert info.value.path.endswith("corpus.jsonl")
    assert (info.value.line, info.value.field) == (line, field)
    assert f"corpus.jsonl:{line}:" in str(info.value)


@pytest.mark.parametrize(
    ("qrels", "line", "field", "message"),
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq7\td1\t1\n", 3, "query-id", "unknown query"),
        ("q1\td9\t1\n", 1, "corpus-id", "unknown doc id 'd9'"),
        ("q1\td1\thigh\n", 1, "score", "must be an integer"),
        ("q1\td1\n", 1, None, "3 tab-separated columns"),
    ],
)
def test_bad_qrels_row_is_named(
    tmp_path: Path, qrels: str, line: int, field: str | None, message: str
) -> None:
    with pytest.raises(DatasetError, match=message) as info:
        load_beir(write_beir(tmp_path, CORPUS, QUERIES, qrels))
    assert info.value.path.endswith("test.tsv")
    assert (info.value.line, info.value.field) == (line, field)


def test_missing_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="folder not found"):
        load_beir(tmp_path / "nope")
    root = write_beir(tmp_path, CORPUS, QUERIES, QRELS)
    (root / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"queries\.jsonl: file not found"):
        load_beir(root)
    with pytest.raises(DatasetError, match=r"dev\.tsv: file not found"):
        load_beir(write_beir(tmp_path, CORPUS, QUERIES, QRELS), split="dev")


def test_empty_qrels_rejected(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no relevance judgements"):
        load_beir(write_beir(tmp_path, CORPUS, QUERIES, "query-id\tcorpus-id\tscore\n"))


def test_bundled_beir_sample_is_valid() -> None:
    ds = load_beir(PROJECT_ROOT / "datasets" / "beir_sample")
    assert 30 <= len(ds.corpus) <= 60 and 15 <= len(ds.queries) <= 20
    assert all(any(r > 0 for r in judged.values()) for judged in ds.qrels.values())
