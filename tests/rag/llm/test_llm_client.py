"""The OpenAI-compatible client against a local fake server: retries, backoff, breaker, fallback."""

from __future__ import annotations

import json
import random

import pytest
from fake_openai import Behaviour, FakeOpenAI, empty, hang, hang_mid_stream, invalid_json, reply, status

from rag.generate.base import GeneratedAnswer
from rag.generate.stage import GenerateOutput
from rag.llm.base import LLMError, Message
from rag.llm.client import Endpoint, LLMClient, endpoints_from, make_client
from rag.llm.deadline import llm_deadline
from rag.settings.generation import GenerationConfig
from rag.trace import StageRecord, Trace

KEY = "sk-test-DO-NOT-LEAK-1234567890"
HI = [Message("user", "hi")]


def settings(**overrides: object) -> GenerationConfig:
    base = {"timeout_s": 0.5, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "retries": 2}
    return GenerationConfig.model_validate(base | overrides)


def client_for(server: FakeOpenAI, sleeps: list[float] | None = None, **overrides: object) -> LLMClient:
    record = sleeps.append if sleeps is not None else (lambda _s: None)
    return LLMClient(
        settings(**overrides),
        [Endpoint("primary", server.base_url, "m", KEY)],
        sleep=record,
        rng=random.Random(0),
    )


def test_chat_returns_text_and_sends_the_key_only_in_the_header(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("Paris is the capital of France."))
    completion = client_for(fake_openai).chat(HI)
    assert completion.text == "Paris is the capital of France."
    assert [a.outcome for a in completion.attempts] == ["ok"]
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert fake_openai.requests[0].body["messages"] == [{"role": "user", "content": "hi"}]


def test_rate_limit_is_retried_after_a_backoff(fake_openai: FakeOpenAI) -> None:
    sleeps: list[float] = []
    fake_openai.script(status(429), reply("ok"))
    completion = client_for(fake_openai, sleeps).chat(HI)
    assert completion.text == "ok"
    assert [a.outcome for a in completion.attempts] == ["rate_limit", "ok"]
    assert len(sleeps) == 1 and sleeps[0] == completion.attempts[0].backoff_s > 0


def test_server_errors_exhaust_retries_and_name_the_failure(fake_openai: FakeOpenAI) -> None:
    sleeps: list[float] = []
    fake_openai.script(status(500), status(502), status(503))
    with pytest.raises(LLMError) as info:
        client_for(fake_openai, sleeps).chat(HI)
    assert info.value.kind == "server"
    assert [a.outcome for a in info.value.attempts] == ["server"] * 3
    assert len(sleeps) == 2 and len(fake_openai.chat_requests) == 3


def test_a_hanging_server_times_out_then_the_retry_succeeds(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(hang(10), reply("late but fine"))
    completion = client_for(fake_openai, timeout_s=0.3).chat(HI)
    assert completion.text == "late but fine"
    assert [a.outcome for a in completion.attempts] == ["timeout", "ok"]


@pytest.mark.parametrize(
    ("behaviour", "kind"),
    [(invalid_json(), "invalid_response"), (empty(), "empty"), (status(400), "client_error")],
)
def test_bad_answers_are_not_retried_on_the_same_provider(
    fake_openai: FakeOpenAI, behaviour: Behaviour, kind: str
) -> None:
    fake_openai.script(behaviour)
    with pytest.raises(LLMError) as info:
        client_for(fake_openai).chat(HI)
    assert info.value.kind == kind and len(info.value.attempts) == 1


def test_fallback_provider_answers_when_the_primary_fails() -> None:
    with FakeOpenAI() as primary, FakeOpenAI() as fallback:
        primary.script(status(500), status(500))
        fallback.script(reply("from the fallback"))
        client = LLMClient(
            settings(retries=1),
            [
                Endpoint("primary", primary.base_url, "big", KEY),
                Endpoint("fallback", fallback.base_url, "small", KEY),
            ],
            sleep=lambda _s: None,
        )
        completion = client.chat(HI)
    assert (completion.text, completion.provider, completion.model) == (
        "from the fallback",
        "fallback",
        "small",
    )
    assert [(a.provider, a.outcome) for a in completion.attempts] == [
        ("primary", "server"),
        ("primary", "server"),
        ("fallback", "ok"),
    ]


def test_open_circuit_stops_calls_until_the_cool_down(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(500), status(500))
    client = client_for(fake_openai, retries=0, breaker_failures=2, breaker_cooldown_s=60.0)
    now = [0.0]
    breaker = client.breaker(client.endpoints[0])
    breaker._clock = lambda: now[0]  # a controllable clock for this breaker
    for _ in range(2):
        with pytest.raises(LLMError):
            client.chat(HI)
    assert breaker.state == "open"
    sent = len(fake_openai.chat_requests)
    with pytest.raises(LLMError) as info:
        client.chat(HI)
    assert info.value.kind == "circuit_open" and len(fake_openai.chat_requests) == sent
    now[0] = 61.0  # cool-down over: one trial call goes through and closes the circuit
    assert breaker.state == "half_open"
    assert client.chat(HI).text == "OK."
    assert breaker.state == "closed"


def test_streaming_yields_tokens_that_add_up_to_the_answer(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("Tokens arrive one word at a time."))
    stream = client_for(fake_openai).stream(HI)
    tokens = list(stream)
    assert len(tokens) > 3 and "".join(tokens) == "Tokens arrive one word at a time."
    assert stream.completion().text == "".join(tokens)
    assert fake_openai.chat_requests[0].body["stream"] is True


def test_a_stream_that_stalls_mid_answer_raises_with_the_partial_text(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(hang_mid_stream("one two three four", after_tokens=2, seconds=10))
    stream = client_for(fake_openai, timeout_s=0.3).stream(HI)
    got: list[str] = []
    with pytest.raises(LLMError) as info:
        got.extend(stream)
    assert info.value.kind == "timeout" and "".join(got) == "one two" == stream.text
    assert len(fake_openai.chat_requests) == 1  # never spliced with a second answer


def test_backoff_doubles_is_capped_and_jitters_within_bounds() -> None:
    endpoint = [Endpoint("primary", "http://127.0.0.1:9/v1", "m")]
    exact = LLMClient(settings(backoff_base_s=1, backoff_max_s=5, jitter=0.0), endpoint)
    assert [exact.backoff(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 5]
    assert exact.backoff(1, retry_after=3.0) == 3.0
    jittered = LLMClient(
        settings(backoff_base_s=1, backoff_max_s=100, jitter=0.5), endpoint, rng=random.Random(1)
    )
    delays = [jittered.backoff(3) for _ in range(200)]
    assert all(2.0 <= d <= 4.0 for d in delays) and len(set(delays)) > 100


def test_endpoints_come_from_the_environment_and_hide_the_key() -> None:
    env = {"OPENAI_BASE_URL": "http://llm/v1", "OPENAI_API_KEY": KEY}
    primary, fallback = endpoints_from(GenerationConfig(fallback_model="small"), env)
    assert (primary.base_url, primary.model, fallback.model) == ("http://llm/v1", "gpt-4o-mini", "small")
    assert KEY not in repr(primary) and KEY not in json.dumps(primary.describe())
    assert endpoints_from(GenerationConfig(), {}) == ()
    assert make_client(GenerationConfig(mode="llm"), {})[1].startswith("mode 'llm' but OPENAI_BASE_URL")
    assert make_client(GenerationConfig(mode="extractive"), env) == (None, "")


def test_the_key_never_reaches_a_trace(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(429), reply("fine"))
    client = client_for(fake_openai)
    completion = client.chat(HI)
    answer = GeneratedAnswer(completion.text, "llm", provider=completion.provider,
                             model=completion.model, attempts=completion.attempts, messages=tuple(HI))
    trace = Trace(query="q", preset="p")
    trace.add(StageRecord("generate", output=GenerateOutput(answer, 256, tuple(client.describe()))))
    exported = trace.to_json()
    assert "rate_limit" in exported and fake_openai.base_url in exported
    assert KEY not in exported
    rebuilt = Trace.from_json(exported).output(GenerateOutput)  # what a stored run loads back
    assert rebuilt is not None and [a.outcome for a in rebuilt.answer.attempts] == ["rate_limit", "ok"]
    assert KEY not in repr(rebuilt)


def test_a_call_our_deadline_ends_does_not_count_against_the_endpoint(fake_openai: FakeOpenAI) -> None:
    # a slow local server cut by the query's budget is not a broken one: were the cut counted,
    # one slow query would open the circuit and the next queries would not even be sent
    fake_openai.script(hang(10), hang(10), status(500))
    client = client_for(fake_openai, timeout_s=30.0, retries=0, breaker_failures=1)
    breaker = client.breaker(client.endpoints[0])
    for _ in range(2):
        with llm_deadline(0.3), pytest.raises(LLMError) as info:
            list(client.stream(HI))
        assert info.value.kind == "deadline"
        assert breaker.state == "closed"
    with pytest.raises(LLMError) as info:
        client.chat(HI)  # a real failure still counts
    assert info.value.kind == "server" and breaker.state == "open"
