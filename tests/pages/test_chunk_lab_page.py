"""Chunk Lab page: generated parameter widgets, stats that follow them, boundaries, inspector, export."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages.ui.html import SELECTED_COLOR

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "chunk_lab.py")


def _stats(at: AppTest):
    return at.dataframe[0].value.set_index(["strategy", "level"])


def test_stats_follow_the_chunk_size_widget() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    before = _stats(at).loc[("recursive", "chunk")]
    at.number_input(key="chunk_recursive_size").set_value(200).run()
    after = _stats(at).loc[("recursive", "chunk")]
    assert after["chunks"] > before["chunks"]
    assert after["max chars"] <= 200
    assert ("parent_child", "parent") in _stats(at).index  # the other column is untouched


def test_widgets_come_from_each_strategy_settings_model() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.multiselect(key="chunk_strategies").set_value(["fixed", "sentence", "faq"]).run()
    keys = {w.key for w in at.number_input}
    assert {"chunk_fixed_size", "chunk_fixed_overlap", "chunk_sentence_max_size",
            "chunk_faq_max_chars"} <= keys
    assert set(_stats(at).index.get_level_values("strategy")) == {"fixed", "sentence", "faq"}
    assert len([h for h in at.html if "<sup" in h.value]) == 3  # one boundary view per strategy


def test_invalid_parameters_show_the_rule_instead_of_chunks() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.number_input(key="chunk_recursive_overlap").set_value(600).run()
    assert any("overlap" in e.value and "smaller than size" in e.value for e in at.error)
    assert "recursive" not in set(_stats(at).index.get_level_values("strategy"))


def test_selected_chunk_shows_offsets_parent_and_outline() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.selectbox(key="chunk_pick_strategy").select("parent_child").run()
    picker = at.selectbox(key="chunk_pick_parent_child")
    child = next(o for o in picker.options if o.startswith("C"))
    picker.set_value(child).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Level"] == "child" and metrics["Parent"].startswith("P")
    start, end = (int(x) for x in metrics["Offsets"].split("–"))
    assert end > start
    assert any(e.label.startswith("Parent P") for e in at.expander)
    assert any(SELECTED_COLOR in h.value for h in at.html)


def test_export_offers_the_chosen_settings_as_preset_yaml() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.number_input(key="chunk_recursive_size").set_value(300).run()
    assert [b.label for b in at.get("download_button")] == ["Download preset YAML"]
    assert "'size': 300" in at.caption[-1].value


def test_documents_from_the_documents_page_are_offered() -> None:
    from rag.documents import parse_bytes

    doc = parse_bytes("tiny.md", b"# Tiny\n\nA short note. It has two sentences.\n")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["app_documents"] = (doc,)
    at.run()
    assert not at.exception
    assert at.selectbox(key="chunk_doc").options == ["Tiny (md)"]
    assert not [s for s in at.slider if s.key == "chunk_shown"]  # short texts are shown whole
    assert all(at.dataframe[0].value["coverage"] == 1.0)


def test_the_session_collections_documents_are_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None
) -> None:
    from rag.config import load_preset
    from rag.documents import parse_bytes
    from rag.index import open_collection

    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    doc = parse_bytes("kept.md", b"# Kept\n\nIngested once, its parsed text is kept.\n")
    open_collection("mine", create=True).add_documents([doc], load_preset("hybrid"), progress=False)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["app_collection"] = "mine"
    at.run()
    assert not at.exception
    assert at.selectbox(key="chunk_doc").options == ["Kept (md)"]
    assert "collection **mine**" in " ".join(c.value for c in at.caption)
