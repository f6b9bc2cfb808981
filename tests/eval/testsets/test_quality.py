"""A test set's quality report (issue 36, item 3): rows per rule, question/span word overlap,
a seeded sample; the `eval testset-quality` command prints and writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli import main
from eval.testsets.quality import describe, lexical_overlap, quality_report


def _row(i: int, question: str, span: str, rule: str) -> dict:
    return {"id": f"q{i}", "question": question, "answerable": True,
            "spans": [{"doc": "a.txt", "start": 0, "end": len(span), "text": span}],
            "provenance": {"method": "mined", "rule": rule}}


ROWS = [
    _row(1, "How do I reset my password?", "To reset your password open Settings.", "question-heading"),
    _row(2, "What is the spool folder?", "Jobs wait there until a worker takes them.",
         "definition-heading"),
    _row(3, "Web forum", "The web forum answers questions within a day.", "faq-statement"),
]


def test_overlap_counts_content_words_only() -> None:
    assert lexical_overlap("How do I reset my password?", "Reset the password here.") == 1.0
    assert lexical_overlap("What is the spool folder?", "Jobs wait there.") == 0.0
    assert lexical_overlap("How do I?", "anything") == 0.0  # no content word to compare


def test_report_counts_rules_and_draws_the_same_sample_for_a_seed() -> None:
    report = quality_report(ROWS, sample=2, seed=3)
    assert report["by_rule"] == {"question-heading": 1, "definition-heading": 1, "faq-statement": 1}
    assert report["overlap"]["by_rule"]["definition-heading"] == 0.0
    assert report["overlap"]["share_none"] == pytest.approx(1 / 3, abs=0.001)
    assert [r["id"] for r in report["sample"]["rows"]] == \
        [r["id"] for r in quality_report(ROWS, sample=2, seed=3)["sample"]["rows"]]
    assert "share none" in describe(report)


def test_cli_prints_and_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "quality.json"
    assert main(["testset-quality", str(path), "--sample", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 rows" in printed and "A sample of 2 rows" in printed
    assert json.loads(out.read_text())["by_rule"]["faq-statement"] == 1
