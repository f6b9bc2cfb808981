"""Query Lab: with leave-one-out calibration on, the threshold control shows the threshold the
router actually used (and cannot be moved), instead of a live-looking slider with no effect."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "query_lab.py")


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))


def test_calibrated_threshold_is_the_one_shown() -> None:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.toggle(key="ql_enabled").set_value(True).run()
    manual = at.slider(key="ql_threshold")
    assert not manual.disabled
    at.toggle(key="ql_calibrate").set_value(True).run()
    assert not at.exception
    assert "ql_threshold" not in [s.key for s in at.slider]
    used = at.slider(key="ql_threshold_used")
    assert used.disabled and used.label == "Semantic threshold (in use)"
    reason = " ".join(c.value for c in at.caption)
    assert f"{used.value:g}" in reason  # the router's own explanation names the same threshold
    at.toggle(key="ql_calibrate").set_value(False).run()
    assert at.slider(key="ql_threshold").value == manual.value  # the manual value is kept
