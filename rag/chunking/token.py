"""Token windows: sizes counted in the embedder's own tokenizer (MiniLM word pieces by
default), so no chunk is silently truncated at embedding time. Offsets come from the fast
tokenizer's offset mapping; windows end and restart at word boundaries where they can."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.models import load_tokenizer
from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import make_chunk, trim
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, smaller_than


class TokenSettings(StrategySettings):
    size: int = Field(256, ge=1, description="maximum tokens per chunk (MiniLM reads 256)")
    overlap: int = Field(32, ge=0, description="tokens shared by consecutive chunks")
    tokenizer: str | None = Field(None, description="model folder or name; None = MiniLM")

    @field_validator("overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        return smaller_than("size", value, info)


def token_windows(word_ids: Sequence[int | None], size: int, overlap: int) -> list[tuple[int, int]]:
    """`[s, e)` token windows of at most `size` tokens and at most `overlap` shared tokens,
    cut between words unless a single word is longer than the window. No tokens: [(0, 0)]."""
    n = len(word_ids)

    def word_start(i: int) -> bool:
        return i == 0 or i >= n or word_ids[i] != word_ids[i - 1]

    windows: list[tuple[int, int]] = []
    s = 0
    while True:
        e = min(s + size, n)
        back = e
        while back > s and not word_start(back):
            back -= 1
        # Cut inside a word only if ending at a word start would add nothing new.
        e = back if back > max(s, windows[-1][1] if windows else 0) else e
        windows.append((s, e))
        if e >= n:
            return windows
        nxt = max(e - overlap, s + 1)
        while nxt < e and not word_start(nxt):
            nxt += 1
        s = nxt


class TokenChunker:
    """Windows of `size` tokens stepping back `overlap` tokens, as character spans."""

    name = "token"

    def __init__(self, settings: TokenSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        text = document.text
        encoding = load_tokenizer(s.tokenizer).encode(text, add_special_tokens=False)
        offsets = encoding.offsets
        n = len(offsets)
        chunks: list[Chunk] = []
        seen: set[tuple[int, int]] = set()
        for first, stop in token_windows(encoding.word_ids, s.size, s.overlap):
            # Characters the tokenizer drops (control chars, lone accents) stay inside a
            # window: it runs from its first token to the next window's token (or an edge).
            start = 0 if first == 0 else offsets[first][0]
            end = len(text) if stop >= n else offsets[stop][0]
            span = trim(text, start, end)
            if span is None or span in seen:
                continue
            seen.add(span)
            chunks.append(
                make_chunk(
                    document,
                    span,
                    strategy=self.name,
                    index=len(chunks),
                    metadata={"tokens": stop - first},
                )
            )
        return chunks


STRATEGIES.add("token", (TokenSettings, TokenChunker))
