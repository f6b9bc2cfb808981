"""Self-RAG verification: lexical relevance offline, LLM grades from an OpenAI-compatible server."""

from types import MappingProxyType

from fake_openai import FakeOpenAI, reply, status

from rag.chunking.base import Chunk
from rag.context.self_rag import lexical_relevance, verify_chunks
from rag.index.hits import Candidate
from rag.llm.client import make_client
from rag.settings.enrich import VerifyConfig
from rag.settings.generation import GenerationConfig

QUERY = "How do I install the desktop application?"


def cand(cid: str, text: str, score: float) -> Candidate:
    return Candidate(Chunk(cid, "d", 0, len(text), text), score, stage_scores=MappingProxyType({}))


ITEMS = (cand("good", "Installing the desktop application takes a minute.", 0.9),
         cand("bad", "Pricing tiers are Free, Plus and Team.", 0.8))


def test_lexical_relevance_counts_query_words_and_their_stems() -> None:
    assert lexical_relevance(QUERY, ITEMS[0].chunk.text) == 1.0  # install ~ installing
    assert lexical_relevance(QUERY, ITEMS[1].chunk.text) == 0.0
    assert lexical_relevance("the of a", "anything") == 0.0


def test_chunks_below_the_threshold_are_dropped_but_min_keep_rescues_the_best() -> None:
    kept = verify_chunks(QUERY, ITEMS, VerifyConfig(threshold=0.5, min_keep=0))
    assert [c.chunk_id for c in kept.kept] == ["good"] and kept.method == "lexical"
    assert kept.kept[0].stage_scores["self_rag"] == 1.0
    nothing = (cand("x", "Unrelated text about pricing.", 0.5),)
    assert verify_chunks(QUERY, nothing, VerifyConfig(min_keep=0)).kept == ()
    rescued = verify_chunks(QUERY, nothing, VerifyConfig(min_keep=1))
    assert [c.chunk_id for c in rescued.kept] == ["x"] and "min_keep" in rescued.verdicts[0].reason


def test_llm_grades_and_a_failed_call_falls_back_to_lexical() -> None:
    with FakeOpenAI() as server:
        chat, _ = make_client(GenerationConfig(mode="llm"),
                              {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"})
        server.script(reply("2"), reply("9"))
        graded = verify_chunks(QUERY, ITEMS, VerifyConfig(threshold=0.5, min_keep=0), chat)
        assert graded.method == "llm" and [c.chunk_id for c in graded.kept] == ["bad"]
        server.script(*[status(400, "bad request")] * 6)
        fallback = verify_chunks(QUERY, ITEMS[:1], VerifyConfig(threshold=0.5, min_keep=0), chat)
        assert fallback.verdicts[0].path == "fallback" and fallback.warnings
        assert [c.chunk_id for c in fallback.kept] == ["good"]
