"""Documents page: after an ingest, the stage timeline of that ingest (parse → redact → chunk →
embed → write, the Answer page's renderer) and what each stage did, with the skipped file named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "documents.py")
APT = b"APT resolves dependencies and downloads packages from the configured mirrors.\n"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> Path:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))
    return tmp_path


def test_the_last_ingest_shows_its_stage_timeline_and_the_skipped_file(data: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.get("plotly_chart")  # nothing ingested yet: no timeline
    at.segmented_control(key="docs_source").set_value("Upload files").run()
    at.file_uploader(key="docs_uploads").set_value(
        [("apt.txt", APT, "text/plain"), ("broken.pdf", b"not a pdf", "application/pdf")]).run()
    at.text_input(key="docs_new_name").set_value("mine").run()
    at.button(key="docs_ingest").click().run()
    assert not at.exception
    (chart,) = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    assert spec["layout"]["title"]["text"].startswith("Stage timeline:")
    assert [bar["y"][0] for bar in spec["data"]] == ["parse", "redact", "chunk", "embed", "write"]
    stages = next(d.value for d in at.dataframe if list(d.value.columns) == [
        "stage", "status", "ms", "what it did"])
    assert list(stages["stage"]) == ["parse", "redact", "chunk", "embed", "write"]
    assert stages["status"].iloc[0] == "cache_hit"  # parsed when the files were picked
    assert "2 file(s) from the files picked above: 1 parsed, 1 skipped" in stages["what it did"].iloc[0]
    assert "1 added" in stages["what it did"].iloc[4]
    assert any("skipped broken.pdf: not a PDF" in c.value for c in at.caption)


def test_an_ingest_that_also_updates_the_session_presets_index_shows_that_run_too(data: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.segmented_control(key="docs_source").set_value("Upload files").run()
    at.file_uploader(key="docs_uploads").set_value([("apt.txt", APT, "text/plain")]).run()
    at.text_input(key="docs_new_name").set_value("mine").run()
    at.selectbox(key="docs_new_preset").set_value("hybrid").run()
    at.button(key="docs_ingest").click().run()
    at.session_state["app_preset"] = "echomind"  # the sidebar's preset chunks another way
    at.file_uploader(key="docs_uploads").set_value(
        [("apt.txt", APT, "text/plain"), ("ssh.md", b"# SSH\n\nKeys log you in.\n", "text/plain")]).run()
    at.radio(key="docs_into").set_value("Existing collection").run()
    at.button(key="docs_ingest").click().run()
    assert not at.exception
    (synced,) = [e for e in at.expander if e.label.startswith("Index for the session preset: mine.ix-")]
    stages = next(d.value for d in synced.dataframe)
    assert list(stages["stage"]) == ["parse", "redact", "chunk", "embed", "write"]
    assert "kept text of collection 'mine'" in stages["what it did"].iloc[0]
    assert len(at.get("plotly_chart")) == 2  # the ingest's timeline and the derived index's
