"""Secrets never leave and LLM work has one deadline per query, against the local fake server:
a provider that echoes the API key back cannot put it in the answer, the streamed tokens, the
trace or the stored conversation; a provider that never answers costs at most the deadline."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from answer_helpers import answer_config, lumen_collection
from fake_openai import TEST_KEY, FakeOpenAI, echo_key, hang, pings, reply
from hypothesis import given
from hypothesis import strategies as st

from rag.generate.stage import GenerateOutput
from rag.index import Collection
from rag.llm.deadline import Redactor, llm_deadline
from rag.memory import MemoryStore
from rag.pipeline import run_query
from rag.turn import finish_turn, start_turn

KEY = TEST_KEY  # the key the `llm` fixture exports
QUESTION = "How long do deleted notes stay in the Trash?"


@pytest.fixture(scope="module")
def collection() -> Collection:
    return lumen_collection("secrets-deadline")


@given(st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=20))
def test_redactor_masks_a_key_however_the_stream_splits_it(cuts: list[int]) -> None:
    text = f"before {KEY} middle {KEY}{KEY} after"
    redactor, out, position = Redactor([KEY]), [], 0
    for size in cuts:
        out.append(redactor.feed(text[position:position + size]))
        position += size
    out += [redactor.feed(text[position:]), redactor.flush()]
    assert "".join(out) == "before *** middle ****** after"


def test_an_echoed_key_never_reaches_tokens_answer_trace_or_memory(
    llm: FakeOpenAI, collection: Collection, tmp_path: Path
) -> None:
    llm.script(echo_key())
    store = MemoryStore(tmp_path / "memory.db")
    conversation = store.create("test")
    run = start_turn(store, conversation.id, QUESTION, answer_config(collection.name), collection)
    tokens = list(run.tokens())
    trace, _ = finish_turn(store, conversation.id, QUESTION, run)
    assert trace is not None
    assert llm.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent, and echoed
    assert "Your key is ***" in "".join(tokens)
    for part in (KEY[:12], KEY[-12:]):  # not even a piece of it
        assert part not in "".join(tokens) and part not in trace.answer
        assert part not in trace.to_json() and part not in str(store.messages(conversation.id))


def test_an_echoed_key_is_masked_in_plain_calls_too(llm: FakeOpenAI, collection: Collection) -> None:
    llm.script(echo_key())
    trace = run_query(QUESTION, answer_config(collection.name, **{"generation.stream": False}), collection)
    assert KEY not in trace.to_json() and "Your key is ***" in trace.answer


def test_a_server_that_never_answers_costs_the_deadline_not_timeout_times_attempts(
    llm: FakeOpenAI, collection: Collection
) -> None:
    llm.script(*[hang(60)] * 6)
    config = answer_config(collection.name, **{
        "generation.timeout_s": 60, "generation.retries": 2, "generation.deadline_s": 1.0})
    started = time.monotonic()
    trace = run_query(QUESTION, config, collection)
    elapsed = time.monotonic() - started
    assert elapsed < 30  # without the deadline: 3 attempts x 60 s
    answer = trace.output(GenerateOutput)
    assert answer is not None and answer.answer.mode == "extractive"
    assert answer.answer.attempts[-1].outcome == "deadline"
    generate = trace.stage("generate")
    assert "LLM failed (deadline)" in generate.reason and "generation.deadline_s" in generate.reason


def test_the_outer_deadline_wins_for_nested_runs() -> None:
    with llm_deadline(5.0) as outer, llm_deadline(100.0) as inner:
        assert inner is outer and inner.remaining() <= 5.0


def test_a_stream_that_only_sends_keep_alive_pings_ends_at_the_deadline(
    llm: FakeOpenAI, collection: Collection
) -> None:
    # llama.cpp's server pings every 15 s while it reads a long prompt: no read ever times out,
    # and no token comes for the deadline to be checked at (vexora's whole-document context
    # once held a Systems page run for 500 s past a 30 s deadline this way)
    config = answer_config(collection.name, **{
        "generation.timeout_s": 60, "generation.retries": 0, "generation.deadline_s": 5.0,
        "generation.stream": True})
    run_query(QUESTION, config, collection)  # models loaded: the deadline is left for the call
    llm.script(pings(60))
    started = time.monotonic()
    trace = run_query(QUESTION, config, collection)
    assert time.monotonic() - started < 30  # without the watchdog: the 60 s of pings
    answer = trace.output(GenerateOutput)
    assert answer is not None and answer.answer.mode == "extractive"
    assert answer.answer.attempts[-1].outcome == "deadline"
    assert "mid-call" in answer.answer.attempts[-1].detail


def test_a_placeholder_key_is_not_cut_out_of_answers(
    llm: FakeOpenAI, collection: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local server takes any key; users type "x" or "local". Masking those would turn
    "Linux" into "Linu***" in every answer (seen with SmolLM2 and OPENAI_API_KEY=x)."""
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    llm.script(reply("Sync works on Linux and macOS, locally first [Source 1]."))
    trace = run_query(QUESTION, answer_config(collection.name, **{"generation.stream": False,
                                                                  "grounding.enabled": False}),
                      collection)
    assert trace.answer is not None and "Linux and macOS" in trace.answer
    assert "***" not in trace.answer
