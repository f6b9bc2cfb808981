"""Evaluate page, abstention section: calibrate a preset's abstain bar on a QA file with
unanswerable questions (hashing embedder, bundled samples): the curve, the chosen bar, the
out-of-fold table and the preset override to download."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "evaluate.py")
UNANSWERABLE = ["What is the boiling point of liquid nitrogen in Kelvin?",
                "Who won the 1998 football world cup final?",
                "How do I configure a Kubernetes liveness probe?"]


@pytest.fixture
def qa_file(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in Path("datasets/qa_samples.jsonl").read_text().splitlines()][:6]
    rows += [{"id": f"u{i}", "question": q, "answerable": False} for i, q in enumerate(UNANSWERABLE)]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.usefixtures("hashing_presets")
def test_calibrating_shows_the_curve_the_bar_and_the_override(qa_file: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.selectbox(key="eval_dataset").select("beir_sample (BEIR)").run()
    assert at.selectbox(key="abs_signal").options == ["evidence", "answer_relevance"]
    at.text_input(key="abs_qa").set_value(str(qa_file))
    at.text_input(key="abs_corpus").set_value("datasets/samples")
    at.selectbox(key="abs_preset").select("hybrid")
    at.number_input(key="abs_folds").set_value(3)
    at.button(key="abs_run").click().run()
    assert not at.exception, at.exception
    assert any("abstain.min_evidence = " in s.value and "of 6 answerable" in s.value for s in at.success)
    assert at.get("plotly_chart")  # the trade-off curve
    table = next(d.value for d in at.dataframe if "out of fold" in d.value.columns)
    assert list(table["figure"]) == ["answer_rate", "abstain_recall", "abstain_precision", "abstain_f1"]
    download = next(b for b in at.get("download_button") if b.proto.label == "Preset override (YAML)")
    assert download is not None


@pytest.mark.usefixtures("hashing_presets")
def test_a_set_without_unanswerable_questions_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_text(Path("datasets/qa_samples.jsonl").read_text().splitlines()[0] + "\n")
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    at.text_input(key="abs_qa").set_value(str(path))
    at.text_input(key="abs_corpus").set_value("datasets/samples")
    at.button(key="abs_run").click().run()
    assert not at.exception
    assert any("answerable and unanswerable" in e.value for e in at.error)
