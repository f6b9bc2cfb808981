"""Send only as much context as the endpoint can read within generation's time budget. The
endpoint's reading and writing speeds are measured on its earlier streamed calls
(rag.llm.read_speed); the answer's writing time (its token cap at the measured writing speed) is
set aside, and a prompt that would take longer to read than what is left loses its lowest-ranked
blocks (the best-ranked one always stays) — instead of timing out and falling back to the
extractive answer."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rag.outputs.context import BuiltContext

CHARS_PER_TOKEN = 4  # English text; turns the answer's token cap into characters to write
MARGIN = 0.8  # of the time left after writing: a call never runs exactly to plan
# reading always gets at least this share of the budget (a long token cap would leave none:
# the streamed answer is then cut at its last whole sentence) and never more than the high one
READ_SHARE_RANGE = (0.25, 0.8)


@dataclass(frozen=True)
class Speeds:
    reading: float | None  # prompt characters per second
    writing: float | None  # answer characters per second


@dataclass(frozen=True)
class TimeFit:
    context: BuiltContext
    note: str = ""  # why blocks were dropped, for the trace


def reading_time(budget_s: float, max_tokens: int, writing_cps: float | None) -> float:
    """Seconds the prompt may take to read: the budget less the answer's writing time."""
    low, high = READ_SHARE_RANGE
    if not writing_cps:  # no answer measured yet: the middle of the range
        return (low + high) / 2 * budget_s
    writing_s = max_tokens * CHARS_PER_TOKEN / writing_cps
    return min(high * budget_s, max(low * budget_s, MARGIN * (budget_s - writing_s)))


def fit_to_time(context: BuiltContext, prompt_chars: int, budget_s: float | None, max_tokens: int,
                speeds: Speeds) -> TimeFit:
    """The context with the lowest-ranked blocks dropped until the prompt can be read in time;
    unchanged without a budget or a measured reading speed."""
    if budget_s is None or not speeds.reading or len(context.blocks) < 2:
        return TimeFit(context)
    read_s = reading_time(budget_s, max_tokens, speeds.writing)
    excess = prompt_chars - int(read_s * speeds.reading)
    if excess <= 0:
        return TimeFit(context)
    kept = sorted(context.blocks, key=lambda b: (b.rank, b.n))
    while len(kept) > 1 and excess > 0:
        excess -= len(kept.pop().text)
    blocks = tuple(b for b in context.blocks if b in kept)  # the order the prompt had
    note = (f"context cut to {len(blocks)} of {len(context.blocks)} blocks: the endpoint reads "
            f"~{speeds.reading:,.0f} prompt characters/s, so {read_s:.0f} s of generation's "
            f"{budget_s:.0f} s can go to reading")
    return TimeFit(replace(context, blocks=blocks), note)
