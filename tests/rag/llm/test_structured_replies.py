"""Structured replies: the client asks for a schema-constrained reply in the first dialect the
endpoint has not refused, remembers refusals, and never drops the schema for an unrelated error;
the stages read a JSON reply through their text parsers."""

from __future__ import annotations

import json
import random

import pytest
from fake_openai import FakeOpenAI, reply, status

from rag.grounding.model_checks import read_verdicts
from rag.llm.base import LLMError, Message
from rag.llm.client import Endpoint, LLMClient
from rag.llm.structured import (
    GRADES_0_10,
    as_lines,
    choice_schema,
    json_object,
    numbered_schema,
    refusal_of_format,
)
from rag.query.intent.llm import parse_intent
from rag.rerank.llm import parse_grades
from rag.settings.generation import GenerationConfig

HI = [Message("user", "hi")]
# what llama-cpp-python answers to OpenAI's json_schema type
LLAMA_CPP_REFUSAL = ("1 validation error: {'loc': ('body', 'response_format', 'type'), "
                     "'msg': \"Input should be 'text' or 'json_object'\"}")


def client_for(server: FakeOpenAI, **overrides: object) -> LLMClient:
    settings = GenerationConfig.model_validate({"timeout_s": 2, "retries": 0} | overrides)
    # a fresh model name per test: refusals are remembered per endpoint and schema
    model = f"m{random.random()}"
    return LLMClient(settings, [Endpoint("primary", server.base_url, model, "sk-test-123456789")],
                     sleep=lambda _s: None)


def formats(server: FakeOpenAI) -> list[object]:
    return [r.body.get("response_format") for r in server.chat_requests]


def test_a_schema_goes_out_in_openais_dialect_first(fake_openai: FakeOpenAI) -> None:
    schema = choice_schema("intent", "intent", ("greeting", "question"))
    fake_openai.script(reply('{"intent": "question"}'))
    completion = client_for(fake_openai).chat(HI, 16, schema)
    assert completion.reply_format == "json_schema"
    sent = formats(fake_openai)[0]
    assert isinstance(sent, dict) and sent["type"] == "json_schema"
    assert sent["json_schema"]["schema"]["properties"]["intent"] == {"enum": ["greeting", "question"]}
    assert sent["json_schema"]["strict"] is True


def test_a_refused_dialect_is_remembered_and_the_next_one_used(fake_openai: FakeOpenAI) -> None:
    client = client_for(fake_openai)
    schema = numbered_schema("grades", 2, GRADES_0_10)
    fake_openai.script(status(500, LLAMA_CPP_REFUSAL), reply('{"1": 7, "2": 0}'), reply('{"1": 1, "2": 2}'))
    first = client.chat(HI, 32, schema)
    assert (first.text, first.reply_format) == ('{"1": 7, "2": 0}', "json_object_schema")
    assert [a.outcome for a in first.attempts] == ["ok"]  # a refused format is not a failed call
    second = client.chat(HI, 32, schema)
    assert second.reply_format == "json_object_schema"
    types = [f["type"] if isinstance(f, dict) else f for f in formats(fake_openai)]
    assert types == ["json_schema", "json_object", "json_object"]  # no second try of the refused one
    assert formats(fake_openai)[1] == {"type": "json_object", "schema": dict(schema.schema)}


def test_an_endpoint_that_refuses_both_dialects_gets_the_plain_prompt(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(400, "response_format is not supported"),
                       status(422, "unknown field response_format.schema"), reply("1: 4\n2: 9"))
    completion = client_for(fake_openai).chat(HI, 32, numbered_schema("grades", 2, GRADES_0_10))
    assert (completion.text, completion.reply_format) == ("1: 4\n2: 9", "text")
    assert formats(fake_openai)[2] is None


def test_an_error_that_is_not_about_the_format_keeps_its_kind(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(400, "This model's maximum context length is 8192 tokens"))
    with pytest.raises(LLMError) as info:
        client_for(fake_openai).chat(HI, 32, numbered_schema("grades", 2, GRADES_0_10))
    assert info.value.kind == "client_error"
    assert len(fake_openai.chat_requests) == 1  # not resent without the schema


def test_structured_replies_off_sends_no_format(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("question"))
    completion = client_for(fake_openai, structured_replies=False).chat(
        HI, 16, choice_schema("intent", "intent", ("question",)))
    assert completion.reply_format == "text" and formats(fake_openai) == [None]


def test_streams_and_calls_without_a_schema_send_no_format(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(reply("plain"), reply("streamed"))
    client = client_for(fake_openai)
    assert client.chat(HI).reply_format == "text"
    assert "".join(client.stream(HI)) == "streamed"
    assert formats(fake_openai) == [None, None]


@pytest.mark.parametrize(("code", "message", "refused"), [
    (500, LLAMA_CPP_REFUSAL, True),
    (400, "Invalid schema for response_format 'grades'", True),
    (422, "json_schema: unsupported keyword maxItems", True),
    (400, "maximum context length exceeded", False),
    (500, "internal error", False),
    (401, "response_format needs a paid plan", False),
])
def test_what_counts_as_a_refusal_of_the_format(code: int, message: str, refused: bool) -> None:
    assert refusal_of_format(code, message) is refused


def test_json_replies_read_through_the_line_parsers() -> None:
    assert as_lines('```json\n{"1": 7, "2": 12}\n```') == "1: 7\n2: 12"
    assert as_lines("1: 7") == "1: 7"  # text replies pass unchanged
    assert json_object('{"a": [1') is None and json_object("[1, 2]") is None
    grades, notes = parse_grades('{ "1": 7, "2": 12}', 2)
    assert grades == [7.0, 10.0] and "clamped" in notes[0]
    assert read_verdicts('{"1": "YES", "2": "NO"}', 2) == ({1: 1.0, 2: 0.0}, 0)
    assert parse_intent('{ "intent" : "off_topic"}') == "off_topic"


def test_schemas_are_strict_objects() -> None:
    schema = numbered_schema("verdicts", 3, ("YES", "NO")).schema
    assert schema["required"] == ["1", "2", "3"] and schema["additionalProperties"] is False
    assert json.dumps(schema)  # serialisable as sent
