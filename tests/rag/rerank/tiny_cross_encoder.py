"""A tiny BERT cross-encoder built on the spot (no model hub): random weights, a WordPiece
vocabulary made from the test corpus. Its scores mean nothing; it exercises the real
sentence-transformers CrossEncoder code path (tokenizer, model, predict) end to end."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_tiny_cross_encoder(folder: Path, texts: Iterable[str], seed: int = 0) -> Path:
    """Save a 1-layer, 32-wide BertForSequenceClassification (one label) with its tokenizer."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    letters = sorted({ch for w in words for ch in w})
    vocab = SPECIAL + words + [f"##{ch}" for ch in letters if f"##{ch}" not in words]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"))
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, num_labels=1, initializer_range=0.5,
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
