"""LLM sentence selection (`llm_select`): the model names sentence numbers, so the context keeps
the excerpt's own sentences whatever the model writes; every reply is counted."""

from __future__ import annotations

import pytest
from answer_helpers import BERLIN, PARIS, TRAINS, candidates
from fake_openai import FakeOpenAI, reply, status

from rag.context.base import ContextBlock
from rag.context.compress import COMPRESSORS
from rag.context.expand import block_for
from rag.context.select import parse_selection, selection_schema
from rag.llm.client import Endpoint, LLMClient
from rag.llm.usability import counting
from rag.settings.generation import GenerationConfig

QUESTION = "How tall is the Eiffel Tower?"


def blocks(*texts: str) -> list[ContextBlock]:
    return [block_for(c.chunk, c, i) for i, c in enumerate(candidates(*texts), 1)]


@pytest.mark.parametrize(("text", "expected"), [
    ('{"sentences": [3, 2, 3, 9], "coverage": "partial"}', ([2, 3], ("[Partial]",))),
    ('{"sentences": [2], "coverage": "none"}', ([], ())),
    ("Sentences 3 and 1 are needed. [Conflicting]", ([1, 3], ("[Conflicting]",))),
    ("NONE", ([], ())),
])
def test_selections_are_read_from_json_or_text(
    text: str, expected: tuple[list[int], tuple[str, ...]]
) -> None:
    assert parse_selection(text, 3) == expected


@pytest.mark.parametrize("text", ["The Eiffel Tower is very tall indeed.",
                                  "It was completed in 1889."])  # a year is no sentence number
def test_a_reply_without_numbers_or_none_is_unusable(text: str) -> None:
    with pytest.raises(ValueError, match="no sentence number"):
        parse_selection(text, 3)


def test_selection_keeps_the_chosen_sentences_verbatim_and_falls_back_per_block() -> None:
    with FakeOpenAI() as server, counting() as tally:
        # PARIS: sentences 3 and 2; BERLIN: nothing; TRAINS is one sentence (no call)
        server.script(reply('{"sentences": [3, 2], "coverage": "full"}'), reply("NONE"))
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        out, step = COMPRESSORS.get("llm_select")(QUESTION, blocks(PARIS, BERLIN, TRAINS), client)
    assert [b.text for b in out] == [
        "The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall.", TRAINS]
    assert out[0].verbatim is False and out[1].verbatim is True
    assert len(server.chat_requests) == 2 and step.n_out == 2
    sent = server.chat_requests[0].body
    assert "1. Paris is the capital of France." in sent["messages"][0]["content"]
    assert sent["response_format"]["json_schema"]["schema"] == selection_schema(3).schema
    assert tally.as_json()["context.compress"]["ok"] == 2


def test_an_unusable_or_failed_selection_filters_that_block_offline() -> None:
    with FakeOpenAI() as server, counting() as tally:
        server.script(reply("I think the tower is tall."), status(400))
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        out, step = COMPRESSORS.get("llm_select")(QUESTION, blocks(PARIS, BERLIN), client)
    assert out[0].text == ("The Eiffel Tower was completed in 1889 for the World's Fair. "
                           "It is 330 metres tall.")
    assert "filtered offline" in step.warnings[0] and "client_error" in step.warnings[1]
    assert tally.as_json()["context.compress"]["fallback"] == 2


def test_without_an_endpoint_selection_is_the_offline_filter_and_says_so() -> None:
    out, step = COMPRESSORS.get("llm_select")(QUESTION, blocks(PARIS), None)
    assert step.status == "fallback" and "no LLM endpoint" in step.warnings[0]
    assert "330 metres" in out[0].text
