"""What an extractive answer is checked against: its context, with each block's text extended by
the whole sentences the answer quoted from that block's document (a sentence a chunk boundary
cut is completed from the document, rag.generate.whole_sentences, and cited as the block)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rag.outputs.context import BuiltContext
from rag.outputs.generated import Quote


def with_quotes(context: BuiltContext, quotes: Sequence[Quote]) -> BuiltContext:
    """`context` whose cited blocks also carry the completed sentences quoted from them; the
    same context when no quote was completed. The blocks keep their numbers and spans."""
    extra: dict[int, list[str]] = {}
    for quote in quotes:
        block = context.block(quote.n)
        if quote.completed and block is not None and quote.text not in block.text:
            extra.setdefault(quote.n, []).append(quote.text)
    if not extra:
        return context
    blocks = tuple(
        replace(b, text="\n\n".join([b.text, *extra[b.n]])) if b.n in extra else b for b in context.blocks
    )
    return replace(context, blocks=blocks)
