"""Every LLM stage switched on, and how usable the model's replies were.

`LLM_STAGES` are the config overrides that switch on the LLM stages of the seed systems in any
preset (`eval run --llm-stages`): EchoMind's multi-query, Adaptive's HyDE, step-back and RAG-Fusion,
EchoMind's LLM rerank and compression, generation, Axiom's LLM grounding, and ragas answer
relevance in the abstain stage. The LLM intent router is on by default; the LLM classifier,
router and Self-RAG grader stay as each preset has them (each is one more call per query or
passage). The usability figures come from
rag.llm.usability: one tally per preset, ragas's LLM metrics added per sample.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from eval.scoring.answers import LLM_METRICS, RagasJudge, ragas_judge
from eval.scoring.metrics import MetricScores
from rag.llm.local_server import connected_llm
from rag.llm.usability import UsabilityTally

LLM_STAGES: Mapping[str, Any] = {
    "query.enabled": True,
    "query.intent.use_llm": True,
    "query.expand.methods": ["multi_query", "hyde", "step_back", "rag_fusion"],
    "query.expand.hyde_max_words": 1000,  # Adaptive uses HyDE on short queries only: here on all
    "context.enabled": True,
    "context.compression": "llm",
    "rerank.enabled": True,
    "rerank.method": "llm",
    "generation.enabled": True,
    "generation.mode": "llm",
    "grounding.enabled": True,
    "grounding.model_check": "llm",
    "abstain.relevance_method": "llm",
}


def endpoint_judge(max_tokens: int | None = None) -> RagasJudge:
    """A ragas judge on the endpoint OPENAI_BASE_URL names, with the first model it serves;
    ValueError when there is none (ragas's LLM metrics were asked for)."""
    found = connected_llm()
    if found.model is None or found.base_url is None:
        raise ValueError(f"--llm-metrics needs an LLM endpoint: {found.detail}")
    return ragas_judge(found.base_url, found.model, os.environ.get("OPENAI_API_KEY") or "none",
                       max_tokens=max_tokens)


def record_metric_outcomes(scores: Mapping[str, MetricScores], tally: UsabilityTally) -> None:
    """ragas's LLM metrics per sample: a score is a usable reply, a failure (unparsed structured
    output, a timeout) is a fallback with its reason."""
    for name, metric in scores.items():
        if name not in LLM_METRICS:
            continue
        for _ in metric.values:
            tally.record(f"ragas.{name}", "ok")
        for reason in metric.failed.values():
            tally.record(f"ragas.{name}", "fallback", reason.split(":")[0])


def usability_table(tallies: Mapping[str, UsabilityTally]) -> str:
    """Plain text: one line per (preset, parser) with its counts and usable share."""
    lines = []
    for preset, tally in tallies.items():
        for parser, figures in tally.as_json().items():
            top = next(iter(figures["reasons"]), "")
            lines.append(f"{preset:12} {parser:26} ok {figures['ok']:3} repaired {figures['repaired']:3} "
                         f"fallback {figures['fallback']:3}  usable {figures['usable_share']:.2f}"
                         + (f"  ({top})" if top else ""))
    return "\n".join(lines)
