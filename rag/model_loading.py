"""Load the models a config's stages will use before a run, so a load is timed and reported on
its own (`python -m rag query` prints it as one line) instead of inside the first stage that
needs it. Models are process-wide: a second run in the same process loads nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rag.settings.pipeline import PipelineConfig


@dataclass(frozen=True)
class ModelLoad:
    """One model a run needs: what it is, whether this call loaded it, and how long that took."""

    kind: str  # "embedding" or "cross-encoder"
    name: str
    loaded: bool  # False: the process already held it
    seconds: float
    error: str = ""  # it could not be loaded (the stage that needs it reports the same)

    def describe(self) -> str:
        if self.error:
            return f"{self.kind} model {self.name}: not loaded ({self.error})"
        if not self.loaded:
            return f"{self.kind} model {self.name}: already loaded"
        return f"{self.kind} model {self.name}: loaded in {self.seconds:.1f} s"


def _embedding(config: PipelineConfig) -> ModelLoad:
    from rag.embed import EmbeddingModelError, is_loaded, load_backend

    cfg = config.embedding
    name = cfg.model_path or (cfg.model if cfg.backend != "hashing" else "hashing")
    if is_loaded(cfg):
        return ModelLoad("embedding", name, loaded=False, seconds=0.0)
    started = time.perf_counter()
    try:
        load_backend(cfg)
    except EmbeddingModelError as exc:
        return ModelLoad("embedding", name, False, time.perf_counter() - started, str(exc))
    return ModelLoad("embedding", name, loaded=True, seconds=time.perf_counter() - started)


def _cross_encoder(config: PipelineConfig) -> ModelLoad | None:
    cfg = config.rerank
    if not cfg.enabled or cfg.method != "cross_encoder" or not cfg.model:
        return None
    from rag.rerank.base import RerankUnavailable
    from rag.rerank.cross_encoder import load_cross_encoder, resolve_model

    model = resolve_model(cfg.model)
    before = load_cross_encoder.cache_info().currsize
    started = time.perf_counter()
    try:
        load_cross_encoder(model, cfg.max_length, cfg.allow_download)
    except RerankUnavailable as exc:
        return ModelLoad("cross-encoder", model, False, time.perf_counter() - started, str(exc))
    loaded = load_cross_encoder.cache_info().currsize > before
    return ModelLoad("cross-encoder", model, loaded, time.perf_counter() - started)


def load_models(config: PipelineConfig) -> tuple[ModelLoad, ...]:
    """Load (once per process) the embedding model when the config searches dense vectors and
    the cross-encoder when it reranks with one."""
    loads: list[ModelLoad] = []
    if "dense" in config.retrieval.retrievers:
        loads.append(_embedding(config))
    cross = _cross_encoder(config)
    if cross is not None:
        loads.append(cross)
    return tuple(loads)
