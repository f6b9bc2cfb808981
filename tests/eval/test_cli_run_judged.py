"""`eval run --collection NAME` with a judged set (as the Judge page exports it): the report gains
`judged` — per preset the unjudged share of its top 10, nDCG@10 as a lower bound, condensed
nDCG@10 and bpref; an unjudged set adds nothing (hashing embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from own_collection import build_collection, sample_rows

from eval.cli import main as eval_main
from eval.judging.export import export_rows, to_jsonl
from eval.judging.pool import pool_question, pool_searchers
from eval.judging.store import JudgingStore
from rag.index import open_collection


@pytest.mark.usefixtures("hashing_presets")
def test_a_judged_set_adds_honest_scores_to_the_report(tmp_path: Path) -> None:
    name = build_collection(tmp_path)
    rows = sample_rows(n=3)
    store = JudgingStore(tmp_path / "j.sqlite")
    store.add_questions(rows)
    searchers = pool_searchers(open_collection(name), ("bm25",))
    for row in rows:
        pool = pool_question(row["question"], searchers, depth=2).passages
        store.add_pool(row["id"], pool)
        for p in pool:
            hit = any(s["doc"] == p.doc and s["start"] < p.end and p.start < s["end"]
                      for s in row["spans"])
            store.judge(row["id"], p.key, "relevant" if hit else "not_relevant", "t")
    judged = tmp_path / "judged.jsonl"
    judged.write_text(to_jsonl(export_rows(store)))
    plain = tmp_path / "plain.jsonl"
    plain.write_text(to_jsonl(rows))
    for labels, out in ((judged, tmp_path / "j.json"), (plain, tmp_path / "p.json")):
        code = eval_main(["run", "--collection", name, "--preset", "bm25", "--preset", "dense",
                          "--answers", str(labels), "--out", str(out), "--resamples", "20",
                          "--no-store"])
        assert code == 0
    assert "judged" not in json.loads((tmp_path / "p.json").read_text())
    section = json.loads((tmp_path / "j.json").read_text())["judged"]
    assert set(section) == {"bm25", "dense"}
    bm25, dense = section["bm25"], section["dense"]
    assert bm25["queries"] == 3 and bm25["depth"] == 10
    # the pool was bm25's top 2, judged completely: dense's top 10 holds more unjudged chunks
    assert 0 < bm25["unjudged@10"] <= dense["unjudged@10"] <= 1
    for figures in (bm25, dense):
        assert figures["condensed_ndcg@10"] >= figures["ndcg@10"] - 1e-9
        assert figures["lower_bound"] == (figures["unjudged@10"] > 0.3)
        assert (figures["warning"] is None) == (not figures["lower_bound"])


@pytest.mark.usefixtures("hashing_presets")
def test_a_judged_set_over_a_documents_folder(tmp_path: Path) -> None:
    import shutil

    from own_collection import FILES

    from rag.paths import SAMPLES_DIR

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in FILES:
        shutil.copy(SAMPLES_DIR / name, docs / name)
    row = sample_rows(n=1)[0]
    span = row["spans"][0]
    judged = {**row, "judged_nonrelevant": [{"doc": span["doc"], "start": 0, "end": 40}]}
    qa = tmp_path / "judged.jsonl"
    qa.write_text(to_jsonl([judged]))
    out = tmp_path / "r.json"
    assert eval_main(["run", "--dataset", str(docs), "--preset", "bm25", "--answers", str(qa),
                      "--out", str(out), "--resamples", "20", "--no-store"]) == 0
    figures = json.loads(out.read_text())["judged"]["bm25"]
    assert figures["queries"] == 1 and 0 <= figures["unjudged@10"] < 1
