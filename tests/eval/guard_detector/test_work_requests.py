"""guard10's written work requests: enough of them, in many scripts, none copied from a dev set,
split in half by a stable hash, and the validation half is never a stack training row."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from eval.guard_detector.stack_data import WRITTEN, WRITTEN_VAL, source_rows
from eval.guard_detector.work_requests import split_of, work_requests
from rag.paths import PROJECT_ROOT


def _dev_texts() -> set[str]:
    texts = set()
    for path in Path(PROJECT_ROOT / "datasets").glob("guard_*/*.jsonl"):
        texts |= {json.loads(line)["text"].strip().lower() for line in path.read_text("utf-8").splitlines()
                  if line.strip()}
    for path in Path(PROJECT_ROOT / "datasets").glob("guard_*.jsonl"):
        texts |= {json.loads(line)["text"].strip().lower() for line in path.read_text("utf-8").splitlines()
                  if line.strip()}
    return texts


def test_no_written_row_equals_a_dev_row() -> None:
    rows = work_requests()
    assert len(rows) == len(set(rows)) >= 400
    assert not {t.strip().lower() for t in rows} & _dev_texts()


def test_rows_cover_many_scripts() -> None:
    scripts = {unicodedata.name(ch).split()[0] for t in work_requests() for ch in t if ch.isalpha()}
    assert {"LATIN", "CYRILLIC", "GREEK", "ARABIC", "HEBREW", "DEVANAGARI", "BENGALI", "CJK", "HIRAGANA",
            "HANGUL", "THAI"} <= scripts


def test_split_is_stable_and_roughly_half() -> None:
    rows = work_requests()
    train = [t for t in rows if split_of(t) == "train"]
    assert [split_of(t) for t in rows] == [split_of(t) for t in rows]
    assert 0.4 * len(rows) < len(train) < 0.6 * len(rows)


def test_validation_half_is_scored_never_trained() -> None:
    groups = {text: group for group, _, text, _, _ in source_rows() if group in (WRITTEN, WRITTEN_VAL)}
    for text in work_requests():
        assert groups[text] == (WRITTEN if split_of(text) == "train" else WRITTEN_VAL)
