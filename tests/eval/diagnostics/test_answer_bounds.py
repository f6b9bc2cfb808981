"""The answer-bounds diagnostic: ROUGE-L of the answer beside bounds from the same context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.diagnostics.answer_bounds import bounds
from rag.text import split_sentences

PASSAGES = {
    "trash": "Deleted notes stay in the Trash for 30 days. After that they are removed for good. "
             "You can empty the Trash sooner.",
    "sync": "Sync merges edits paragraph by paragraph. A conflict copy is made when two devices "
            "change the same paragraph.",
    "plans": "The Plus plan costs 4 dollars a month. It adds 20 GB of storage.",
}
QUESTIONS = {"trash": "How long do deleted notes stay in the Trash?",
             "sync": "What happens when two devices change the same paragraph?"}


@pytest.mark.slow
def test_the_relevant_passage_bound_is_its_first_sentences_and_every_figure_is_a_share(
        tmp_path: Path, hashing_presets: None) -> None:
    corpus = tmp_path / "beir"
    corpus.mkdir()
    (corpus / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": k, "title": "", "text": v}) + "\n" for k, v in PASSAGES.items()))
    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join(json.dumps({
        "id": k, "question": q, "doc_ids": [k],
        "answer": " ".join(s.text for s in split_sentences(PASSAGES[k])[:2])}) + "\n"
        for k, q in QUESTIONS.items()))
    report = bounds(str(qa), corpus, ["abstain.enabled=false"])
    means = report["means"]
    assert report["n"] == 2
    # three passages, a five-block context: the relevant one is always there, and the
    # reference is its first two sentences
    assert means["relevant_passage_in_context"] == 1.0
    assert means["relevant_passage_first_sentences"] == pytest.approx(1.0)
    assert means["best_quotable_sentence"] >= means["answer"] * 0.5 > 0
    for name in ("answer", "answer_without_tags", "answering_sentence_from_relevant"):
        assert 0 <= means[name] <= 1
    assert means["answer_without_tags"] >= means["answer"]  # the tags are never in a reference
