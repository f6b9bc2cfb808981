"""Evaluate page, failure classes: classify every query of a run (hashing embedder, span QA set
with one unanswerable question added), read counts per preset, filter by class, open a trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from eval.diagnostics.failures import CLASSES

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "evaluate.py")


@pytest.fixture
def qa_file(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in Path("datasets/qa_samples.jsonl").read_text().splitlines()][:3]
    rows.append({"id": "qz", "question": "Who won the 1998 football world cup final?", "answerable": False})
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.usefixtures("hashing_presets")
def test_every_query_gets_one_class_with_a_filter_and_its_trace(qa_file: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.selectbox(key="eval_dataset").select("Another BEIR folder or QA file…").run()
    at.text_input(key="eval_path").set_value(str(qa_file)).run()
    at.multiselect(key="eval_presets").set_value(["hybrid"]).run()
    at.button(key="eval_run").click().run()
    assert not at.exception, at.exception
    assert any("How each class is decided" in e.label for e in at.expander)
    at.button(key="eval_fail_go").click().run()
    assert not at.exception, at.exception
    counts = next(d.value for d in at.dataframe if "retrieval_miss" in d.value.columns)
    assert list(counts["preset"]) == ["hybrid"]
    assert int(counts[list(CLASSES)].sum(axis=1).iloc[0]) == 4  # one class per query
    queries = next(d.value for d in at.dataframe if "why" in d.value.columns)
    unanswerable = queries[queries["query"] == "qz"]
    assert set(unanswerable["class"]) <= {"correct", "missed_abstention"}
    at.selectbox(key="eval_fail_class").select(unanswerable["class"].iloc[0]).run()
    shown = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert set(shown["class"]) == {unanswerable["class"].iloc[0]}
    at.selectbox(key="eval_fail_q").select("qz").run()
    assert not at.exception
    stages = next(d.value for d in at.dataframe if "stage" in d.value.columns)
    assert "abstain" in set(stages["stage"])  # the query's own trace, every stage
