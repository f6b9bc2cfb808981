"""Sentence de-duplication across blocks (EchoMind, Jaccard) and block ordering (rank, sandwich,
document order)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rag.outputs.context import ContextBlock, StepReport, context_step
from rag.registry import Registry
from rag.text import content_words, jaccard, split_sentences


def dedupe_sentences(
    blocks: Sequence[ContextBlock], threshold: float
) -> tuple[list[ContextBlock], StepReport]:
    """EchoMind `_dedupe_overlapping_sentences`: drop a sentence whose content-word set has Jaccard
    similarity >= `threshold` with a sentence kept earlier; blocks left empty are dropped."""
    kept_sets: list[set[str]] = []
    out: list[ContextBlock] = []
    dropped = 0
    for block in blocks:
        sentences = split_sentences(block.text)
        kept = []
        for sentence in sentences:
            words = set(content_words(sentence.text))
            if words and any(jaccard(words, seen) >= threshold for seen in kept_sets):
                dropped += 1
                continue
            kept.append(sentence)
            if words:
                kept_sets.append(words)
        if len(kept) == len(sentences):
            out.append(block)
        elif kept:
            out.append(replace(block, text=" ".join(s.text for s in kept), verbatim=False))
    detail = f"{dropped} sentence(s) with Jaccard >= {threshold} dropped"
    return out, context_step("dedupe", len(blocks), len(out), detail)


Ordering = Callable[[Sequence[ContextBlock]], list[ContextBlock]]
ORDERINGS: Registry[Ordering] = Registry("context ordering")


@ORDERINGS.register("rank")
def by_rank(blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """Best first: the order the blocks arrive in."""
    return list(blocks)


@ORDERINGS.register("sandwich")
def sandwich(blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """Adaptive / "Lost in the Middle" (Liu et al. 2023): best blocks at both ends, weakest in the
    middle. Ranks 1, 3, 5, … go to the front, ranks 2, 4, 6, … fill in from the back."""
    front = list(blocks[0::2])
    back = list(blocks[1::2])
    return front + back[::-1]


@ORDERINGS.register("document")
def in_document_order(blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """Document by document (in order of first appearance), each in reading order (summaries)."""
    first_seen: dict[str, int] = {}
    for block in blocks:
        first_seen.setdefault(block.doc_id, len(first_seen))
    return sorted(blocks, key=lambda b: (first_seen[b.doc_id], b.start, b.end))


def order_blocks(name: str, blocks: Sequence[ContextBlock]) -> tuple[list[ContextBlock], StepReport]:
    """Order with the named strategy, then number the blocks [Source 1..n] in prompt order."""
    ordered = ORDERINGS.get(name)(blocks)
    numbered = [replace(b, n=i) for i, b in enumerate(ordered, 1)]
    detail = "prompt order by rank: " + ", ".join(str(b.rank) for b in numbered)
    return numbered, context_step(f"order:{name}", len(blocks), len(numbered), detail)
