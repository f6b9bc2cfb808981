"""Systems page: two presets side by side on one query, the level slider, the feature matrix."""

from pathlib import Path

import pytest
from answer_helpers import lumen_collection
from hashing_presets import use_hashing_presets
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "systems.py")


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """The page over a small collection of its own (it runs the systems over the sidebar's
    collection), presets embedding with the hashing backend."""
    use_hashing_presets(monkeypatch, tmp_path)
    lumen_collection("lumen")
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.session_state["app_collection"] = "lumen"
    return at


@pytest.mark.slow  # both presets index the samples (hashing backend); a cross-encoder is tried
def test_one_query_through_two_systems_side_by_side(page: AppTest) -> None:
    at = page.run()
    assert not at.exception
    at.multiselect(key="sys_presets").set_value(["intellidocs", "adaptive"]).run()
    at.text_input(key="sys_query").set_value("hello").run()
    at.button(key="sys_run").click().run()
    assert not at.exception
    at.select_slider(key="sys_level").set_value("standard").run()  # Adaptive's standard level
    at.button(key="sys_run").click().run()
    assert [h.value for h in at.subheader] == ["intellidocs", "adaptive@standard"]
    shown = " ".join(m.value for m in at.markdown)
    assert "adaptive route DENSE_ONLY" in shown  # a two-word query: Adaptive's simplest route
    assert "fused 2 list(s) by rrf k=60" in shown  # IntelliDocs' own fact, not adaptive's
    summary = next(d.value for d in at.dataframe if "grounded share" in d.value.columns)
    assert list(summary["system"]) == ["intellidocs", "adaptive@standard"]
    assert (summary["total ms"] > 0).all()
    assert summary["answer"].str.fullmatch(r"answered|declined \(\w+\)").all()
    timeline = next(d.value for d in at.dataframe if "ms" in d.value.columns)  # stage timeline
    assert set(timeline["preset"]) == {"intellidocs", "adaptive@standard"}
    assert "adapt" in set(timeline["stage"])


def test_level_slider_and_feature_matrix_from_the_presets(page: AppTest) -> None:
    at = page.run()
    assert not at.exception
    at.select_slider(key="sys_level").set_value("enhanced").run()
    assert not at.exception
    frame = next(d.value for d in at.dataframe if "feature" in d.value.columns)
    matrix = frame.set_index("feature")
    assert matrix.loc["fusion", "axiom"] == "on: RRF k=60"
    assert matrix.loc["entity graph enrichment", "vexora"].startswith("mapped: Neo4j")
    assert matrix.loc["entity graph enrichment", "intellidocs"] == "off"
    assert any("| stage | feature |" in c.value for c in at.code)
