"""build_context end to end: relevance gate (no-RAG), steps in order, budget as data, purity."""

from __future__ import annotations

import pytest
from answer_helpers import BERLIN, PARIS, TRAINS, candidates

from rag.context.builder import build_context, context_from_passages
from rag.context.compress import COMPRESSORS
from rag.context.order import ORDERINGS
from rag.llm.base import Message
from rag.settings.context import ContextConfig


def test_nothing_retrieved_or_nothing_relevant_falls_back_to_no_rag() -> None:
    empty = build_context("q", [], ContextConfig())
    assert empty.no_rag and empty.blocks == () and empty.reason == "nothing was retrieved"
    low = build_context("q", candidates(PARIS, scores=(0.2,)), ContextConfig(relevance_threshold=0.3))
    assert low.no_rag and "0.200 < relevance threshold 0.3" in low.reason
    ok = build_context("q", candidates(PARIS, scores=(0.3,)), ContextConfig(relevance_threshold=0.3))
    assert not ok.no_rag and len(ok.blocks) == 1


def test_steps_run_in_order_and_blocks_are_numbered_in_prompt_order() -> None:
    settings = ContextConfig(top_k=3, compression="sentence_filter", dedupe_jaccard=0.8, ordering="sandwich")
    ctx = build_context("capital Paris Berlin trains", candidates(PARIS, BERLIN, TRAINS), settings)
    assert [s.step for s in ctx.steps] == [
        "gate",
        "expand:none",
        "compress:sentence_filter",
        "dedupe",
        "screen",
        "budget",
        "order:sandwich",
    ]
    assert [b.n for b in ctx.blocks] == [1, 2, 3] and [b.rank for b in ctx.blocks] == [1, 3, 2]
    rendered = ctx.render()
    assert rendered.startswith("[Source 1: d0]\n") and "\n---\n[Source 2: d2]\n" in rendered
    assert ctx.block(3).doc_id == "d1" and ctx.block(4) is None


def test_top_k_limits_the_candidates_taken() -> None:
    ctx = build_context("q", candidates(PARIS, BERLIN, TRAINS), ContextConfig(top_k=2))
    assert [b.chunk_id for b in ctx.blocks] == ["c0", "c1"]


def test_budget_is_data_for_the_page_and_history_is_fitted() -> None:
    history = [Message("user", "earlier " * 3000), Message("user", "recent question")]
    ctx = build_context(
        "q",
        candidates(PARIS),
        ContextConfig(context_window=2000),
        system_prompt="You answer from sources.",
        history=history,
    )
    budget = ctx.budget
    assert budget.allotted == {"system": 250, "history": 250, "chunks": 1150, "generation": 350}
    assert ctx.history == (history[1],)  # the long old message does not fit the history share
    assert budget.used["system"] == 5 and budget.used["chunks"] == ctx.blocks[0].tokens > 0
    rows = budget.rows()
    assert [r["part"] for r in rows] == ["system", "history", "chunks", "generation"]
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)


def test_candidates_are_never_modified() -> None:
    cands = candidates(PARIS, BERLIN)
    before = list(cands)
    snapshot = [(c.chunk.text, c.score, c.chunk.start, c.chunk.end) for c in cands]
    build_context(
        "Eiffel",
        cands,
        ContextConfig(
            compression="sentence_filter", dedupe_jaccard=0.5, ordering="sandwich", context_window=300
        ),
    )
    assert all(a is b for a, b in zip(cands, before, strict=True))
    assert [(c.chunk.text, c.score, c.chunk.start, c.chunk.end) for c in cands] == snapshot


@pytest.mark.parametrize("compression", COMPRESSORS.names())
@pytest.mark.parametrize("ordering", ORDERINGS.names())
def test_every_compressor_and_ordering_handles_one_and_many_blocks(compression: str, ordering: str) -> None:
    for texts in ((PARIS,), (PARIS, BERLIN, TRAINS)):
        ctx = build_context(
            "capital", candidates(*texts), ContextConfig(compression=compression, ordering=ordering)
        )
        assert sorted(b.n for b in ctx.blocks) == list(range(1, len(ctx.blocks) + 1))
        assert all(b.text for b in ctx.blocks)


def test_passages_make_a_context_in_the_given_order() -> None:
    ctx = context_from_passages("q", [BERLIN, PARIS])
    assert [b.text for b in ctx.blocks] == [BERLIN, PARIS] and [b.n for b in ctx.blocks] == [1, 2]
