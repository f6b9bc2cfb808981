"""Query Lab: scoring the guard on datasets/guard_attacks.jsonl and guard_benign.jsonl shows the
block rate (dev and held-out) and the benign block rate of the guard as the controls set it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "query_lab.py")


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))


def share(at: AppTest, label: str) -> float:
    value = next(m.value for m in at.metric if m.label == label)
    return float(value.split("%")[0]) / 100


def test_scoring_the_guard_shows_rates_and_follows_the_guard_toggle() -> None:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.toggle(key="ql_guard").set_value(True).run()
    at.button(key="ql_score_guard").click().run()
    assert not at.exception
    assert share(at, "Attacks blocked (held-out)") >= 0.9
    assert share(at, "Benign blocked") <= 0.03
    rates = at.dataframe[0].value
    assert {"attacks", "benign", "attack category"} <= set(rates["set"])
    at.toggle(key="ql_guard").set_value(False).run()
    at.button(key="ql_score_guard").click().run()
    assert share(at, "Attacks blocked (dev)") == 0.0  # a switched-off guard blocks nothing
