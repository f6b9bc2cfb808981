"""The scorer registry: `rerank.method` -> a factory building that Scorer (each imports its
model code on first use); `build_scorer(cfg, chat)` builds the configured one or raises
RerankUnavailable naming the setting to change."""


from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rag.llm.base import ChatModel
from rag.registry import Registry
from rag.rerank.base import RerankUnavailable, Scorer

if TYPE_CHECKING:  # the settings validate `method` against SCORERS (a late import of this module)
    from rag.settings.rerank import RerankConfig

ScorerFactory = Callable[["RerankConfig", ChatModel | None], Scorer]
SCORERS: Registry[ScorerFactory] = Registry("rerank")


@SCORERS.register("cross_encoder")
def _cross_encoder(cfg: RerankConfig, chat: ChatModel | None) -> Scorer:
    from rag.rerank.cross_encoder import build  # late: sentence-transformers is heavy

    return build(cfg)


@SCORERS.register("llm")
def _llm(cfg: RerankConfig, chat: ChatModel | None) -> Scorer:
    from rag.rerank.llm import LLMScorer

    if chat is None:
        raise RerankUnavailable(
            "rerank.method is 'llm' but no LLM endpoint is configured: set OPENAI_BASE_URL "
            "(and OPENAI_API_KEY), or use rerank.method: cross_encoder with rerank.model set"
        )
    from rag.llm.judge_check import check_judge
    from rag.rerank.llm import RANKING_PROBE, ranking_probe

    judge = check_judge(chat, "ranking", ranking_probe, 0.25, RANKING_PROBE)
    if judge is not None and not judge.trusted:
        raise RerankUnavailable(f"{judge.describe()}: the excerpts keep their retrieval order")
    return LLMScorer(chat, cfg.llm.model or "generation.model", cfg.llm.batch_size,
                     cfg.llm.max_passage_chars)


@SCORERS.register("embedding")
def _embedding(cfg: RerankConfig, chat: ChatModel | None) -> Scorer:
    from rag.rerank.embedding import EmbeddingScorer  # late: loads an embedding backend

    return EmbeddingScorer(cfg.embedding)


def build_scorer(cfg: RerankConfig, chat: ChatModel | None = None) -> Scorer:
    """The scorer `cfg.method` names; RerankUnavailable when it cannot run here."""
    return SCORERS.get(cfg.method)(cfg, chat)
