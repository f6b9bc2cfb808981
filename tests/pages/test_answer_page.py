"""Answer page: ask offline (extractive), see sources, coloured sentences, cited-chunk popovers,
budget, timeline and trace; ask against the fake server with a failure; manage conversations."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from answer_helpers import lumen_collection
from fake_openai import FakeOpenAI, hang
from streamlit.testing.v1 import AppTest

from rag.memory import MemoryStore

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "answer.py")
QUESTION = "How long do deleted notes stay in the Trash?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("answer-page")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAG_WORKBENCH_DATA", str(root))
        lumen_collection("lumen")
        yield root


@pytest.fixture
def page(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(data_dir))
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["app_collection"] = "lumen"
    return at.run()


def ask(at: AppTest, question: str = QUESTION) -> AppTest:
    at.chat_input(key="ans_input").set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_offline_answer_is_extractive_cited_coloured_and_inspectable(page: AppTest) -> None:
    at = ask(page)
    assert [m.name for m in at.chat_message] == ["user", "assistant"]
    assert "30 days" in at.chat_message[1].markdown[0].value
    assert any("Extractive (offline)" in i.value for i in at.info)
    answer_html = at.html[0].value
    assert "rgba(34, 197, 94" in answer_html and "supported (lexical" in answer_html  # green, with score
    popover = at.get("popover")[0]
    assert popover.proto.popover.label == "[Source 1]"
    assert "<mark" in popover.html[0].value  # the cited chunk with its supporting span
    verdicts = at.dataframe[0].value
    assert set(verdicts["verdict"]) == {"supported"}
    assert (verdicts["best source"].astype(str) == verdicts["cited"]).all()  # each cites its evidence
    assert len(at.get("plotly_chart")) == 2  # token budget + stage timeline
    assert "[Source 1: " in at.code[0].value  # the context exactly as sent
    assert len(at.get("download_button")) == 2  # conversation export + trace JSON
    trace = json.loads(at.session_state["ans_trace"].to_json())
    assert [r["stage"] for r in trace["records"]][-4:] == ["context", "generate", "ground", "abstain"]
    assert any("answer relevance 0." in c.value and "(offline)" in c.value for c in at.caption)
    assert not any("Declined" in w.value for w in at.warning)


def test_a_question_the_documents_cannot_answer_is_declined_and_says_why(page: AppTest) -> None:
    at = ask(page, "What is the capital of France?")
    assert "find this in the indexed documents" in at.chat_message[-1].markdown[0].value
    declined = [w.value for w in at.warning if "Declined" in w.value]
    assert declined and "weak_evidence" in declined[0]  # the preset's calibrated bar fires first
    assert any(w.value.startswith("grounded but irrelevant") for w in at.warning)
    assert any("Declined (weak_evidence)" in c.value for c in at.caption)  # history label
    # the withheld answer, its verdicts and sources only inside one collapsed expander
    withheld = [e for e in at.expander if e.label == "The answer that was withheld"]
    assert len(withheld) == 1 and not withheld[0].proto.expanded
    inside = withheld[0]
    assert inside.html and "rgba(34, 197, 94" in inside.html[0].value  # still checked, in there
    assert len(at.html) == len(inside.html)  # nothing of it rendered outside
    assert len(at.dataframe) == len(inside.dataframe) + 1  # + the context's sources table
    assert len(at.get("popover")) == len(inside.get("popover"))
    assert not any(c.value.startswith("Grounded share") for c in at.caption
                   if c not in inside.caption)


def test_abstain_toggle_and_evidence_bar_start_from_the_preset_and_drive_the_run(page: AppTest) -> None:
    assert page.toggle(key="ans_abstain").value is True
    assert page.number_input(key="ans_min_evidence").value == pytest.approx(0.54)  # the preset's bar
    page.number_input(key="ans_min_evidence").set_value(0.99).run()
    at = ask(page)  # in-domain, but no passage is that close
    assert any("weak_evidence" in w.value for w in at.warning if "Declined" in w.value)
    at.toggle(key="ans_abstain").set_value(False).run()
    at = ask(at)
    assert "30 days" in at.chat_message[-1].markdown[0].value
    assert any("answer relevance not measured" in c.value for c in at.caption)


def test_a_hanging_llm_falls_back_with_a_warning_and_the_conversation_keeps_both_turns(
    page: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        server.script(hang(5), hang(5), hang(5))
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-page-secret-123")
        page.selectbox(key="ans_mode").select("llm")
        page.number_input(key="ans_timeout").set_value(0.3)
        page.number_input(key="ans_retries").set_value(1).run()
        at = ask(page)
        assert len(server.chat_requests) == 2  # first try + one retry, both timed out
    assert any("LLM failed (timeout)" in w.value for w in at.warning)
    assert any("Extractive" in i.value for i in at.info)
    conversation = at.session_state["ans_conversation"]
    roles = [m.role for m in MemoryStore().messages(conversation)]
    assert roles[-2:] == ["user", "assistant"]
    assert "sk-page-secret-123" not in at.session_state["ans_trace"].to_json()


def test_conversations_can_be_started_exported_and_deleted(page: AppTest) -> None:
    at = ask(page)
    first = at.session_state["ans_conversation"]
    exported = json.loads(MemoryStore().export_json(first))
    assert [m["role"] for m in exported["messages"]][-2:] == ["user", "assistant"]
    at.button(key="ans_new").click().run()
    second = at.session_state["ans_conversation"]
    assert second != first and not at.chat_message  # an empty conversation
    at.button(key="ans_delete").click().run()
    assert second not in {c.id for c in MemoryStore().conversations()}
    assert first in {c.id for c in MemoryStore().conversations()}
