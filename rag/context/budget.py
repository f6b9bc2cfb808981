"""Token budget (Adaptive): split the context window between system prompt, history, retrieved chunks
and the generation, then fit the blocks (best first) into the chunks' share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag.context.tokens import TokenCounter
from rag.llm.base import Message
from rag.outputs.context import ContextBlock, StepReport, TokenBudget, context_step
from rag.settings.context import BudgetSplit

MIN_TRUNCATED_TOKENS = 32  # a shorter tail is not worth a block: drop it instead


def allot(window: int, split: BudgetSplit) -> dict[str, int]:
    """Tokens per part; rounding leftovers go to the chunks."""
    parts = {"system": split.system, "history": split.history, "generation": split.generation}
    allotted = {name: int(window * share) for name, share in parts.items()}
    allotted["chunks"] = window - sum(allotted.values())
    return {k: allotted[k] for k in ("system", "history", "chunks", "generation")}


def block_tokens(block: ContextBlock, counter: TokenCounter) -> int:
    """Tokens the block costs in the prompt: its header line, markers and text."""
    return counter.count(f"{block.label}\n{' '.join(block.markers)} {block.text}")


@dataclass(frozen=True)
class Fitted:
    blocks: tuple[ContextBlock, ...]
    step: StepReport
    dropped: int
    truncated: int


def fit_blocks(blocks: Sequence[ContextBlock], limit: int, counter: TokenCounter) -> Fitted:
    """Keep blocks in priority order while they fit; truncate the first that does not (when a
    useful tail remains) and drop the rest."""
    kept: list[ContextBlock] = []
    used = 0
    truncated = 0
    for block in blocks:
        cost = block_tokens(block, counter)
        if used + cost <= limit:
            kept.append(replace(block, tokens=cost))
            used += cost
            continue
        room = limit - used - (cost - counter.count(block.text))  # header stays whole
        if room >= MIN_TRUNCATED_TOKENS:
            text = counter.truncate(block.text, room)
            short = replace(block, text=text, end=block.start + len(text) if block.verbatim else block.end)
            short = replace(short, tokens=block_tokens(short, counter))
            kept.append(short)
            used += short.tokens
            truncated = 1
        break
    dropped = len(blocks) - len(kept)
    detail = f"{used}/{limit} chunk tokens used; {dropped} block(s) dropped, {truncated} truncated"
    warnings = (
        (f"{dropped + truncated} block(s) cut to fit the chunk budget",) if dropped or truncated else ()
    )
    step = context_step("budget", len(blocks), len(kept), detail, warnings)
    return Fitted(tuple(kept), step, dropped, truncated)


def fit_history(history: Sequence[Message], limit: int, counter: TokenCounter) -> tuple[Message, ...]:
    """The newest messages whose total fits the history share (oldest dropped first)."""
    kept: list[Message] = []
    used = 0
    for message in reversed(history):
        cost = counter.count(message.content)
        if used + cost > limit:
            break
        kept.append(message)
        used += cost
    return tuple(reversed(kept))


def make_budget(
    window: int,
    split: BudgetSplit,
    counter: TokenCounter,
    system_text: str,
    history: Sequence[Message],
    blocks: Sequence[ContextBlock],
    dropped: int = 0,
    truncated: int = 0,
) -> TokenBudget:
    """The budget as data: shares, allotted tokens and what system, history and chunks used."""
    used = {
        "system": counter.count(system_text),
        "history": sum(counter.count(m.content) for m in history),
        "chunks": sum(b.tokens for b in blocks),
        "generation": 0,  # filled by the generate stage's answer
    }
    return TokenBudget(
        window=window,
        tokenizer=counter.name,
        shares=split.model_dump(),
        allotted=allot(window, split),
        used=used,
        dropped_blocks=dropped,
        truncated_blocks=truncated,
    )
