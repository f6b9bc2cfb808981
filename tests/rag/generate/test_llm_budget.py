"""Each LLM stage has its own share of the query's LLM deadline, generation a reserve no earlier
stage can spend, and the trace shows budget and use per stage (issue 27), against the local fake
OpenAI server; a stage whose judge check failed makes no call at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from answer_helpers import answer_config, lumen_collection
from fake_openai import TEST_KEY, FakeOpenAI, hang, hang_mid_stream, pings
from test_judge_check import yes_man

from rag.cli.query import render
from rag.generate.fit_time import reading_time
from rag.generate.stage import GenerateOutput
from rag.index import Collection
from rag.llm import read_speed
from rag.paths import PROJECT_ROOT
from rag.pipeline import run_query
from rag.trace import Trace

QUESTION = "How long do deleted notes stay in the Trash?"


@pytest.fixture(scope="module")
def collection() -> Collection:
    return lumen_collection("llm-budget")


def budget_config(name: str, **overrides: Any) -> Any:
    return answer_config(name, **{
        "query.enabled": True, "query.expand.methods": ["multi_query"],
        "generation.timeout_s": 60, "generation.retries": 1, "generation.deadline_s": 4.0,
        "generation.budget.shares": {"understand": 0.25}, "generation.budget.generation_reserve": 0.5,
        **overrides})


def test_a_hanging_earlier_stage_spends_only_its_share_and_generation_still_answers(
    llm: FakeOpenAI, collection: Collection
) -> None:
    config = budget_config(collection.name)
    run_query(QUESTION, config, collection)  # models loaded: the clock is left for the calls
    llm.script(hang(60))  # the first call of the run: the understand stage's
    trace = run_query(QUESTION, config, collection)
    understand = trace.stage("understand")
    assert understand is not None and understand.llm_budget is not None
    assert understand.llm_budget.budget_s == pytest.approx(1.0, abs=0.05)  # 0.25 of 4 s
    assert understand.llm_budget.calls >= 1 and understand.status == "fallback"
    assert "LLM budget of 1 s for stage understand" in understand.reason
    generate = trace.stage("generate")
    assert generate is not None and generate.llm_budget is not None
    assert generate.llm_budget.budget_s >= 2.0  # the reserve: half of the 4 s
    answer = trace.output(GenerateOutput)
    assert answer is not None and answer.answer.mode == "llm"
    assert generate.llm_budget.calls == 1 and generate.llm_budget.used_s > 0


def test_earlier_stages_never_spend_the_generation_reserve(llm: FakeOpenAI, collection: Collection) -> None:
    # a share larger than what is left before the reserve is cut to it
    config = budget_config(collection.name, **{"generation.budget.shares": {"understand": 1.0}})
    llm.script(hang(60))
    trace = run_query(QUESTION, config, collection)
    understand = trace.stage("understand")
    assert understand is not None and understand.llm_budget is not None
    assert understand.llm_budget.budget_s <= 2.0 + 0.01
    assert trace.output(GenerateOutput).answer.mode == "llm"


def test_budget_and_use_survive_the_json_trace_and_show_in_the_stage_list(
    llm: FakeOpenAI, collection: Collection
) -> None:
    trace = run_query(QUESTION, budget_config(collection.name), collection)
    again = Trace.from_json(trace.to_json())
    assert again.stage("generate").llm_budget == trace.stage("generate").llm_budget
    assert trace.stage("retrieve").llm_budget is None  # not an LLM stage
    budget = trace.stage("generate").llm_budget
    assert budget is not None and budget.calls >= 1
    generate_line = next(line for line in render(trace).splitlines() if line.strip().startswith("generate"))
    assert f"[{budget.describe()}]" in generate_line and " of " in budget.describe()  # rag query's stage list


def test_a_stage_whose_judge_check_failed_makes_no_call(
    monkeypatch: pytest.MonkeyPatch, collection: Collection
) -> None:
    with FakeOpenAI(judge=yes_man) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
        config = answer_config(collection.name, **{
            "rerank.enabled": True, "rerank.method": "llm", "generation.deadline_s": 30.0})
        trace = run_query(QUESTION, config, collection)
        rerank = trace.stage("rerank")
        assert rerank is not None and rerank.status == "skipped" and "not trusted" in rerank.reason
        assert rerank.llm_budget is not None and rerank.llm_budget.calls == 0
        assert server.probe_requests  # the check asked its probes, outside the query's budget
        assert not any("Rate how relevant" in str(r.body) for r in server.chat_requests)


def test_a_streamed_answer_the_budget_cuts_keeps_its_whole_sentences(
    llm: FakeOpenAI, collection: Collection
) -> None:
    config = answer_config(collection.name, **{
        "generation.timeout_s": 60, "generation.retries": 0, "generation.deadline_s": 8.0,
        "generation.stream": True})
    run_query(QUESTION, config, collection)  # models loaded: the clock is left for the call
    text = "Deleted notes stay in the Trash for 30 days [Source 1]. After that they are gone for good."
    llm.script(hang_mid_stream(text, after_tokens=len(text.split()) - 1, seconds=30))
    trace = run_query(QUESTION, config, collection)
    answer = trace.output(GenerateOutput).answer
    assert answer.mode == "llm", (answer.warnings, answer.attempts)  # what came in time is the answer
    assert answer.text.startswith("Deleted notes stay in the Trash for 30 days")
    assert "gone for" not in answer.text  # the sentence the budget cut is dropped
    assert any("time budget ended the answer" in w for w in answer.warnings)


def test_a_slow_reader_gets_less_context_instead_of_a_timeout(
    llm: FakeOpenAI, collection: Collection
) -> None:
    config = answer_config(collection.name, **{
        "generation.timeout_s": 60, "generation.deadline_s": 10.0, "generation.stream": True,
        "context.top_k": 5})
    read_speed.forget()
    trace = run_query(QUESTION, config, collection)  # no speed measured yet: the whole context
    full = trace.output(GenerateOutput).answer
    sent_blocks = full.messages[-1].content.count("[Source ")
    assert sent_blocks >= 3 and not any("context cut" in w for w in full.warnings)
    read_speed.forget()
    # an endpoint measured reading 100 characters a second reads at most ~800 in 10 s
    read_speed.record("reading", llm.base_url, config.generation.model, 10_000, 100.0)
    trace = run_query(QUESTION, config, collection)
    generate = trace.stage("generate")
    assert generate is not None
    cut = [w for w in generate.warnings if "context cut to" in w]
    assert cut and f"of {sent_blocks} blocks" in cut[0], generate.warnings
    answer = trace.output(GenerateOutput).answer
    assert answer.mode == "llm"
    assert 1 <= answer.messages[-1].content.count("[Source ") < sent_blocks
    read_speed.forget()


def test_speeds_are_measured_on_streamed_calls_and_the_slowest_recent_one_counts() -> None:
    read_speed.forget()
    read_speed.record("reading", "http://x/v1", "m", 100, 0.5)  # too short a prompt to tell
    assert read_speed.chars_per_second("reading", "http://x/v1", "m") is None
    for seconds in (2.0, 4.0, 1.0):
        read_speed.record("reading", "http://x/v1", "m", 4000, seconds)
    assert read_speed.chars_per_second("reading", "http://x/v1", "m") == pytest.approx(1000.0)
    assert read_speed.chars_per_second("writing", "http://x/v1", "m") is None
    assert read_speed.chars_per_second("reading", "http://x/v1", "other") is None
    read_speed.forget()


def test_the_answer_s_writing_time_is_set_aside_before_reading() -> None:
    # 160 tokens ~ 640 characters at 64 characters/s: 10 s of a 30 s budget go to writing
    assert reading_time(30.0, 160, 64.0) == pytest.approx(0.8 * 20.0)
    assert reading_time(30.0, 800, 64.0) == pytest.approx(0.25 * 30.0)  # the floor
    assert reading_time(30.0, 16, 10_000.0) == pytest.approx(0.8 * 30.0, abs=0.01)  # the ceiling


def test_a_streamed_call_measures_reading_and_writing(llm: FakeOpenAI, collection: Collection) -> None:
    read_speed.forget()
    config = answer_config(collection.name, **{"generation.stream": True})
    run_query(QUESTION, config, collection)
    assert read_speed.chars_per_second("reading", llm.base_url, config.generation.model)
    read_speed.forget()


def test_a_call_still_reading_at_its_deadline_counts_as_slow_reading(
    llm: FakeOpenAI, collection: Collection
) -> None:
    config = answer_config(collection.name, **{
        "generation.timeout_s": 60, "generation.retries": 0, "generation.deadline_s": 3.0,
        "generation.stream": True})
    run_query(QUESTION, config, collection)  # models loaded: the clock is left for the call
    read_speed.forget()
    llm.script(pings(30))  # a server reading a long prompt: keep-alive pings, no token
    trace = run_query(QUESTION, config, collection)
    assert trace.output(GenerateOutput).answer.mode == "extractive"
    prompt_chars = sum(len(m.content) for m in trace.output(GenerateOutput).answer.messages)
    speed = read_speed.chars_per_second("reading", llm.base_url, config.generation.model)
    assert speed is not None and speed <= prompt_chars / 2.5  # read for ~3 s and not done
    read_speed.forget()


def test_speeds_outlive_the_process_that_measured_them(tmp_path: Path) -> None:
    # each `rag query` is a new process: without what earlier ones measured, its first call
    # would send the whole context to a server that cannot read it in time
    script = ("import sys; from rag.llm import read_speed; "
              "read_speed.record('reading', 'http://x/v1', 'm', 4000, float(sys.argv[1]))")
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(tmp_path)}
    for seconds in ("8", "2"):
        subprocess.run([sys.executable, "-c", script, seconds], env=env, check=True, cwd=PROJECT_ROOT)
    ask = ("from rag.llm import read_speed; "
           "print(read_speed.chars_per_second('reading', 'http://x/v1', 'm'))")
    out = subprocess.run([sys.executable, "-c", ask], env=env, check=True, cwd=PROJECT_ROOT,
                         capture_output=True, text=True).stdout
    assert float(out) == pytest.approx(500.0)  # the slower of the two runs
    (tmp_path / "cache" / "llm" / "speeds.json").write_text("{not json", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", ask], env=env, check=True, cwd=PROJECT_ROOT,
                         capture_output=True, text=True).stdout
    assert out.strip() == "None"  # a damaged file is no measurement, not a crash
