"""Rerank page: skip message without a model, before/after with a real (tiny) cross-encoder,
threshold slider with fallback, and the LLM reranker's failure shown on the page."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, reply, status
from streamlit.testing.v1 import AppTest

from rag.config import load_preset, with_overrides
from rag.documents import ingest_paths
from rag.index import open_collection
from rag.paths import SAMPLES_DIR

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rag" / "rerank"))
from tiny_cross_encoder import build_tiny_cross_encoder

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "rerank.py")
COLLECTION = "rerank-page-test"
QUERY = "What happens when the same paragraph is edited on two devices?"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeOpenAI, str]]:
    """A collection of two sample documents embedded by a local server (hashed bags of words),
    and a tiny cross-encoder whose vocabulary is their text."""
    data = tmp_path_factory.mktemp("rerank-page-data")
    keys = ("RAG_WORKBENCH_DATA", "OPENAI_BASE_URL", "OPENAI_API_KEY")
    saved = {k: os.environ.get(k) for k in keys}
    with FakeOpenAI() as server:
        os.environ.update({"RAG_WORKBENCH_DATA": str(data), "OPENAI_BASE_URL": server.base_url,
                           "OPENAI_API_KEY": "sk-test"})
        config = with_overrides(load_preset("hybrid"), {
            "embedding.backend": "openai", "embedding.model": "hashed-bow-rerank-page"})
        documents = ingest_paths([SAMPLES_DIR / "lumen-notes-faq.txt",
                                  SAMPLES_DIR / "how-lumensync-resolves-conflicts.txt"]).documents
        open_collection(COLLECTION, create=True).add_documents(documents, config, progress=False)
        model = build_tiny_cross_encoder(data / "tiny-ce", [d.text for d in documents] + [QUERY])
        yield server, str(model)
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def open_page(method: str = "cross_encoder") -> AppTest:
    """The page on the default preset (hybrid: no rerank), with rerank switched on, `method`."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["app_collection"] = COLLECTION
    at.run()
    assert any("Rerank did not run: rerank.enabled is false" in i.value for i in at.info)
    at.toggle(key="rr_enabled").set_value(True).run()
    return at.selectbox(key="rr_method").set_value(method).run()


def test_the_page_starts_with_a_reranker_that_runs_offline(setup: tuple[FakeOpenAI, str]) -> None:
    """hybrid names no cross-encoder: the page starts on the embedding scorer and says why."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["app_collection"] = COLLECTION
    at.run()
    assert at.selectbox(key="rr_method").value == "embedding"
    assert any("does not run offline here (no cross-encoder is configured)" in c.value
               for c in at.caption)
    at.toggle(key="rr_enabled").set_value(True).run()
    assert not at.exception and at.success and not at.warning
    assert metrics(at)["Pairs scored"] == "15"


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_without_a_model_the_page_names_the_setting(setup: tuple[FakeOpenAI, str]) -> None:
    at = open_page()
    assert not at.exception
    assert any("rerank.model" in w.value for w in at.warning)
    assert len(at.dataframe[0].value) == 15  # the fused window, shown unreranked


def test_before_after_movement_and_pairs_per_second(setup: tuple[FakeOpenAI, str]) -> None:
    at = open_page()
    at.text_input(key="rr_model").set_value(setup[1]).run()
    assert not at.exception and at.success
    shown = metrics(at)
    assert shown["Pairs scored"] == "15" and float(shown["Pairs / second"]) > 0
    assert (shown["Kept"], shown["Cut"]) == ("5", "10")
    before, after = at.dataframe[0].value, at.dataframe[1].value
    assert len(before) == 15 and len(after) == 5
    assert list(after["rerank"]) == sorted(after["rerank"], reverse=True)
    assert set(after["chunk"]) <= set(before["chunk"])
    assert len(at.get("plotly_chart")) == 2  # slope chart and score histogram
    speed = metrics(at)["Pairs / second"]
    at.selectbox(key="rr_policy").set_value("keep").run()  # re-applied over the cached scores
    assert metrics(at)["Pairs scored"] == "15" and metrics(at)["Pairs / second"] == speed
    at.slider(key="rr_top_n").set_value(3).run()  # the window is top-n × over-fetch (3)
    assert metrics(at)["Kept"] == "3" and metrics(at)["Pairs scored"] == "9"


def test_threshold_slider_falls_back_or_cuts(setup: tuple[FakeOpenAI, str]) -> None:
    at = open_page()
    at.text_input(key="rr_model").set_value(setup[1]).run()
    at.toggle(key="rr_use_threshold").set_value(True).run()
    at.slider(key="rr_threshold").set_value(1.0).run()
    assert any("no candidate reached the threshold 1" in w.value for w in at.warning)
    assert metrics(at)["Kept"] == "5"
    at.checkbox(key="rr_fallback").uncheck().run()
    assert metrics(at)["Kept"] == "0" and metrics(at)["Cut"] == "15"


def test_llm_reranker_grades_and_its_failure(setup: tuple[FakeOpenAI, str]) -> None:
    server = setup[0]
    at = open_page()  # embeds the query first, so scripted replies reach the chat calls
    server.script(reply("\n".join(f"{i}: {i - 1}" for i in range(1, 11))),  # batches of 10
                  reply("1: 10\n2: 0\n3: 0\n4: 0\n5: 0"))
    at.selectbox(key="rr_method").set_value("llm").run()
    assert not at.exception and metrics(at)["Pairs scored"] == "15"
    before, after = at.dataframe[0].value, at.dataframe[1].value
    assert list(after["chunk"][:2]) == [before["chunk"][10], before["chunk"][9]]  # graded 10, 9
    server.script(status(500))
    at.text_input(key="rr_query").set_value("How do conflict copies get their names?").run()
    assert any("kept the input order" in w.value for w in at.warning)
