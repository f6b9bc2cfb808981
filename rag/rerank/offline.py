"""Which reranker runs on this machine without a network: a page's starting point.

A preset may name a cross-encoder that is not on disk here, or an LLM grader that needs an
endpoint; the Rerank page then starts with the embedding scorer (the embedding model the
collection already uses) and says why, so its first run shows a reranking rather than a skip.
"""

from __future__ import annotations

from rag.settings.rerank import RerankConfig

OFFLINE_METHOD = "embedding"


def runs_offline(cfg: RerankConfig) -> bool:
    """True when `cfg.method` can score here without a download or an LLM endpoint."""
    if cfg.method == "cross_encoder":
        from rag.rerank.cross_encoder import available_offline, resolve_model

        return cfg.model is not None and available_offline(resolve_model(cfg.model))
    return cfg.method == OFFLINE_METHOD


def offline_default(cfg: RerankConfig) -> tuple[RerankConfig, str]:
    """`cfg`, or `cfg` with the embedding scorer when its own cannot run offline, and why."""
    if runs_offline(cfg):
        return cfg, ""
    what = f"cross-encoder {cfg.model!r} is not on this machine" if cfg.method == "cross_encoder" \
        and cfg.model else "no cross-encoder is configured" if cfg.method == "cross_encoder" \
        else f"the {cfg.method} reranker needs an endpoint"
    return (cfg.model_copy(update={"method": OFFLINE_METHOD}),
            f"The preset's reranker does not run offline here ({what}): the page starts with the "
            f"{OFFLINE_METHOD} scorer (the Reranker box offers the others).")
