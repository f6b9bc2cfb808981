"""Build the context for one query: relevance gate (EchoMind no-RAG fallback), expansion,
compression, sentence de-duplication, token budget (Adaptive), ordering and [Source N] numbering."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rag.context import select  # noqa: F401 (registers the llm_select compressor)
from rag.context.budget import allot, fit_blocks, fit_history, make_budget
from rag.context.compress import COMPRESSORS, LLM_COMPRESSORS, compression_probe, sentence_filter
from rag.context.expand import EXPANSIONS
from rag.context.order import dedupe_sentences, order_blocks
from rag.context.screen import screen_blocks
from rag.context.tokens import TokenCounter, default_counter
from rag.llm.base import ChatModel, Message
from rag.llm.judge_check import check_judge
from rag.outputs.context import BuiltContext, ChunkLookup, ContextBlock, StepReport, context_step
from rag.records.chunk import Chunk
from rag.records.hits import Candidate
from rag.settings.context import ContextConfig


def build_context(
    query: str,
    candidates: Sequence[Candidate],
    settings: ContextConfig,
    *,
    lookup: ChunkLookup | None = None,
    chat: ChatModel | None = None,
    system_prompt: str = "",
    history: Sequence[Message] = (),
    counter: TokenCounter | None = None,
) -> BuiltContext:
    """The context as it will be sent. Pure: candidates are never modified."""
    counter = counter or default_counter()
    allotted = allot(settings.context_window, settings.budget)
    kept_history = fit_history(history, allotted["history"], counter)
    best = max((c.score for c in candidates), default=None)

    def result(
        blocks: Sequence,
        steps: list[StepReport],
        no_rag: bool = False,
        reason: str = "",
        dropped: int = 0,
        truncated: int = 0,
    ) -> BuiltContext:
        budget = make_budget(
            settings.context_window,
            settings.budget,
            counter,
            system_prompt,
            kept_history,
            blocks,
            dropped,
            truncated,
        )
        return BuiltContext(
            query,
            tuple(blocks),
            budget,
            tuple(steps),
            no_rag,
            reason,
            best,
            settings.model_dump(),
            kept_history,
        )

    if not candidates:
        return result([], [context_step("gate", 0, 0, "nothing retrieved")], True, "nothing was retrieved")
    threshold = settings.relevance_threshold
    if threshold is not None and best is not None and best < threshold:
        reason = f"best score {best:.3f} < relevance threshold {threshold}"
        return result([], [context_step("gate", len(candidates), 0, reason)], True, reason)

    top = list(candidates[: settings.top_k])
    steps = [context_step("gate", len(candidates), len(top), f"top {settings.top_k} taken")]
    blocks, step = EXPANSIONS.get(settings.expansion)(top, lookup, settings)
    steps.append(step)
    blocks, step = _compress(query, blocks, settings.compression, chat)
    steps.append(step)
    if settings.dedupe_jaccard is not None:
        blocks, step = dedupe_sentences(blocks, settings.dedupe_jaccard)
        steps.append(step)
    # last text-changing step done: screen what generation would read, before the budget, so a
    # withheld passage's room goes to the next one
    blocks, step, held = screen_blocks(blocks, settings.flagged_passages)
    steps.append(step)
    if not blocks:
        reason = f"every passage was held back ({len(held)} flagged as addressing the assistant)"
        return replace(result([], steps, True, reason), held_back=held)
    fitted = fit_blocks(blocks, allotted["chunks"], counter)
    steps.append(fitted.step)
    ordered, step = order_blocks(settings.ordering, fitted.blocks)
    steps.append(step)
    built = result(ordered, steps, dropped=fitted.dropped, truncated=fitted.truncated)
    return replace(built, held_back=held) if held else built


def context_from_passages(
    query: str, passages: Sequence[str], settings: ContextConfig | None = None
) -> BuiltContext:
    """A context built from plain passages ([Source 1] is the first): for notebooks, labeled
    grounding sets and tests that have text but no collection."""
    candidates = [
        Candidate(Chunk(f"p{i}", f"passage-{i}", 0, len(text), text), score=1.0 / i)
        for i, text in enumerate(passages, 1)
    ]
    return build_context(query, candidates, settings or ContextConfig(top_k=max(1, len(passages))))


def _compress(query: str, blocks: list[ContextBlock], name: str, chat: ChatModel | None
              ) -> tuple[list[ContextBlock], StepReport]:
    """The configured compressor; an LLM one only when the model passed its judge check."""
    compressor = COMPRESSORS.get(name)
    if chat is None or name not in LLM_COMPRESSORS:
        return compressor(query, blocks, chat)
    judge = check_judge(chat, f"compression ({name})", compression_probe(compressor), 0.5,
                        f"compress-{name}-v1")
    if judge is None or judge.trusted:
        return compressor(query, blocks, chat)
    kept, step = sentence_filter(query, blocks, None)
    return kept, replace(step, step=f"compress:{name}", status="fallback",
                         warnings=(f"{judge.describe()}: sentences filtered offline", *step.warnings))
