"""Turn ranked candidates into context blocks: as retrieved, parent expansion (Axiom), document
expansion (Vexora) or the summarize path (Axiom: every chunk of the document in order)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rag.outputs.context import BlockOrigin, ChunkLookup, ContextBlock, StepReport, context_step
from rag.records.chunk import Chunk
from rag.records.hits import Candidate
from rag.registry import Registry
from rag.settings.context import ContextConfig

Expansion = Callable[
    [Sequence[Candidate], ChunkLookup | None, ContextConfig], tuple[list[ContextBlock], StepReport]
]
EXPANSIONS: Registry[Expansion] = Registry("context expansion")


def block_for(
    chunk: Chunk, hit: Candidate, rank: int, origin: BlockOrigin = "retrieved", hit_ids: tuple[str, ...] = ()
) -> ContextBlock:
    """A verbatim block holding `chunk`, credited with `hit`'s score and rank."""
    meta = chunk.metadata
    page = meta.get("page")
    return ContextBlock(
        text=chunk.text,
        doc_id=chunk.doc_id,
        chunk_id=chunk.chunk_id,
        start=chunk.start,
        end=chunk.end,
        score=hit.score,
        rank=rank,
        origin=origin,
        hit_ids=hit_ids or (hit.chunk_id,),
        title=str(meta.get("title") or meta.get("source") or chunk.doc_id),
        page=page if isinstance(page, int) else None,
    )


def _window(chunk: Chunk, around: Chunk, max_chars: int) -> Chunk:
    """At most `max_chars` of `chunk`, kept around the hit `around`, cut at word boundaries."""
    if chunk.size <= max_chars:
        return chunk
    text = chunk.text
    centre = (max(around.start, chunk.start) + min(around.end, chunk.end)) // 2 - chunk.start
    lo = max(0, min(centre - max_chars // 2, len(text) - max_chars))
    hi = lo + max_chars
    if lo > 0 and " " in text[lo:hi]:
        lo = text.index(" ", lo) + 1
    if hi < len(text) and " " in text[lo:hi]:
        hi = text.rindex(" ", lo, hi)
    start = chunk.start + lo
    return Chunk(
        chunk.chunk_id,
        chunk.doc_id,
        start,
        chunk.start + hi,
        text[lo:hi],
        chunk.parent_id,
        chunk.level,
        chunk.metadata,
    )


@EXPANSIONS.register("none")
def as_retrieved(
    candidates: Sequence[Candidate], lookup: ChunkLookup | None, settings: ContextConfig
) -> tuple[list[ContextBlock], StepReport]:
    """One block per candidate, in rank order."""
    blocks = [block_for(c.chunk, c, rank) for rank, c in enumerate(candidates, 1)]
    return blocks, context_step("expand:none", len(candidates), len(blocks), "chunks as retrieved")


def _as_retrieved_because(
    name: str, candidates: Sequence[Candidate], what: str
) -> tuple[list[ContextBlock], StepReport]:
    """Without a chunk lookup an expansion degrades to the chunks as retrieved, and says so."""
    blocks = [block_for(c.chunk, c, rank) for rank, c in enumerate(candidates, 1)]
    warning = f"no chunk lookup given: {what}"
    return blocks, context_step(name, len(candidates), len(blocks), warnings=(warning,))


@EXPANSIONS.register("parent")
def parent_expansion(
    candidates: Sequence[Candidate], lookup: ChunkLookup | None, settings: ContextConfig
) -> tuple[list[ContextBlock], StepReport]:
    """Axiom: replace each child by its parent's text, once per parent_id, keeping the best score."""
    if lookup is None:
        return _as_retrieved_because("expand:parent", candidates, "parents not expanded")
    blocks: list[ContextBlock] = []
    where: dict[str, int] = {}  # parent id -> index in blocks
    missing = 0
    for rank, cand in enumerate(candidates, 1):
        parent = lookup.get_chunk(cand.chunk.parent_id) if cand.chunk.parent_id else None
        if cand.chunk.parent_id and parent is None:
            missing += 1
        if parent is None:
            blocks.append(block_for(cand.chunk, cand, rank))
        elif parent.chunk_id in where:  # duplicate parent: fold the hit in, skip the text
            i = where[parent.chunk_id]
            blocks[i] = _with_hit(blocks[i], cand.chunk_id)
        else:
            where[parent.chunk_id] = len(blocks)
            window = _window(parent, cand.chunk, settings.parent_max_chars)
            blocks.append(block_for(window, cand, rank, "parent"))
    warnings = (f"{missing} parent id(s) not found in the collection",) if missing else ()
    detail = (
        f"{len(where)} parent(s) replaced their children; {len(candidates) - len(blocks)} duplicate(s) folded"
    )
    return blocks, context_step("expand:parent", len(candidates), len(blocks), detail, warnings)


def _with_hit(block: ContextBlock, hit_id: str) -> ContextBlock:
    return replace(block, hit_ids=(*block.hit_ids, hit_id))


@EXPANSIONS.register("document")
def document_expansion(
    candidates: Sequence[Candidate], lookup: ChunkLookup | None, settings: ContextConfig
) -> tuple[list[ContextBlock], StepReport]:
    """Vexora: after the hits, add sibling chunks of the top documents whose best hit scores at
    least `expand_threshold` (at most `expand_documents` documents, `expand_max_chunks` each)."""
    if lookup is None:
        return _as_retrieved_because("expand:document", candidates, "documents not expanded")
    blocks, _ = as_retrieved(candidates, lookup, settings)
    best: dict[str, tuple[int, Candidate]] = {}
    for rank, cand in enumerate(candidates, 1):
        best.setdefault(cand.chunk.doc_id, (rank, cand))
    chosen = [d for d, (_, c) in best.items() if c.score >= settings.expand_threshold]
    chosen = chosen[: settings.expand_documents]
    present = {c.chunk_id for c in candidates}
    added = 0
    for doc_id in chosen:
        rank, hit = best[doc_id]
        siblings = [
            s
            for s in lookup.document_chunks(doc_id)
            if s.level == hit.chunk.level and s.chunk_id not in present
        ]
        for sibling in siblings[: settings.expand_max_chunks]:
            blocks.append(block_for(sibling, hit, rank, "document", hit_ids=(hit.chunk_id,)))
            added += 1
    detail = (
        f"{len(chosen)} document(s) with best score >= {settings.expand_threshold} "
        f"expanded by {added} chunk(s)"
    )
    return blocks, context_step("expand:document", len(candidates), len(blocks), detail)


@EXPANSIONS.register("summarize")
def summarize_path(
    candidates: Sequence[Candidate], lookup: ChunkLookup | None, settings: ContextConfig
) -> tuple[list[ContextBlock], StepReport]:
    """Axiom summarize: every chunk of the top hit's document in order, one block per parent."""
    if not candidates:
        return [], context_step("expand:summarize", 0, 0, "nothing retrieved")
    if lookup is None:
        return _as_retrieved_because("expand:summarize", candidates, "document not loaded")
    top = candidates[0]
    chunks = [c for c in lookup.document_chunks(top.chunk.doc_id) if c.level != "parent"]
    blocks: list[ContextBlock] = []
    seen: set[str] = set()
    for chunk in chunks or [top.chunk]:
        parent = lookup.get_chunk(chunk.parent_id) if chunk.parent_id else None
        source = parent or chunk
        if source.chunk_id in seen:
            continue
        seen.add(source.chunk_id)
        blocks.append(block_for(source, top, 1, "summary", hit_ids=(top.chunk_id,)))
    detail = f"document {top.chunk.doc_id}: {len(chunks)} chunk(s) as {len(blocks)} block(s) in order"
    return blocks, context_step("expand:summarize", len(candidates), len(blocks), detail)
