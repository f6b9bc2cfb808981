"""Cross-encoder scorer: sentence-transformers `CrossEncoder` reads (query, passage) jointly.

Nogueira & Cho 2019 (BERT passage re-ranking); the seeds use cross-encoder/ms-marco-MiniLM-L-6-v2
(Axiom, IntelliDocs) and BAAI/bge-reranker-v2-m3 (Vexora). Returns raw logits; the stage
normalizes them (sigmoid by default, as Axiom does).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rag.paths import PROJECT_ROOT
from rag.rerank.base import RerankCallFailed, RerankUnavailable, ScoreBatch

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

    from rag.settings.rerank import RerankConfig

NOT_CONFIGURED = (
    "no cross-encoder configured: set rerank.model to a cross-encoder name or local folder "
    "(e.g. cross-encoder/ms-marco-MiniLM-L-6-v2 or BAAI/bge-reranker-v2-m3). No cross-encoder "
    "ships on PyPI, so download one once where a model hub is reachable, or use rerank.method=llm."
)


def available_offline(model: str) -> bool:
    """A local folder, or a hub name whose config is in the Hugging Face cache. Checked before
    importing sentence-transformers (and torch), which takes seconds only to find nothing."""
    if Path(model).is_dir():
        return True
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except ValueError:  # HFValidationError: neither a folder nor a valid hub name
        return False


@functools.lru_cache(maxsize=4)
def load_cross_encoder(model: str, max_length: int, allow_download: bool = False) -> CrossEncoder:
    """Load once per (model, max_length); raises RerankUnavailable naming `rerank.model`."""
    if not allow_download and not available_offline(model):
        raise RerankUnavailable(
            f"cross-encoder {model!r} could not be loaded (no such folder, and not in the Hugging "
            "Face cache). Set rerank.model to a local folder holding a cross-encoder, or to a hub "
            "name that is cached here (rerank.allow_download: true fetches it where a hub is "
            "reachable)."
        )
    from sentence_transformers import CrossEncoder

    try:
        encoder = CrossEncoder(
            model, device="cpu", max_length=max_length, local_files_only=not allow_download
        )
    except (OSError, ValueError) as exc:  # not on disk / hub unreachable / not a model folder
        raise RerankUnavailable(
            f"cross-encoder {model!r} could not be loaded ({type(exc).__name__}: {exc}). "
            "Set rerank.model to a local folder holding a cross-encoder, or to a hub name that "
            "is cached here (rerank.allow_download: true fetches it where a hub is reachable)."
        ) from exc
    if encoder.config.num_labels != 1:
        raise RerankUnavailable(
            f"{model!r} has {encoder.config.num_labels} output labels; rerank.model must be a "
            "relevance cross-encoder with one output"
        )
    return encoder


class CrossEncoderScorer:
    """Scores pairs with a loaded CrossEncoder; raw logits out (activation turned off)."""

    name = "cross_encoder"

    def __init__(
        self, model: str, max_length: int = 512, batch_size: int = 16, allow_download: bool = False
    ) -> None:
        self.model = model
        self.batch_size = batch_size
        self._encoder = load_cross_encoder(model, max_length, allow_download)

    def score(self, query: str, passages: Sequence[str]) -> ScoreBatch:
        import torch

        if not passages:
            return ScoreBatch((), "logit", self.model, 0.0)
        start = time.perf_counter()
        try:
            logits = self._encoder.predict(
                [(query, p) for p in passages], batch_size=self.batch_size,
                activation_fn=torch.nn.Identity(), show_progress_bar=False,
            )
        except RuntimeError as exc:  # e.g. tokenizer/model mismatch surfacing at run time
            raise RerankCallFailed(f"cross-encoder {self.model!r} failed: {exc}") from exc
        seconds = time.perf_counter() - start
        return ScoreBatch(tuple(float(x) for x in logits), "logit", self.model, seconds)


def resolve_model(model: str) -> str:
    """A relative folder under the project root resolves there, so a preset's
    `rerank.model: datasets/build/...` works from any working directory; hub names pass through."""
    folder = PROJECT_ROOT / model
    return str(folder) if not Path(model).is_absolute() and folder.is_dir() else model


def build(cfg: RerankConfig) -> CrossEncoderScorer:
    """The registry factory: RerankUnavailable with the setting to change when none is set."""
    if not cfg.model:
        raise RerankUnavailable(NOT_CONFIGURED)
    return CrossEncoderScorer(resolve_model(cfg.model), cfg.max_length, cfg.batch_size,
                              cfg.allow_download)
