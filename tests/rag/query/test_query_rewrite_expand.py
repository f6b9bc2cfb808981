"""Follow-up rewriting (offline heuristic and LLM) and query expansion (offline and LLM forms)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI, empty, reply, status
from query_helpers import chat_client, local_server

from rag.embed.embedder import TextEmbedder
from rag.llm.base import Message
from rag.query.expand import EXPANDERS, echo_intent, expand
from rag.query.rewrite import reference, rewrite
from rag.settings.query import ExpandConfig, RewriteConfig

PLUS = (Message("user", "How much storage does the Plus plan include?"),
        Message("assistant", "Plus adds 20 GB of storage. " + "More detail. " * 100))
CONFLICT = (Message("user", "What is a conflict copy?"), Message("assistant", "A copy made when…"))
CFG = RewriteConfig()


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeOpenAI, TextEmbedder]]:
    with local_server("hashed-bow-rewrite-tests") as pair:
        yield pair


@pytest.mark.parametrize(("query", "history", "expected"), [
    ("what about Team?", PLUS, "How much storage does the Team plan include?"),
    ("and the Free plan?", PLUS, "How much storage does the Free plan include?"),
    ("How do I delete it?", CONFLICT, "How do I delete conflict copy?"),
    ("What are its limits?", PLUS, "What are Plus's limits?"),
])
def test_offline_rewrite_resolves_references(query: str, history: tuple[Message, ...],
                                             expected: str) -> None:
    result = rewrite(query, history, CFG)
    assert (result.rewritten, result.path) == (expected, "offline") and result.changed


def test_no_rewrite_without_history_or_without_a_reference() -> None:
    first = rewrite("Is it free?", (), CFG)
    assert first.path == "skipped" and "first message" in first.reason and not first.changed
    standalone = rewrite("How do I export notes as Markdown?", PLUS, CFG)
    assert standalone.path == "skipped" and "no reference" in standalone.reason
    assert reference("what else?", PLUS) == "too short to stand alone"


def test_llm_rewrite_sees_the_last_messages_with_assistant_text_cut(
    server: tuple[FakeOpenAI, TextEmbedder]
) -> None:
    fake = server[0]
    history = (Message("user", "Oldest question about tags?"), Message("assistant", "Tags…"),
               Message("user", "Another one?"), *PLUS)
    fake.script(reply('Standalone query: "How much storage does the Team plan include?"'))
    result = rewrite("what about Team?", history, RewriteConfig(history_messages=3), chat_client(fake))
    assert (result.rewritten, result.path) == ("How much storage does the Team plan include?", "llm")
    prompt = fake.chat_requests[-1].body["messages"][0]["content"]
    assert "Oldest question" not in prompt and "Another one?" in prompt  # last 3 messages only
    assert "More detail." in prompt and len(prompt) < 1200  # assistant turn cut to 500 chars


@pytest.mark.parametrize("failure", [status(500), empty()])
def test_llm_rewrite_failure_falls_back_to_the_heuristic(
    server: tuple[FakeOpenAI, TextEmbedder], failure: object
) -> None:
    server[0].script(failure)  # type: ignore[arg-type]
    result = rewrite("what about Team?", PLUS, CFG, chat_client(server[0]))
    assert result.path == "fallback" and result.warnings
    assert result.rewritten == "How much storage does the Team plan include?"


def test_offline_expansions_say_why_they_did_or_did_not_run() -> None:
    cfg = ExpandConfig(methods=["multi_query", "hyde", "step_back", "rag_fusion"])
    multi, hyde, step_back, fusion = expand("How do I restore an older version of a note?", cfg)
    assert multi.path == "offline" and [q.text for q in multi.queries] == ["restore older version note"]
    assert hyde.path == "skipped" and "under 5" in hyde.reason
    for skipped in (step_back, fusion):
        assert skipped.path == "skipped" and "OPENAI_BASE_URL" in skipped.reason and not skipped.queries
    short = expand("vault recovery", ExpandConfig(methods=["hyde", "multi_query"]))
    assert short[0].path == "skipped" and "OPENAI_BASE_URL" in short[0].reason
    assert short[1].path == "skipped"  # the keyword variant equals the query


def test_llm_expansions(server: tuple[FakeOpenAI, TextEmbedder]) -> None:
    fake, chat = server[0], chat_client(server[0])
    fake.script(reply("1. vault passphrase recovery\n2. recover vault passphrase\n- vault recovery"))
    multi = EXPANDERS.get("multi_query")("vault recovery", ExpandConfig(), chat)
    assert [q.label for q in multi.queries] == ["mq1", "mq2"]  # the duplicate of the query dropped
    assert "Keep the same fact" in fake.chat_requests[-1].body["messages"][0]["content"]
    fake.script(reply("A vault is an end-to-end encrypted notebook.\n\nIts passphrase…"))
    hyde = EXPANDERS.get("hyde")("vault recovery", ExpandConfig(), chat)
    assert hyde.queries[0].retrievers == ("dense",) and "\n" not in hyde.queries[0].text
    fake.script(reply("q1: a\nq2: b\nq3: c\nq4: d\nq5: e"))
    fusion = EXPANDERS.get("rag_fusion")("vault recovery", ExpandConfig(max_queries=4), chat)
    assert [q.text for q in fusion.queries] == ["a", "b", "c", "d"]
    fake.script(status(429))
    failed = EXPANDERS.get("step_back")("vault recovery", ExpandConfig(), chat)
    assert failed.path == "fallback" and not failed.queries and failed.warnings


def test_echomind_intents() -> None:
    assert echo_intent("How do I install Lumen on Linux?") == "procedural"
    assert echo_intent("When was version history extended?") == "temporal"
    assert echo_intent("Why are paragraphs the merge unit?") == "exploratory"
    assert echo_intent("What does Plus cost?") == "factual"
