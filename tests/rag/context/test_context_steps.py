"""Compression (EchoMind), sentence de-duplication, ordering (Adaptive sandwich) and the token budget."""

from __future__ import annotations

from dataclasses import replace

import pytest
from answer_helpers import BERLIN, PARIS, TRAINS, candidates
from fake_openai import FakeOpenAI, reply, status

from rag.context.base import ContextBlock
from rag.context.budget import allot, fit_blocks, fit_history
from rag.context.compress import COMPRESSORS, parse_compressed
from rag.context.expand import block_for
from rag.context.order import ORDERINGS, dedupe_sentences, order_blocks
from rag.context.tokens import EstimateCounter, default_counter
from rag.llm.base import Message
from rag.llm.client import Endpoint, LLMClient
from rag.llm.usability import counting
from rag.settings.context import BudgetSplit
from rag.settings.generation import GenerationConfig


def blocks(*texts: str) -> list[ContextBlock]:
    return [block_for(c.chunk, c, i) for i, c in enumerate(candidates(*texts), 1)]


def test_sentence_filter_keeps_query_sentences_marks_partial_and_drops_empty_blocks() -> None:
    out, step = COMPRESSORS.get("sentence_filter")("Eiffel Tower height in metres", blocks(PARIS, BERLIN))
    assert [b.text for b in out] == [
        "The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall."
    ]
    assert out[0].verbatim is False and out[0].markers == ()  # covers "eiffel", "tower", "metres"
    assert step.n_out == 1 and "1 block(s) dropped" in step.reason
    partial, _ = COMPRESSORS.get("sentence_filter")("Eiffel Tower architect budget wind", blocks(PARIS))
    assert partial[0].markers == ("[Partial]",)


def test_sentence_filter_never_compresses_everything_away() -> None:
    out, step = COMPRESSORS.get("sentence_filter")("submarine", blocks(PARIS))
    assert out[0].text == PARIS and step.warnings


def test_llm_compression_parses_markers_and_none_and_survives_failures() -> None:
    assert parse_compressed("[Partial]: It is tall.") == ("It is tall.", ("[Partial]",))
    assert parse_compressed("[conflicting] [Partial] x") == ("x", ("[Conflicting]", "[Partial]"))
    assert parse_compressed(" NONE. ") is None
    with FakeOpenAI() as server:
        server.script(reply("[Partial]: It is 330 metres tall."), reply("NONE"), status(400))
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        out, step = COMPRESSORS.get("llm")(
            "How tall is the Eiffel Tower?", blocks(PARIS, BERLIN, TRAINS), client
        )
    assert [(b.text, b.markers) for b in out] == [("It is 330 metres tall.", ("[Partial]",))]
    assert "client_error" in step.warnings[0]  # TRAINS: LLM failed, offline filter found nothing
    assert "How tall is the Eiffel Tower?" in server.chat_requests[0].body["messages"][0]["content"]


def test_dedupe_drops_near_duplicate_sentences_across_blocks() -> None:
    out, step = dedupe_sentences(blocks(PARIS, "Paris is the capital of France! Lyon is smaller."), 0.8)
    assert out[0].text == PARIS and out[1].text == "Lyon is smaller." and not out[1].verbatim
    assert "1 sentence(s)" in step.reason
    gone, step = dedupe_sentences(blocks(BERLIN, BERLIN), 0.8)
    assert len(gone) == 1 and "2 sentence(s)" in step.reason


@pytest.mark.parametrize(
    ("n", "expected"), [(0, []), (1, [1]), (2, [1, 2]), (5, [1, 3, 5, 4, 2]), (6, [1, 3, 5, 6, 4, 2])]
)
def test_sandwich_puts_the_best_blocks_at_both_ends(n: int, expected: list[int]) -> None:
    bs = [replace(b, rank=i) for i, b in enumerate(blocks(*["x"] * n), 1)]
    assert [b.rank for b in ORDERINGS.get("sandwich")(bs)] == expected


def test_ordering_numbers_sources_in_prompt_order_and_document_order_sorts_by_offset() -> None:
    bs = [replace(b, doc_id="d", start=s) for b, s in zip(blocks("a", "b", "c"), (50, 0, 20), strict=True)]
    ordered, _ = order_blocks("document", bs)
    assert [(b.n, b.start) for b in ordered] == [(1, 0), (2, 20), (3, 50)]
    assert [b.rank for b in ORDERINGS.get("rank")(bs)] == [1, 2, 3]


def test_budget_split_follows_002_and_must_add_up() -> None:
    assert allot(8000, BudgetSplit()) == {"system": 1000, "history": 1000, "chunks": 4600, "generation": 1400}
    with pytest.raises(ValueError, match="add up to 1"):
        BudgetSplit(chunks=0.9)


def test_blocks_are_fitted_best_first_truncating_one_and_dropping_the_rest() -> None:
    counter = default_counter()
    long = " ".join(f"word{i}" for i in range(300))
    fitted = fit_blocks(blocks(PARIS, long, BERLIN), 120, counter)
    assert fitted.blocks[0].text == PARIS
    assert long.startswith(fitted.blocks[1].text) and len(fitted.blocks[1].text) < len(long)
    assert (fitted.dropped, fitted.truncated) == (1, 1)
    assert sum(b.tokens for b in fitted.blocks) <= 120
    assert fit_blocks([], 10, counter).blocks == ()


def test_history_keeps_the_newest_messages_that_fit() -> None:
    counter = EstimateCounter()
    history = [
        Message("user", "one two three four"),
        Message("assistant", "five six"),
        Message("user", "seven"),
    ]
    assert fit_history(history, 5, counter) == tuple(history[1:])
    assert fit_history(history, 0, counter) == ()


def test_the_default_counter_is_minilm_word_pieces_and_truncates_on_token_boundaries() -> None:
    counter = default_counter()
    assert "MiniLM" in counter.name
    assert counter.count("The quick brown fox") == 4 and counter.count("") == 0
    assert counter.truncate("The quick brown fox", 2) == "The quick"
    assert EstimateCounter().count("a b c d e f g h i j") == 13


def test_llm_compression_keeps_only_copied_sentences_and_counts_each_reply() -> None:
    made_up = "The tower is very famous and loved by all."
    with FakeOpenAI() as server, counting() as tally:
        server.script(
            reply(f"It is 330 metres tall. {made_up} It is 330 metres tall."),  # repaired
            reply(made_up),  # nothing copied: the offline filter decides instead
            reply("Berlin is the capital of Germany."),  # copied as asked
        )
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        out, step = COMPRESSORS.get("llm")("How tall is the Eiffel Tower in Berlin?",
                                           blocks(PARIS, PARIS, BERLIN), client)
    assert out[0].text == "It is 330 metres tall."
    assert made_up not in " ".join(b.text for b in out)
    assert "kept 1 of 3 sentence(s)" in step.warnings[0]
    assert "not copied from the excerpt" in step.warnings[1]
    assert out[2].text == "Berlin is the capital of Germany."
    counts = tally.parsers["context.compress"].counts
    assert (counts["ok"], counts["repaired"], counts["fallback"]) == (1, 1, 1)


def test_llm_compression_never_drops_every_block() -> None:
    with FakeOpenAI() as server:
        server.script(reply("NONE"), reply("NONE"))
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        out, step = COMPRESSORS.get("llm")("How tall is the Eiffel Tower?", blocks(PARIS, BERLIN), client)
    assert [b.text for b in out] == [PARIS, BERLIN]
    assert "every block irrelevant" in step.warnings[-1]
