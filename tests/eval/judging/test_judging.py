"""Judging: pooling deduplicated by span, judgments kept per row (two sessions never overwrite
each other), progress, export to QA JSONL and import back, and a judged set scored honestly."""

from __future__ import annotations

from pathlib import Path

import pytest
from own_collection import build_collection, sample_rows

from eval.data.qa import item_from_row
from eval.data.shapes import DatasetError
from eval.judging.export import (
    NONRELEVANT,
    export_rows,
    import_rows,
    nonrelevant_spans,
    progress,
    read_jsonl,
    to_jsonl,
)
from eval.judging.pool import (
    Hit,
    merge_hits,
    pool_question,
    pool_searchers,
    question_terms,
    term_spans,
)
from eval.judging.store import JudgingStore, Passage, open_judging
from rag.index import open_collection
from rag.index.derived import kept_documents


def test_overlapping_spans_of_one_document_are_pooled_once() -> None:
    hits = [Hit("bm25", 1, "a.txt", 0, 100, "x"), Hit("dense", 1, "a.txt", 50, 150, "y"),
            Hit("dense", 2, "b.txt", 0, 100, "z"), Hit("bm25", 2, "a.txt", 100, 200, "w"),
            Hit("hybrid", 3, "a.txt", 120, 180, "v")]
    pool = merge_hits(hits)
    assert [(p.doc, p.start, p.end) for p in pool] == [
        ("a.txt", 0, 100), ("a.txt", 100, 200), ("b.txt", 0, 100)]
    assert pool[0].systems == {"bm25": 1, "dense": 1}  # dense's 50-150 chunk overlaps it
    assert pool[1].systems == {"bm25": 2, "hybrid": 3}  # 100-200 does not overlap 0-100
    assert pool[0].text == "x"  # the better-ranked span is what is judged (bm25 < dense by name)


def test_question_terms_are_marked_as_whole_word_starts() -> None:
    terms = question_terms("What is the maximum size of an attachment?")
    assert terms == ["maximum", "size", "attachment"]
    text = "Each Attachment can be up to 250 MB; attachments resize."
    assert [text[s:e] for s, e in term_spans(text, terms)] == ["Attachment", "attachments"]
    assert term_spans(text, []) == []


@pytest.fixture
def store(tmp_path: Path) -> JudgingStore:
    store = JudgingStore(tmp_path / "j.sqlite")
    store.add_questions([{"id": "q1", "question": "How much is Plus?", "answer": "$4",
                          "provenance": {"method": "mined"}},
                         {"id": "q2", "question": "Who won the cup?"}])
    store.add_pool("q1", [Passage("a.txt", 0, 10, "Plus is $4", {"bm25": 1}),
                          Passage("b.txt", 5, 20, "other text", {"dense": 1})])
    store.add_pool("q2", [Passage("a.txt", 30, 40, "cup winner", {"bm25": 1})])
    return store


def test_two_sessions_judging_one_set_do_not_overwrite_each_other(store: JudgingStore) -> None:
    other = JudgingStore(store.path)  # a second browser session on the same file
    store.judge("q1", ("a.txt", 0, 10), "relevant", "s1")
    other.judge("q1", ("b.txt", 5, 20), "not_relevant", "s2")
    store.judge("q1", ("a.txt", 0, 10), "relevant", "s1")
    assert store.labels("q1") == {"q1": {("a.txt", 0, 10): "relevant",
                                         ("b.txt", 5, 20): "not_relevant"}}
    other.judge("q1", ("a.txt", 0, 10), "not_relevant", "s2")  # the later judgment wins
    assert other.labels()["q1"][("a.txt", 0, 10)] == "not_relevant"
    assert [h[4:] for h in store.history("q1")] == [
        ("relevant", "s1"), ("not_relevant", "s2"), ("relevant", "s1"), ("not_relevant", "s2")]
    with pytest.raises(ValueError, match="valid: relevant, not_relevant, skip"):
        store.judge("q1", ("a.txt", 0, 10), "maybe", "s1")  # type: ignore[arg-type]


def test_progress_is_kept_on_disk_and_questions_can_be_edited_or_dropped(
    store: JudgingStore,
) -> None:
    assert progress(store).describe() == "0 of 2 judged"
    store.judge("q1", ("a.txt", 0, 10), "relevant", "s1")
    assert progress(store).judged == 0  # one passage of q1 is still open
    store.judge("q1", ("b.txt", 5, 20), "skip", "s1")
    store.edit("q2", "dropped", True, "s1")
    reopened = JudgingStore(store.path)  # resumed later, or by another session
    assert progress(reopened).describe() == "2 of 2 judged"
    reopened.edit("q1", "question", "How much does Plus cost per month?", "s2")
    reopened.add_questions([{"id": "q1", "question": "stale copy"}])  # re-adding keeps edits
    (q1, q2) = store.questions()
    assert q1.question == "How much does Plus cost per month?" and q2.dropped
    with pytest.raises(ValueError, match="unknown field"):
        store.edit("q1", "colour", "red", "s1")


def test_export_makes_qa_rows_and_import_reads_them_back(store: JudgingStore, tmp_path: Path) -> None:
    store.judge("q1", ("a.txt", 0, 10), "relevant", "s1")
    store.judge("q1", ("b.txt", 5, 20), "not_relevant", "s1")
    store.edit("q1", "answer", "Plus is $4", "s1")
    store.edit("q2", "unanswerable", True, "s1")
    rows = export_rows(store)
    assert rows[0]["spans"] == [{"doc": "a.txt", "start": 0, "end": 10, "text": "Plus is $4"}]
    assert rows[0][NONRELEVANT] == [{"doc": "b.txt", "start": 5, "end": 20, "text": "other text"}]
    assert rows[0]["answer"] == "Plus is $4"
    assert rows[0]["provenance"] == {"method": "judged", "was": "mined", "relevant": 1,
                                     "not_relevant": 1, "kept_earlier_spans": 0}
    assert rows[1]["answerable"] is False and "spans" not in rows[1]
    items = [item_from_row(r, "x", i) for i, r in enumerate(rows, 1)]  # valid QA rows
    assert items[0].spans[0].doc == "a.txt" and not items[1].answerable
    assert set(nonrelevant_spans(rows)) == {"q1"}
    again = JudgingStore(tmp_path / "other.sqlite")
    assert import_rows(again, read_jsonl(to_jsonl(rows), "f.jsonl"), "import") == 2
    assert again.labels() == store.labels()
    assert [q.unanswerable for q in again.questions()] == [False, True]
    with pytest.raises(DatasetError, match=r"bad\.jsonl:1: field 'question'"):
        read_jsonl('{"question": ""}\n', "bad.jsonl")


@pytest.mark.usefixtures("hashing_presets")
def test_pool_over_a_collection_and_a_judged_set_scored_honestly(tmp_path: Path) -> None:
    from eval.data.qa import QASet
    from eval.runs.collection_sets import collection_eval_set
    from eval.runs.evalset_runner import score_config
    from eval.scoring.judged import judged_scores
    from rag.config import load_preset

    name = build_collection(tmp_path)
    collection = open_collection(name)
    texts = {d.metadata.source.rsplit("/", 1)[-1]: d.text for d in kept_documents(collection)}
    row = sample_rows()[1]
    searchers = pool_searchers(collection, ("bm25", "dense", "hybrid"))
    found = pool_question(row["question"], searchers, depth=3)
    pool = found.passages
    assert 3 <= len(pool) <= 9 and not found.failed
    for p in pool:
        assert texts[p.doc][p.start:p.end] == p.text  # spans of the kept text
    for a in pool:  # no two pooled spans of one document overlap
        assert not any(b is not a and b.doc == a.doc and b.start < a.end and a.start < b.end
                       for b in pool)
    judging = open_judging(name, "mined")
    judging.add_questions([row])
    judging.add_pool(row["id"], pool)
    broken = pool_question("q", {**searchers, "broken": lambda q: 1 / 0}, depth=1)
    assert broken.failed == {"broken": "ZeroDivisionError: division by zero"}
    assert broken.passages
    spans = row["spans"]
    for p in pool:
        hit = any(s["doc"] == p.doc and s["start"] < p.end and p.start < s["end"] for s in spans)
        judging.judge(row["id"], p.key, "relevant" if hit else "not_relevant", "s1")
    rows = export_rows(judging)
    items = tuple(item_from_row(r, "judged", i) for i, r in enumerate(rows, 1))
    evalset = collection_eval_set(QASet("judged", items), collection, nonrelevant_spans(rows))
    assert evalset.judged and evalset.unit == "chunk" and evalset.name == f"{name} / judged"
    scored = score_config(evalset, load_preset("bm25"), n_resamples=10)
    from eval.runs.beir_index import beir_collection

    qrels = evalset.qrels_for(beir_collection(evalset.dataset, scored.config).chunks())
    assert 0 in qrels[row["id"]].values()  # judged not relevant is kept apart from unjudged
    results = {o.qid: o.ranking for o in scored.run.outcomes}
    honest = judged_scores("bm25", qrels, results)
    assert honest.queries == 1 and 0 <= honest.unjudged <= 1
    assert honest.condensed_ndcg >= honest.ndcg


def test_earlier_labels_survive_unless_a_judge_overruled_them(tmp_path: Path) -> None:
    mined = {"doc": "a.txt", "start": 100, "end": 140}
    other = {"doc": "b.txt", "start": 0, "end": 30}
    store = JudgingStore(tmp_path / "j.sqlite")
    store.add_questions([
        {"id": "q1", "question": "Open?", "spans": [mined], "provenance": {"method": "mined"}},
        {"id": "q2", "question": "Overruled?", "spans": [mined, other],
         "provenance": {"method": "llm"}}])
    store.add_pool("q2", [Passage("a.txt", 90, 200, "x" * 110, {"bm25": 1}),
                          Passage("c.txt", 0, 10, "y" * 10, {"bm25": 2})])
    store.judge("q2", ("a.txt", 90, 200), "not_relevant", "s1")
    store.judge("q2", ("c.txt", 0, 10), "relevant", "s1")
    open_row, judged = export_rows(store)
    assert open_row == {"id": "q1", "question": "Open?", "spans": [mined],
                        "provenance": {"method": "mined"}}  # not judged: unchanged
    assert [s["doc"] for s in judged["spans"]] == ["c.txt", "b.txt"]  # a.txt overruled
    assert judged["provenance"]["kept_earlier_spans"] == 1 and judged["provenance"]["was"] == "llm"
