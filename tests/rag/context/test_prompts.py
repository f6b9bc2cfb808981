"""Prompt templates per query class (Adaptive) and the messages sent to the model."""

from __future__ import annotations

import pytest
from answer_helpers import BERLIN, PARIS, context

from rag.context.prompts import TEMPLATES, build_messages, choose_template, system_prompt
from rag.llm.base import Message
from rag.settings.context import ContextConfig


@pytest.mark.parametrize(
    ("query", "template"),
    [
        ("Summarize the handbook", "summary"),
        ("Compare Plus and Team plans", "comparison"),
        ("What is the difference between Free and Plus?", "comparison"),
        ("List all supported platforms", "list"),
        ("Why does LumenSync merge paragraphs?", "analytical"),
        ("How tall is the Eiffel Tower?", "factual"),
    ],
)
def test_keyword_cues_pick_a_template(query: str, template: str) -> None:
    assert choose_template(query) == template


def test_configured_template_and_query_class_win_over_cues() -> None:
    assert choose_template("Summarize it", configured="list") == "list"
    assert choose_template("Summarize it", intent="COMPARISON") == "comparison"
    assert choose_template("Summarize it", intent="question") == "summary"  # not a class: cues


def test_every_template_asks_for_source_citations_through_the_system_prompt() -> None:
    for name in TEMPLATES:
        prompt = system_prompt(name)
        assert "[Source 1]" in prompt and TEMPLATES[name] in prompt and "SUGGESTED_QUESTIONS" in prompt
    assert "SUGGESTED_QUESTIONS" not in system_prompt("factual", suggest=False)


def test_messages_carry_numbered_sources_history_question_and_feedback() -> None:
    ctx = context("How tall is the tower?", PARIS, BERLIN)
    history = (Message("user", "earlier question"), Message("assistant", "earlier answer"))
    messages = build_messages(
        "How tall is the tower?", ctx, "factual", history=history, feedback='- "It is made of gold."'
    )
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    user = messages[-1].content
    assert user.index("[Source 1: ") < user.index(PARIS) < user.index("[Source 2: ") < user.index(BERLIN)
    assert user.rstrip().endswith("cite [Source N] for every sentence.")
    assert "Question: How tall is the tower?" in user and "It is made of gold." in user


def test_no_rag_context_gets_the_conversation_only_prompt() -> None:
    ctx = context("hello?", PARIS, relevance_threshold=5.0)
    assert ctx.no_rag
    messages = build_messages("hello?", ctx, "factual")
    assert "No document passage was relevant" in messages[0].content
    assert messages[-1] == Message("user", "hello?") and "Sources" not in messages[-1].content
    assert ContextConfig().relevance_threshold is None  # the fallback is opt-in per preset
