"""The LLM reranker against a local OpenAI-compatible server: grades, batches, failures."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI, hang, reply, status
from fake_openai import fake_openai as fake_openai  # the fixture
from rerank_helpers import candidates

from rag.llm.client import LLMClient, endpoints_from
from rag.rerank.base import RerankCallFailed
from rag.rerank.llm import parse_grades
from rag.rerank.rerank import rerank
from rag.settings.generation import GenerationConfig
from rag.settings.rerank import RerankConfig


def client(server: FakeOpenAI, timeout_s: float = 5.0) -> LLMClient:
    settings = GenerationConfig(timeout_s=timeout_s, retries=0, breaker_failures=100)
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"}
    return LLMClient(settings, endpoints_from(settings, env))


def cfg(batch_size: int = 10, **fields: object) -> RerankConfig:
    return RerankConfig.model_validate(
        {"enabled": True, "method": "llm", "top_n": 3, "overfetch": 2, "llm": {"batch_size": batch_size},
         **fields})


def test_grades_reorder_the_window(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("1: 2\n2: 9\n3: 0\n4: 7\n5: 1\n6: 4"))
    result = rerank("conflict copies", candidates(), cfg(), chat=client(fake_openai))
    assert result.status == "ok" and result.path == "llm"
    assert [c.chunk_id for c in result.after] == ["c2", "c4", "c6"]
    assert [c.score for c in result.after] == [0.9, 0.7, 0.4]  # grade / 10
    prompt = fake_openai.chat_requests[0].body["messages"][0]["content"]
    assert "conflict copies" in prompt and "[6]" in prompt and "[7]" not in prompt


def test_batches_send_one_call_per_batch(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("1: 1\n2: 2\n3: 3\n4: 4"), reply("1: 10\n2: 0"))
    result = rerank("q", candidates(), cfg(batch_size=4), chat=client(fake_openai))
    assert len(fake_openai.chat_requests) == 2
    assert [c.chunk_id for c in result.after] == ["c5", "c4", "c3"]


@pytest.mark.parametrize("failure", [status(500), reply("I cannot rate these."), hang(10)])
def test_a_failed_call_keeps_the_input_order_and_says_why(fake_openai: FakeOpenAI, failure: object) -> None:
    fake_openai.script(failure)  # type: ignore[arg-type]
    result = rerank("q", candidates(), cfg(), chat=client(fake_openai, timeout_s=1.0))
    assert result.status == "fallback"
    assert [c.chunk_id for c in result.after] == ["c1", "c2", "c3"]
    assert "kept the input order" in result.reason and result.warnings


def test_no_endpoint_skips_with_the_variable_to_set() -> None:
    result = rerank("q", candidates(), cfg(), chat=None)
    assert result.status == "skipped" and "OPENAI_BASE_URL" in result.reason


def test_parse_grades_accepts_common_shapes_and_rejects_missing_ones() -> None:
    grades, warnings = parse_grades("[1] = 3\n2) 12\n3. 4.5", 3)
    assert grades == [3.0, 10.0, 4.5] and "clamped" in warnings[0]
    with pytest.raises(RerankCallFailed, match="graded 1 of 2"):
        parse_grades("1: 5", 2)
