"""Send only as much context as the endpoint can read within generation's time budget. The
endpoint's reading speed is measured on its earlier streamed calls (rag.llm.read_speed); a prompt
that would take more than READ_SHARE of the budget to read loses its lowest-ranked blocks (the
best-ranked one always stays), so the model has time left to write — instead of timing out and
falling back to the extractive answer."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rag.context.base import BuiltContext

READ_SHARE = 0.5  # of the budget left for generation; the rest is the model's time to write


@dataclass(frozen=True)
class TimeFit:
    context: BuiltContext
    note: str = ""  # why blocks were dropped, for the answer's warnings and the trace


def fit_to_time(context: BuiltContext, prompt_chars: int, budget_s: float | None,
                chars_per_second: float | None) -> TimeFit:
    """The context with the lowest-ranked blocks dropped until the prompt can be read in
    READ_SHARE of `budget_s`; unchanged without a budget or a measured speed."""
    if budget_s is None or not chars_per_second or len(context.blocks) < 2:
        return TimeFit(context)
    readable = int(READ_SHARE * budget_s * chars_per_second)
    excess = prompt_chars - readable
    if excess <= 0:
        return TimeFit(context)
    kept = sorted(context.blocks, key=lambda b: (b.rank, b.n))
    while len(kept) > 1 and excess > 0:
        excess -= len(kept.pop().text)
    blocks = tuple(b for b in context.blocks if b in kept)  # the order the prompt had
    note = (f"context cut to {len(blocks)} of {len(context.blocks)} blocks: the endpoint reads "
            f"~{chars_per_second:,.0f} prompt characters/s and generation has {budget_s:.0f} s "
            f"(read share {READ_SHARE:.0%})")
    return TimeFit(replace(context, blocks=blocks), note)
