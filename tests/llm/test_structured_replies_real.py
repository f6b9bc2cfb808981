"""Structured replies against the real local model: llama-cpp-python refuses OpenAI's json_schema
dialect and takes its own, and SmolLM2 — which rarely follows "reply in the form …" — then sends
a parseable reply at every stage that asks for one (benchmarks.llm_replies' tasks)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.llm_replies import grounding_items, intent_items, query_items, run_items
from eval.data.beir import load_beir
from rag.llm.base import Message
from rag.llm.client import Endpoint, LLMClient
from rag.llm.local_server import LocalLLMServer
from rag.llm.structured import choice_schema
from rag.settings.generation import GenerationConfig

DATA = Path(__file__).resolve().parents[2] / "datasets"
# the tasks whose stage asks for a schema (copy compression and query expansions do not)
STRUCTURED = ("intent", "classify", "route", "self_rag_grade", "rerank", "grounding", "compress_select")


def test_every_structured_stage_gets_a_parseable_reply_from_the_small_model(
    local_llm: LocalLLMServer,
) -> None:
    client = LLMClient(GenerationConfig(mode="llm", model="smollm2", retries=0, max_tokens=256),
                       [Endpoint("primary", local_llm.base_url, "smollm2")])
    first = client.chat([Message("user", "Say hello.")], 16, choice_schema("probe", "word", ("hi", "bye")))
    assert first.reply_format == "json_object_schema"  # json_schema refused, remembered
    assert first.text.replace(" ", "") in ('{"word":"hi"}', '{"word":"bye"}')

    items = [*intent_items(DATA / "intents.csv", 1), *query_items(load_beir(DATA / "beir_sample"), 2),
             *grounding_items(DATA / "grounding_labels.jsonl", 2)]
    figures = run_items(items, {"structured": client})["structured"].as_json()
    for task in STRUCTURED:
        numbers = figures["tasks"][task]
        assert numbers["scored"] == numbers["items"] > 0, (task, figures["usability"])
    for parser in ("understand.intent", "understand.classify", "understand.route", "verify.grade",
                   "rerank.grades", "ground.verdicts"):
        assert figures["usability"][parser]["fallback"] == 0, (parser, figures["usability"][parser])
