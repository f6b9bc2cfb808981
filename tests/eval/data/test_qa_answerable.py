"""QA rows marked `"answerable": false`, and QA sets asked of a BEIR folder's corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.data.evalsets import qa_corpus_set
from eval.data.qa import load_qa_file
from eval.data.shapes import DatasetError


def write(tmp_path: Path, *rows: dict[str, object], suffix: str = ".jsonl") -> Path:
    path = tmp_path / f"qa{suffix}"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_answerable_defaults_to_true_and_false_is_read(tmp_path: Path) -> None:
    qa = load_qa_file(write(tmp_path, {"question": "a?", "answer": "x"},
                            {"question": "b?", "answerable": False}))
    assert [i.answerable for i in qa.items] == [True, False]


def test_csv_reads_answerable_words(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text("question,answer,answerable\na?,x,\nb?,,false\nc?,,no\n")
    assert [i.answerable for i in load_qa_file(path).items] == [True, False, False]


@pytest.mark.parametrize("row", [
    {"question": "b?", "answerable": False, "answer": "x"},
    {"question": "b?", "answerable": False, "doc_ids": ["d1"]},
    {"question": "b?", "answerable": "maybe"},
])
def test_an_unanswerable_row_with_labels_or_a_bad_flag_is_rejected(
    tmp_path: Path, row: dict[str, object]
) -> None:
    with pytest.raises(DatasetError, match="answerable"):
        load_qa_file(write(tmp_path, row))


def test_questions_asked_of_a_beir_corpus_use_its_passages(tmp_path: Path) -> None:
    corpus = Path("datasets/beir_sample")
    first = json.loads((corpus / "corpus.jsonl").read_text().splitlines()[0])["_id"]
    qa = load_qa_file(write(tmp_path, {"question": "a?", "doc_ids": [first]},
                            {"question": "b?", "answerable": False}))
    found = qa_corpus_set(qa, corpus)
    assert first in found.dataset.corpus and found.dataset.qrels == {"q1": {first: 1}}
    with pytest.raises(DatasetError, match="not in"):
        qa_corpus_set(load_qa_file(write(tmp_path, {"question": "a?", "doc_ids": ["nope"]})), corpus)
