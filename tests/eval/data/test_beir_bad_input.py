"""Bad evaluation data is refused by file, line and field instead of being scored to 0.0: an
empty query, bytes that are not UTF-8, a corpus with no text, qrels that are all 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.data.beir import DatasetError, load_beir
from eval.data.qa import load_qa_file
from eval.data.shapes import text_lines

CORPUS = [{"_id": "d1", "title": "Apt", "text": "apt installs packages"}, {"_id": "d2", "text": "dpkg"}]
QUERIES = [{"_id": "q1", "text": "how to install"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


def write(root: Path, corpus: list = CORPUS, queries: list = QUERIES, qrels: str = QRELS) -> Path:
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "test.tsv").write_text(qrels)
    return root


def test_an_empty_query_is_rejected_with_its_line(tmp_path: Path) -> None:
    queries = [*QUERIES, {"_id": "q2", "text": "   "}]
    with pytest.raises(DatasetError, match=r"queries\.jsonl:2: field 'text': is empty"):
        load_beir(write(tmp_path, queries=queries))


@pytest.mark.parametrize("name", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
def test_a_non_utf8_byte_names_file_and_line(tmp_path: Path, name: str) -> None:
    root = write(tmp_path)
    path = root / name
    broken = path.read_bytes().replace(b"d1", b"d\xe91", 1).replace(b"q1", b"q\xe91", 1)
    path.write_bytes(broken if name != "qrels/test.tsv" else b"q1\td1\t1\nq\xe9\td1\t1\n")
    with pytest.raises(DatasetError, match=r"(corpus\.jsonl|queries\.jsonl|test\.tsv):\d+: not UTF-8 \(byte"):
        load_beir(root)


def test_a_corpus_with_no_text_is_refused(tmp_path: Path) -> None:
    corpus = [{"_id": "d1", "text": ""}, {"_id": "d2", "title": " ", "text": "  "}]
    with pytest.raises(DatasetError, match="every document's title and text are empty"):
        load_beir(write(tmp_path, corpus=corpus))


def test_qrels_that_are_all_zero_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="every relevance score is 0"):
        load_beir(write(tmp_path, qrels="q1\td1\t0\nq1\td2\t0\n"))


def test_a_latin1_qa_csv_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_bytes(b"question,answer\nWhat is apt?,a tool\nQu'est-ce que dpkg ?,un outil\n"
                     + "Où est apt ?,ici\n".encode("latin-1"))
    with pytest.raises(DatasetError, match=r"qa\.csv:4: not UTF-8 \(byte 2 of the line is 0xf9\)"):
        load_qa_file(path)


def test_text_lines_accepts_a_utf8_bom(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\xef\xbb\xbf{}\n")
    assert list(text_lines(path)) == [(1, "{}\n")]
