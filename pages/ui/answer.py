"""View helpers for the Answer page: the run config, sentence colouring, supporting-span highlights,
the token budget and the stage timeline — all rendered from a Trace, nothing recomputed."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pages.ui.html import Mark, highlight_spans
from rag.abstain import AbstainDecision
from rag.context import ContextBlock, TokenBudget
from rag.grounding import SentenceCheck
from rag.trace import Trace

VERDICT_COLORS = {
    "supported": "rgba(34, 197, 94, 0.30)",
    "ambiguous": "rgba(245, 158, 11, 0.40)",
    "unsupported": "rgba(239, 68, 68, 0.35)",
    "not_checked": "rgba(148, 163, 184, 0.25)",
}
STATUS_COLORS = {
    "ok": "#22c55e",
    "fallback": "#f59e0b",
    "failed": "#ef4444",
    "cache_hit": "#3b82f6",
    "skipped": "#94a3b8",
    "blocked": "#a855f7",
}


def relevance_text(decision: AbstainDecision | None) -> str:
    """"answer relevance 0.84 (offline)", or why there is no figure."""
    relevance = decision.signals.relevance if decision is not None else None
    if relevance is None:
        return "answer relevance not measured (abstain stage off)"
    return f"answer relevance {relevance.score:.2f} ({relevance.method})"


def show_decision(decision: AbstainDecision) -> None:
    """A declined answer says so and why (the page puts the withheld answer in a collapsed
    expander); notes such as "grounded but irrelevant" are shown either way."""
    if decision.abstained:
        st.warning(f"**Declined** ({decision.kind}): {decision.reason}", icon=":material/block:")
    for note in decision.notes:
        st.warning(note, icon=":material/report:")
    evidence = decision.signals.evidence
    if evidence is not None:
        st.caption(f"Retrieval evidence (best question–passage cosine): {evidence:.3f}")


def _sentence_label(check: SentenceCheck) -> str:
    score = f"{check.method} {check.score:.2f}" if check.method != "none" else "no claim to check"
    source = f", best support [Source {check.support.n}]" if check.support else ""
    problem = f"; {check.citation_problem}" if check.citation_problem else ""
    note = f"; {check.note}" if check.note else ""
    return f"{check.verdict} ({score}{source}){problem}{note}"


_BOLD = re.compile(r"\*\*([^*<>]+?)\*\*")
_CODE = re.compile(r"`([^`<>]+?)`")


def inline_markdown(escaped: str) -> str:
    """**bold** and `code` of (already escaped) HTML as tags: sources' Markdown reads as text."""
    return _CODE.sub(r"<code>\1</code>", _BOLD.sub(r"<strong>\1</strong>", escaped))


def answer_html(answer: str, sentences: Sequence[SentenceCheck]) -> str:
    """The answer with every sentence coloured by its verdict; hover shows score and evidence."""
    marks = [Mark(s.start, s.end, _sentence_label(s), VERDICT_COLORS[s.verdict]) for s in sentences]
    return inline_markdown(highlight_spans(answer, marks))


def block_html(block: ContextBlock, sentences: Sequence[SentenceCheck]) -> str:
    """A context block with the spans that support answer sentences highlighted."""
    marks = [
        Mark(
            s.support.start,
            s.support.end,
            f"supports sentence {s.index + 1}: {s.verdict}",
            VERDICT_COLORS[s.verdict],
        )
        for s in sentences
        if s.support is not None and s.support.n == block.n
    ]
    return highlight_spans(block.text, marks)


def sentence_frame(sentences: Sequence[SentenceCheck]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "#": s.index + 1,
                "sentence": s.text,
                "verdict": s.verdict,
                "method": s.method,
                "score": round(s.score, 3),
                "lexical": round(s.lexical, 3),
                "best source": s.support.n if s.support else None,
                "cited": ", ".join(map(str, s.cited)),
                "citation": s.citation_problem or ("ok" if s.citation_ok else ""),
                "note": s.note,
            }
            for s in sentences
        ]
    )


def sources_frame(blocks: Sequence[ContextBlock]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "source": f"[Source {b.n}]",
                "title": b.title,
                "origin": b.origin,
                "rank": b.rank,
                "score": round(b.score, 4),
                "tokens": b.tokens,
                "markers": " ".join(b.markers),
                "chunk": b.chunk_id,
            }
            for b in blocks
        ]
    )


def budget_figure(budget: TokenBudget) -> go.Figure:
    """Allotted vs used tokens per part of the window (Adaptive's split)."""
    rows = budget.rows()
    parts = [str(r["part"]) for r in rows]
    fig = go.Figure(
        [
            go.Bar(name="allotted", x=parts, y=[r["allotted"] for r in rows], marker_color="#cbd5e1"),
            go.Bar(name="used", x=parts, y=[r["used"] for r in rows], marker_color="#3b82f6"),
        ]
    )
    fig.update_layout(
        barmode="overlay",
        height=260,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        title=f"Token budget of {budget.window} ({budget.tokenizer.split(' (')[0]})",
    )
    return fig


def timeline_figure(trace: Trace) -> go.Figure:
    """One bar per stage, placed end to end in run order, coloured by status."""
    start = 0.0
    fig = go.Figure()
    for record in trace.records:
        fig.add_trace(
            go.Bar(
                y=[record.stage],
                x=[max(record.wall_ms, 0.01)],
                base=[start],
                orientation="h",
                marker_color=STATUS_COLORS.get(record.status, "#64748b"),
                name=record.status,
                hovertext=(f"{record.stage}: {record.status}, {record.wall_ms:.1f} ms"
                           + (f" · {record.llm_budget.describe()}" if record.llm_budget else "")
                           + f" {record.reason}"),
                showlegend=False,
            )
        )
        start += record.wall_ms
    fig.update_layout(
        height=40 + 22 * len(trace.records),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        title=f"Stage timeline: {trace.total_ms:.0f} ms",
        xaxis_title="ms",
        yaxis={"autorange": "reversed"},
    )
    return fig


DRAFT_CAPTION = "Draft: checked against its sources before it is kept as the answer"


def stream_draft(tokens: Iterator[str]) -> DeltaGenerator:
    """Stream the answer as it is written into a placeholder marked as a draft: the checks that
    may decline it (grounding, abstention) run only after the last token."""
    draft = st.empty()
    with draft.container():
        st.caption(DRAFT_CAPTION, help="A declined answer is removed from the chat; it stays "
                   "readable in the collapsed \"withheld\" expander below.")
        st.write_stream(tokens)
    return draft


def settle_draft(draft: DeltaGenerator, declined: bool) -> None:
    """A declined draft leaves the chat at once: left standing until the page reloads, a glance
    would read it as the answer."""
    if declined:
        draft.empty()
