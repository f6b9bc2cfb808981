"""Pipeline stage "ground": check the answer sentence by sentence, retry an ungrounded LLM answer
with feedback (Axiom), report confidence (Adaptive); low groundedness is returned with warnings (Vexora)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rag.context.stage import built_context
from rag.generate.stage import generated
from rag.grounding.check import check_answer
from rag.grounding.evidence import with_quotes
from rag.grounding.model_checks import SentenceEmbedder, default_embedder
from rag.grounding.retry import GroundedAnswer, ground_with_retry
from rag.llm.client import make_client
from rag.outputs.context import BuiltContext
from rag.outputs.generated import GeneratedAnswer, GenerateOutput
from rag.outputs.grounding import GroundingReport
from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageInput, StageResult, StageSpec


class LazyEmbedder:
    """Loads the default embedder on first use: most answers never reach the ambiguous band."""

    def __init__(self) -> None:
        self._embedder: SentenceEmbedder | None = None

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder.embed_documents(texts)


def run_ground(state: PipelineState, env: StageEnv) -> StageResult:
    settings = env.config.grounding
    answer, context = generated(state), built_context(state)
    if answer is None or context is None:
        return StageResult(state, status="skipped", reason="no generated answer to check")
    if context.no_rag:
        return StageResult(state, status="skipped", reason="no-RAG answer: no context to ground against")
    context = with_quotes(context, answer.quotes)  # whole sentences completed from the document
    chat, _ = make_client(env.shared.llm) if settings.model_check in ("auto", "llm") else (None, "")
    embedder = LazyEmbedder() if settings.model_check in ("auto", "embedding") else None

    def check(text: str) -> GroundingReport:
        support = answer.support if text == answer.text else None  # a retry's answer has none
        return check_answer(state.query, text, context, settings, embedder=embedder, chat=chat,
                            support=support)

    again = produced.again if (produced := state.artifact("generate", GenerateOutput)) else None

    def regenerate(feedback: str) -> GeneratedAnswer:
        assert again is not None
        return again(feedback, chat)

    retry = regenerate if chat is not None and again is not None else None
    result = ground_with_retry(answer, check, retry, settings.max_retries)
    report = result.report
    warnings = list(report.warnings)
    if not report.is_grounded:
        unsupported = len(report.unsupported)
        warnings.append(
            f"answer not grounded: {unsupported} of {len(report.sentences)} sentence(s) "
            f"unsupported (grounded share {report.grounded_share:.2f})"
        )
    new_state = replace(state, answer=result.answer.text)
    return StageResult(new_state, result, {"sentences": len(report.sentences)}, "ok", tuple(warnings))


def _off(config: PipelineConfig) -> str | None:
    return None if config.grounding.enabled else "grounding.enabled is false"


STAGES.add("ground", StageSpec("ground", run_ground, GroundedAnswer, _off, settings=lambda c: c.grounding,
                               inputs=(StageInput("context", BuiltContext),
                                       StageInput("generate", GenerateOutput))))
