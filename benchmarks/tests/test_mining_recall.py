"""`python -m benchmarks.mining_recall`: questions of a heading-derived answer key found in the
plain text of the pages, and whether the mined span holds each labelled passage."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.mining_recall import main

PAGE = """Widget FAQ

1.1. What is a widget?

A widget is a small part that moves a machine. Every machine holds at least three of them.

1.2. How to clean a widget

Wipe it with a dry cloth while the machine is off, never with water or oil.

1.3. When widgets fail

They fail after about ten years of heavy use, sooner when they are kept wet.
"""


def test_found_questions_and_their_spans_are_counted(tmp_path: Path) -> None:
    docs, beir = tmp_path / "docs", tmp_path / "beir"
    docs.mkdir()
    (beir / "qrels").mkdir(parents=True)
    (docs / "faq--widgets.en.txt").write_text(PAGE)
    passages = {"faq--widgets_en-1-0": "A widget is a small part that moves a machine.",
                "faq--widgets_en-2-0": "Wipe it with a dry cloth while the machine is off.",
                "faq--widgets_en-3-0": "Something the page does not say at all, anywhere."}
    queries = {"q1": "What is a widget?", "q2": "How to clean a widget",
               "q3": "When widgets fail"}
    (beir / "corpus.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n"
                                               for k, v in passages.items()))
    (beir / "queries.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n"
                                                for k, v in queries.items()))
    (beir / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tfaq--widgets_en-1-0\t1\nq2\tfaq--widgets_en-3-0\t1\n"
        "q3\tfaq--widgets_en-2-0\t1\n")
    out = tmp_path / "r.json"
    assert main(["--docs", str(docs), "--beir", str(beir), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    # q2's heading became "How do I clean a widget?" and still counts; q3 has no safe question
    assert (result["found"], result["queries"], result["documents"]) == (2, 3, 1)
    assert result["missed"] == ["When widgets fail"]
    assert result["span_holds_labelled_passage"] == 1  # q2's label is another passage
