"""understand(): the steps in order, what stops early, and the queries handed to retrieval."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI
from query_helpers import local_server

from rag.embed.embedder import TextEmbedder
from rag.llm.base import Message
from rag.query.cache import SemanticCache
from rag.query.intent import EXEMPLARS, SemanticRouter
from rag.query.spell import Vocabulary
from rag.query.understand import understand
from rag.settings.query import QueryConfig

HISTORY = (Message("user", "How much storage does the Plus plan include?"),
           Message("assistant", "Plus adds 20 GB."))
VOCAB = Vocabulary.from_texts(["Restore an older version of a note from the version history."])


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[FakeOpenAI, TextEmbedder]]:
    with local_server("hashed-bow-understand-tests") as pair:
        yield pair


@pytest.fixture(scope="module")
def router(server: tuple[FakeOpenAI, TextEmbedder]) -> SemanticRouter:
    return SemanticRouter(server[1], EXEMPLARS)


def cfg(**sections: object) -> QueryConfig:
    return QueryConfig.model_validate({"enabled": True, **sections})


def test_a_question_runs_every_step_and_yields_search_queries(router: SemanticRouter) -> None:
    found = understand("How do I restor an older verison of a note?",
                       cfg(spell={"enabled": True}, expand={"methods": ["multi_query"]}),
                       router=router, vocabulary=VOCAB)
    assert found.search_query == "How do I restore an older version of a note?"
    assert found.intent is not None and found.intent.intent == "question"
    assert found.classification is not None and found.route is not None
    assert [q.text for q in found.search_queries] == [found.search_query,
                                                      "restore older version note"]
    assert found.needs_retrieval and found.reply is None and found.skipped == ()
    assert found.query_class == "FACTUAL" and not found.llm


def test_a_greeting_stops_before_retrieval_with_a_reply(router: SemanticRouter) -> None:
    found = understand("Hello there!", cfg(), router=router)
    assert not found.needs_retrieval and found.reply and "help" in found.reply
    assert found.rewrite is None and found.route is None
    assert [s.split(":")[0] for s in found.skipped] == ["rewrite", "classify", "route", "expand"]


def test_a_vague_follow_up_is_resolved_by_the_conversation(router: SemanticRouter) -> None:
    found = understand("what about it?", cfg(), router=router, history=HISTORY)
    assert found.intent is not None and found.intent.intent != "clarify"
    assert "alone it was 'clarify'" in found.intent.reason
    assert found.search_query == "what about Plus?"
    alone = understand("what about it?", cfg(), router=router)
    assert alone.intent is not None and alone.intent.intent == "clarify" and not alone.needs_retrieval


def test_cache_hit_skips_everything_after_it(server: tuple[FakeOpenAI, TextEmbedder],
                                            router: SemanticRouter) -> None:
    settings = cfg(cache={"enabled": True})
    cache = SemanticCache(settings.cache, server[1])
    cache.store("How much does the Plus plan cost?", "$4 a month")
    found = understand("how much does the plus plan cost", settings, router=router, cache=cache)
    assert found.cache_hit and found.reply == "$4 a month" and not found.needs_retrieval
    assert found.intent is None and len(found.skipped) == 5
    follow = understand("what about Team?", settings, router=router, cache=cache, history=HISTORY)
    assert follow.cache is not None and not follow.cache_hit
    assert follow.cache_query == follow.search_query != "what about Team?"  # looked up standalone


def test_disabled_parts_are_absent_not_guessed() -> None:
    off = cfg(intent={"enabled": False}, classify={"enabled": False}, route={"enabled": False},
              rewrite={"enabled": False})
    found = understand("what about Team?", off, history=HISTORY)
    assert found.intent is None and found.classification is None and found.route is None
    assert found.rewrite is not None and found.rewrite.path == "skipped"
    assert found.search_query == "what about Team?" and found.needs_retrieval
