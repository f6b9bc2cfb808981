"""bench llm-replies against a fake endpoint that follows a schema when one is sent and answers
off-format otherwise: the bench must count the structured mode's replies as parsed, the text
mode's as fallbacks, and judge the parsed ones against the labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI

from benchmarks.llm_replies import (
    CHANCE,
    MODES,
    grounding_items,
    intent_items,
    query_items,
    run_items,
    summary_lines,
)
from eval.data.beir import load_beir
from rag.llm.client import Endpoint, LLMClient
from rag.settings.generation import GenerationConfig

DATA = Path(__file__).resolve().parents[2] / "datasets"


def instance_of(schema: dict[str, Any]) -> Any:
    """The first value a schema allows: what a grammar-constrained model might send."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: instance_of(sub) for name, sub in schema["properties"].items()}
    return {"array": [], "boolean": False, "integer": 0, "number": 0}.get(str(kind), "x")


def schema_follower(body: dict[str, Any]) -> str:
    import json

    wanted = body.get("response_format")
    if not wanted:
        return "Well, it depends on what you mean."  # what a small model says off-format
    schema = wanted["json_schema"]["schema"] if wanted["type"] == "json_schema" else wanted["schema"]
    return json.dumps(instance_of(schema))


def test_structured_replies_parse_where_text_replies_do_not_and_are_judged() -> None:
    dataset = load_beir(DATA / "beir_sample")
    items = [*intent_items(DATA / "intents.csv", 1), *query_items(dataset, 2),
             *grounding_items(DATA / "grounding_labels.jsonl", 4)]
    with FakeOpenAI(responder=schema_follower) as server:
        clients = {mode: LLMClient(
            GenerationConfig(mode="llm", model="m", structured_replies=mode == "structured", retries=0),
            [Endpoint("primary", server.base_url, "m")]) for mode in MODES}
        figures = run_items(items, clients)
    text, structured = (figures[m].as_json() for m in MODES)
    intents = structured["tasks"]["intent"]["items"]
    assert intents == 10  # one per intent of the labelled set
    for task in ("intent", "rerank", "grounding", "route"):
        assert text["tasks"][task]["scored"] == 0, task
        assert structured["tasks"][task]["scored"] == structured["tasks"][task]["items"], task
    # the fake always picks the first choice: right only where that is the label
    assert structured["tasks"]["intent"]["right_share"] == 1 / intents  # "greeting" once
    assert structured["tasks"]["rerank"]["right_share"] == pytest.approx(2 / 6, abs=1e-4)  # 2 of 6 tied
    assert structured["tasks"]["self_rag_grade"]["right_share"] == 0.5  # a tie
    assert structured["tasks"]["grounding"]["right_share"] == 0.5  # always YES, labels alternate
    assert structured["tasks"]["route"]["right_share"] is None  # nothing to judge it by
    assert structured["usability"]["rerank.grades"]["usable_share"] == 1.0
    assert text["usability"]["understand.intent"]["fallback"] == intents
    lines = list(summary_lines({"model": "m", "load": "", "chance": dict(CHANCE),
                                "modes": {"text": text, "structured": structured}}))
    assert any(line.startswith("rerank") and "structured: parsed 2/2" in line for line in lines)
