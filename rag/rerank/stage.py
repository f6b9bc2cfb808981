"""Pipeline stage "rerank": reads the first top_n × overfetch fused candidates, returns top_n.

A scorer that cannot run (no cross-encoder configured, no LLM endpoint) leaves the ranking as
it was and says which setting to change; a call that fails keeps the input order, as a fallback.
"""

from __future__ import annotations

from dataclasses import replace

from rag.llm.base import ChatModel
from rag.llm.client import make_client
from rag.rerank.base import RerankResult
from rag.rerank.rerank import rerank
from rag.settings.llm import LLMEndpoint
from rag.settings.pipeline import PipelineConfig
from rag.settings.rerank import RerankConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageResult, StageSpec


def rerank_chat(cfg: RerankConfig, endpoint: LLMEndpoint) -> ChatModel | None:
    """The run's LLM client with the rerank section's model and time limit, or None offline."""
    llm = cfg.llm
    update: dict[str, object] = {"timeout_s": llm.timeout_s}
    if llm.model:
        update["model"] = llm.model
    return make_client(endpoint.model_copy(update=update))[0]


def run_rerank(state: PipelineState, env: StageEnv) -> StageResult:
    cfg = env.config.rerank
    chat = rerank_chat(cfg, env.shared.llm) if cfg.method == "llm" else None
    query = state.queries[0].text if state.queries else state.query  # the rewritten query
    result = rerank(query, state.candidates, cfg, chat=chat)
    inputs = {"query": query, "candidates": len(state.candidates), "window": len(result.before)}
    next_state = state
    if result.status != "skipped":  # skipped: the ranking stays as it was
        next_state = replace(state, candidates=result.after)
    warnings = result.warnings + ((result.reason,) if result.status == "skipped" else ())
    return StageResult(next_state, result, inputs, result.status,
                       tuple(dict.fromkeys(warnings)), result.reason)


def _off(config: PipelineConfig) -> str | None:
    return None if config.rerank.enabled else "rerank.enabled is false"


STAGES.add("rerank", StageSpec("rerank", run_rerank, RerankResult, _off, settings=lambda c: c.rerank))
