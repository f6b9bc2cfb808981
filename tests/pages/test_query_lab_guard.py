"""Query Lab: scoring the guard shows the block rate and the benign block rate on the development
sets (datasets/guard_attacks.jsonl, guard_benign.jsonl) and on the held-out set
(datasets/guard_heldout_2026_11/), for the guard as the controls set it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from eval.scoring.guard import HELDOUT_ATTACKS, HELDOUT_BENIGN, load_prompts, score_guard

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
    held = score_guard(load_prompts(HELDOUT_ATTACKS), load_prompts(HELDOUT_BENIGN))
    assert share(at, "Attacks blocked (held-out)") == pytest.approx(held.block_rate["all"].value, abs=1e-3)
    assert share(at, "Benign blocked (held-out)") == pytest.approx(
        held.false_positive_rate["all"].value, abs=1e-3)
    assert share(at, "Attacks blocked (development)") >= 0.9  # the sets the detectors were written on
    rates = at.dataframe[0].value
    assert {"attacks", "benign", "attack category", "attack language", "benign category"} <= set(rates["set"])
    at.toggle(key="ql_guard").set_value(False).run()
    at.button(key="ql_score_guard").click().run()
    assert share(at, "Attacks blocked (held-out)") == 0.0  # a switched-off guard blocks nothing
    assert share(at, "Attacks blocked (development)") == 0.0
