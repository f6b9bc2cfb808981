"""Adaptive query classes with hints, Axiom / Vexora / Adaptive routing, entities; LLM forms and fallbacks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI, reply, status
from query_helpers import chat_client, local_server

from rag.embed.embedder import TextEmbedder
from rag.query.classify import HINTS, classify, classify_rules
from rag.query.entities import extract_entities
from rag.query.route import route, route_rules
from rag.settings.query import RouteConfig

CFG = RouteConfig()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeOpenAI, TextEmbedder]]:
    with local_server("hashed-bow-route-tests") as pair:
        yield pair


@pytest.mark.parametrize(("query", "label"), [
    ("Give me an overview of the sync engine", "SUMMARY"),
    ("Plus versus Team: which one should a small office pick?", "COMPARISON"),
    ("Which platforms are supported?", "LIST"),
    ("Why does LumenSync merge paragraphs instead of characters?", "ANALYTICAL"),
    ("How much does the Plus plan cost?", "FACTUAL"),
])
def test_keyword_classes_and_their_hints(query: str, label: str) -> None:
    result = classify_rules(query)
    assert result.label == label and result.hints == HINTS[label]
    assert result.path == "rules" and result.reason


def test_list_queries_get_more_candidates_than_factual_ones() -> None:
    assert HINTS["LIST"].top_k == 15 and HINTS["LIST"].top_k > HINTS["FACTUAL"].top_k  # Adaptive
    assert HINTS["ANALYTICAL"].use_cot and HINTS["COMPARISON"].use_mmr
    assert {h.template for h in HINTS.values()} == {"summary", "comparison", "list", "analytical",
                                                     "factual"}


def test_llm_classification_and_its_fallback(server: tuple[FakeOpenAI, TextEmbedder]) -> None:
    fake = server[0]
    fake.script(reply("COMPARISON"))
    assert classify("Tell me about plans", chat_client(fake)).label == "COMPARISON"
    fake.script(status(500))
    failed = classify("Why is sync slow?", chat_client(fake))
    assert (failed.label, failed.path) == ("ANALYTICAL", "fallback") and failed.warnings


@pytest.mark.parametrize(("query", "cls", "complexity", "qtype", "strategy"), [
    ("Is Lumen Notes free?", "FACTUAL", "simple", "factual", "dense_only"),
    ("How do I turn on two-step verification?", "FACTUAL", "simple", "procedural", "dense_only"),
    ("Summarize the sync article", "SUMMARY", "summarize", "factual", "hierarchical"),
    ("Compare the Free, Plus and Team plans", "COMPARISON", "complex", "comparative", "fusion"),
    ("How long is version history kept on the Team plan?", "FACTUAL", "simple", "temporal",
     "dense_only"),
    ("How many notebooks does the Free plan allow?", "FACTUAL", "simple", "aggregative",
     "dense_only"),
    ("What is the relationship between vaults and search?", "FACTUAL", "simple", "relational",
     "dense_only"),
])
def test_rule_routes(query: str, cls: str, complexity: str, qtype: str, strategy: str) -> None:
    result = route_rules(query, CFG, cls)  # type: ignore[arg-type]
    assert (result.complexity, result.query_type, result.strategy) == (complexity, qtype, strategy)
    assert result.skip_rewrite == (complexity == "simple")


def test_multi_hop_entities_and_levels() -> None:
    compare = route_rules("Compare the Free, Plus and Team plans", CFG, "COMPARISON")
    assert compare.entities == ("Free", "Plus", "Team") and compare.multi_hop
    assert compare.levels == ("section", "document") and compare.top_k == 20
    double = route_rules("What does Plus cost and when was Team launched?", CFG)
    assert double.multi_hop and double.complexity == "complex"
    assert route_rules("and the Free plan?", CFG, conversational=True).complexity == "conversational"


def test_entities_cover_names_acronyms_tags_and_quotes() -> None:
    assert extract_entities('Does "Use without an account" sync with LumenSync or BM25 on #project/atlas?') \
        == ("Use without an account", "LumenSync", "BM25", "#project/atlas")
    assert extract_entities("how much storage comes with the team plan") == ()


def test_llm_router_and_its_fallback(server: tuple[FakeOpenAI, TextEmbedder]) -> None:
    fake = server[0]
    fake.script(reply('Sure: {"complexity": "complex", "query_type": "relational", '
                      '"entities": ["Vault", "Search"], "multi_hop": true}'))
    result = route("How do vaults affect search?", CFG, chat=chat_client(fake))
    assert (result.path, result.complexity, result.query_type) == ("llm", "complex", "relational")
    assert result.entities == ("Vault", "Search") and result.multi_hop and result.strategy == "fusion"
    fake.script(reply('{"complexity": "galaxy-brain", "query_type": "factual"}'))
    bad = route("How do vaults affect search?", CFG, chat=chat_client(fake))
    assert bad.path == "fallback" and "unusable" in bad.warnings[0]
    assert bad.query_type == route_rules("How do vaults affect search?", CFG).query_type
