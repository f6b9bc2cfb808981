"""Systems page with an LLM endpoint connected (the fake server): all five seed systems run their
LLM stages, and the page says per system how many replies were usable and which stage fell back."""

from __future__ import annotations

from pathlib import Path

import pytest
from answer_helpers import lumen_collection
from fake_openai import FakeOpenAI
from hashing_presets import use_hashing_presets
from streamlit.testing.v1 import AppTest

from rag.config import PRESET_OVERRIDES_ENV
from rag.systems import SYSTEMS

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "systems.py")
# The LLM stages each system's preset has on that ask the model on this query, by the parser
# names rag.llm.usability records (every system also generates; adaptive's HyDE is for
# queries under 5 words only, axiom's and vexora's LLM grounding only for sentences the lexical
# check leaves undecided).
OWN_LLM_STAGES = {
    "axiom": {"understand.intent"},  # the LLM layer, as its semantic layer is unsure
    "echomind": {"expand.multi_query", "rerank.grades", "context.compress"},
    "adaptive": {"expand.step_back", "expand.rag_fusion"},
    "vexora": set(),
    "intellidocs": set(),
}


@pytest.mark.slow  # five presets each derive a (hashing) index of the small collection
def test_all_five_systems_run_their_llm_stages_with_a_model_connected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_hashing_presets(monkeypatch, tmp_path)
    # no score floor: with hashing vectors adaptive's threshold would leave nothing to answer from
    monkeypatch.setenv(PRESET_OVERRIDES_ENV, "{embedding.backend: hashing, postprocess.threshold: null}")
    lumen_collection("lumen")
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = AppTest.from_file(PAGE, default_timeout=300)
        at.session_state["app_collection"] = "lumen"
        at.run()
        at.multiselect(key="sys_presets").set_value(list(SYSTEMS)).run()
        at.text_input(key="sys_query").set_value("How long do deleted notes stay in the Trash?")
        at.button(key="sys_run").click().run()
        assert not at.exception, at.exception
        assert server.chat_requests
    assert [h.value for h in at.subheader] == list(SYSTEMS)
    lines = [c.value for c in at.caption if c.value.startswith("LLM:")]
    assert len(lines) == len(SYSTEMS) and not any("not called" in line for line in lines)
    replies = next(d.value for d in at.dataframe if "parser" in d.value.columns)
    for system, own in OWN_LLM_STAGES.items():
        rows = replies[replies["preset"] == system].set_index("parser")
        assert rows.loc["generate.answer", "ok"] == 1, system  # the answer came from the model
        assert own <= set(rows.index), (system, sorted(rows.index))
        fell_back = rows[rows["fallback"] > 0]
        assert (fell_back["reasons"] != "").all(), fell_back  # every fallback says why
    timeline = next(d.value for d in at.dataframe if "ms" in d.value.columns)
    generate = timeline[timeline["stage"] == "generate"]
    assert set(generate["preset"]) == set(SYSTEMS) and set(generate["status"]) == {"ok"}
