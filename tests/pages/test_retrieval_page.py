"""Retrieval page: builds the sample collection from its empty state, then every control re-fuses
the cached lists — the session's search counter stays at one."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from hashing_presets import use_hashing_presets
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "retrieval.py")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppTest]:
    """A page session that pressed "Build sample collection" in a fresh data dir (presets embed
    with the hashing backend: the page's behaviour is under test, not MiniLM's ranking)."""
    with pytest.MonkeyPatch.context() as patch:
        use_hashing_presets(patch, tmp_path_factory.mktemp("retrieval-page"))
        at = AppTest.from_file(PAGE, default_timeout=300).run()
        assert "No collection yet" in at.warning[0].value
        at.button(key="ret_build_samples").click().run()
        assert not at.exception
        yield at


def _fused(at: AppTest):
    return at.dataframe[2].value


def _searches(at: AppTest) -> int:
    return at.session_state["ret_lists"].misses


def test_three_lists_side_by_side_after_building(built: AppTest) -> None:
    at = built.run()
    bm25, dense, fused = (d.value for d in at.dataframe[:3])
    assert len(bm25) == len(dense) == len(fused) == 10  # hybrid preset: top_k 10
    assert fused["score"].max() <= 2 / 61 + 1e-9  # RRF k=60 over two lists
    assert len(at.get("plotly_chart")) == 2  # rank movement + score breakdown
    assert "<mark" in at.html[0].value  # query terms highlighted in the candidate text
    assert _searches(at) == 1


def test_controls_refuse_without_searching_again(built: AppTest) -> None:
    at = built.run()
    before = _fused(at)
    at.slider(key="ret_k").set_value(1).run()
    sharp = _fused(at)
    assert sharp["score"].max() > 2 / 61  # 1/(1+1) + … for a top hit
    assert not sharp["score"].equals(before["score"])
    at.selectbox(key="ret_method").select("convex").run()
    convex = _fused(at)
    assert convex["score"].max() <= 1.0 and not convex["score"].equals(sharp["score"])
    at.slider(key="ret_depth").set_value(5).run()
    assert any("Re-fused 10 cached candidates" in c.value for c in at.caption)
    assert _searches(at) == 1


def test_threshold_cuts_the_fused_list_and_is_drawn(built: AppTest) -> None:
    at = built.run()
    at.selectbox(key="ret_method").select("rrf").run()
    at.slider(key="ret_depth").set_value(100).run()
    at.slider(key="ret_k").set_value(60).run()
    scores = sorted(_fused(at)["score"], reverse=True)
    cut = (scores[2] + scores[3]) / 2
    at.toggle(key="ret_use_threshold").set_value(True).run()
    at.number_input(key="ret_threshold").set_value(cut).run()
    assert len(_fused(at)) == 3
    breakdown = at.get("plotly_chart")[1].proto.spec
    assert f"threshold {cut:g}" in breakdown
    assert _searches(at) == 1


def test_a_new_query_searches_once_more(built: AppTest) -> None:
    at = built.run()
    at.text_input(key="ret_query").input("offline editing on two devices").run()
    assert _searches(at) == 2
    at.text_input(key="ret_query").input("How are sync conflicts resolved?").run()
    assert _searches(at) == 2  # the first query's lists are still in the session cache
