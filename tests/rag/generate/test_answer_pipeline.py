"""Context → generate → ground inside the real pipeline, offline and against the local fake
OpenAI server: streaming, 429, 500, a hanging server, invalid JSON, empty output, retry with
feedback. Every failure ends in a defined outcome and the conversation keeps both sides."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from answer_helpers import answer_config, lumen_collection
from fake_openai import TEST_KEY, Behaviour, FakeOpenAI, empty, hang, invalid_json, reply, status

from rag.context.base import BuiltContext
from rag.generate.stage import GenerateOutput
from rag.grounding.retry import GroundedAnswer
from rag.index import Collection
from rag.memory import MemoryStore, StoredMessage
from rag.pipeline import run_query
from rag.trace import Trace
from rag.turn import TurnOutcome, finish_turn, start_turn, turn_outcome

QUESTION = "How long do deleted notes stay in the Trash?"
KEY = TEST_KEY  # the key the `llm` fixture exports


@pytest.fixture(scope="module")
def collection() -> Collection:
    return lumen_collection("answer-pipeline")


@dataclass(frozen=True)
class Turn:
    trace: Trace
    outcome: TurnOutcome
    messages: tuple[StoredMessage, ...]
    sources: BuiltContext | None
    tokens: list[str]


def ask(store_path: Path, collection: Collection, **overrides: object) -> Turn:
    """One chat turn as the page runs it: question stored, sources, tokens, outcome stored."""
    store = MemoryStore(store_path / "memory.db")
    conversation = store.create("test")
    run = start_turn(
        store, conversation.id, QUESTION, answer_config(collection.name, **overrides), collection
    )
    sources = run.sources()
    tokens = list(run.tokens())
    trace, outcome = finish_turn(store, conversation.id, QUESTION, run)
    assert trace is not None
    return Turn(trace, outcome, store.messages(conversation.id), sources, tokens)


def generated(trace: Trace) -> GenerateOutput:
    output = trace.output(GenerateOutput)
    assert output is not None, "the generate stage produced no output"
    return output


def grounded(trace: Trace) -> GroundedAnswer:
    output = trace.output(GroundedAnswer)
    assert output is not None, "the ground stage produced no output"
    return output


def test_offline_the_answer_is_extractive_cited_and_grounded(collection: Collection, tmp_path: Path) -> None:
    turn = ask(tmp_path, collection)
    trace, messages, sources, tokens = turn.trace, turn.messages, turn.sources, turn.tokens
    generate, answer, ground = trace.stage("generate"), generated(trace).answer, grounded(trace)
    assert generate.status == "ok" and answer.mode == "extractive"
    assert "Extractive (offline)" in answer.label
    assert "30 days" in trace.answer and "[Source" in trace.answer and tokens == [trace.answer]
    assert ground.report.grounded_share == 1.0 and ground.report.is_grounded
    context = trace.output(BuiltContext)
    assert sources is not None and context is not None and sources.blocks[0].text in context.render()
    assert [m.role for m in messages] == ["user", "assistant"] and messages[1].metadata[
        "mode"
    ] == "extractive"


def test_streamed_llm_answer_sources_first_then_tokens_then_clean_up(
    llm: FakeOpenAI, collection: Collection, tmp_path: Path
) -> None:
    llm.script(
        reply(
            "Sure! Based on the context, deleted notes stay in the Trash for 30 days [source 1]."
            "\nSUGGESTED_QUESTIONS: Can I restore them? | What about versions?"
        )
    )
    turn = ask(tmp_path, collection)
    trace, outcome, messages, sources, tokens = (
        turn.trace,
        turn.outcome,
        turn.messages,
        turn.sources,
        turn.tokens,
    )
    assert sources is not None and len(tokens) > 5  # the context arrived before any token
    answer = generated(trace).answer
    assert answer.mode == "llm" and llm.chat_requests[0].body["stream"] is True
    assert trace.answer.startswith("Deleted notes stay in the Trash for 30 days [Source ")
    assert answer.suggested_questions == ("Can I restore them?", "What about versions?")
    sent = llm.chat_requests[0].body["messages"]
    assert "Question: " + QUESTION in sent[-1]["content"] and "[Source 1" in sent[-1]["content"]
    assert KEY not in trace.to_json() and KEY not in str(messages)
    assert (
        outcome.role == "assistant"
        and messages[1].metadata["suggested_questions"][0] == "Can I restore them?"
    )


@pytest.mark.parametrize(
    ("script", "kind"),
    [
        ([status(500), status(500)], "server"),
        ([hang(5), hang(5)], "timeout"),
        ([invalid_json()], "invalid_response"),
        ([empty()], "empty"),
    ],
)
def test_every_failure_falls_back_to_the_extractive_answer_and_says_so(
    llm: FakeOpenAI, collection: Collection, tmp_path: Path, script: list[Behaviour], kind: str
) -> None:
    llm.script(*script)
    turn = ask(tmp_path, collection)
    trace, outcome, messages, tokens = turn.trace, turn.outcome, turn.messages, turn.tokens
    generate, answer = trace.stage("generate"), generated(trace).answer
    assert generate.status == "fallback" and answer.mode == "extractive"
    assert f"LLM failed ({kind})" in generate.reason and f"LLM failed ({kind})" in " ".join(trace.warnings)
    assert [a.outcome for a in answer.attempts][-1] == kind
    assert "30 days" in trace.answer and any("Extractive answer instead" in t for t in tokens)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].metadata["mode"] == "extractive" and outcome.content == trace.answer


def test_rate_limit_then_success_is_an_ordinary_llm_answer(
    llm: FakeOpenAI, collection: Collection, tmp_path: Path
) -> None:
    llm.script(status(429), reply("Deleted notes stay in the Trash for 30 days [Source 1]."))
    trace = ask(tmp_path, collection).trace
    generate, answer = trace.stage("generate"), generated(trace).answer
    assert generate.status == "ok" and answer.mode == "llm"
    assert [a.outcome for a in answer.attempts] == ["rate_limit", "ok"]


def test_without_the_extractive_fallback_a_failure_is_an_error_turn(
    llm: FakeOpenAI, collection: Collection, tmp_path: Path
) -> None:
    llm.script(status(500), status(500))
    turn = ask(tmp_path, collection, **{"generation.fallback_to_extractive": False})
    trace, outcome, messages = turn.trace, turn.outcome, turn.messages
    assert trace.stage("generate").status == "failed" and not trace.answer
    assert outcome.role == "error" and "generate failed" in outcome.content
    assert [(m.role, m.content) for m in messages] == [("user", QUESTION), ("error", outcome.content)]


def test_an_ungrounded_llm_answer_is_retried_with_feedback(llm: FakeOpenAI, collection: Collection) -> None:
    llm.script(
        reply("Deleted notes are printed and mailed to the user [Source 1].")
    )  # then: default responder
    config = answer_config(collection.name, **{"grounding.model_check": "llm", "generation.stream": False})
    trace = run_query(QUESTION, config, collection)
    ground = grounded(trace)
    assert ground.retried == 1 and ground.report.is_grounded
    assert "printed and mailed" in llm.chat_requests[1].body["messages"][-1]["content"]  # the feedback
    assert "printed" not in trace.answer and trace.answer == ground.answer.text


def test_no_relevant_context_answers_without_documents(collection: Collection) -> None:
    trace = run_query(
        QUESTION, answer_config(collection.name, **{"context.relevance_threshold": 10.0}), collection
    )
    assert trace.stage("context").status == "fallback" and trace.stage("ground").status == "skipped"
    assert generated(trace).answer.mode == "no_rag" and "No document passage" in trace.answer
    assert trace.output(GroundedAnswer) is None
    assert turn_outcome(trace).role == "assistant"
