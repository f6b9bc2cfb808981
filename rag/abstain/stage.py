"""Pipeline stage "abstain": decide whether to give the answer or decline, and say why.

Runs after `ground`. It gathers the signals the earlier stages left (the context, the answer, the
grounding report, the intent) plus two of its own — retrieval evidence (best cosine between the
question and a retrieved chunk the context was built from) and answer relevance — and applies the
abstain section's rules in a fixed order; the first that fires is the reason. A declined run's
answer becomes the preset's `abstain.message`; the answer it replaced stays in the output.
A run the intent router halted as off-topic reaches this stage too (`runs_after_halt`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from rag.abstain.relevance import AnswerRelevance, TextVectors, answer_relevance, cosines
from rag.context.prompts import INSUFFICIENT
from rag.context.stage import built_context
from rag.generate.stage import generated
from rag.llm.client import make_client
from rag.outputs.context import BuiltContext
from rag.outputs.generated import GenerateOutput
from rag.outputs.grounding import GroundedAnswer
from rag.query.understand import Understanding
from rag.settings.abstain import AbstainConfig
from rag.settings.embedding import EmbeddingConfig
from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageInput, StageResult, StageSpec

AbstainKind = Literal[
    "out_of_scope", "no_context", "weak_evidence", "llm_declined", "no_relevant_sentence",
    "irrelevant_answer", "ungrounded", "low_confidence",
]  # fmt: skip
EVIDENCE_PASSAGES = 5  # without a context stage: the first candidates stand for the context
# Below this answer relevance a grounded answer is called "grounded but irrelevant" (a note; the
# decision uses abstain.min_answer_relevance). Offline relevance mixes cosine and term overlap:
# an answer that shares no question word and little meaning with it lands under 0.25.
IRRELEVANT_BELOW = 0.25


@dataclass(frozen=True)
class AbstainSignals:
    """What the decision rests on; None where a signal was not available for this run."""

    evidence: float | None = None  # best cosine of the question with a passage
    relevance: AnswerRelevance | None = None
    answer_mode: str = ""  # the final answer's mode (extractive, llm, no_rag, error)
    grounded: bool | None = None  # None: the ground stage did not run
    grounded_share: float | None = None
    confidence: float | None = None  # Adaptive: relevance × grounded share
    support: float | None = None  # an extractive answer's semantic support (answer model)
    retries: int = 0
    no_context: str = ""  # why the context stage fell back to no-RAG ("" = it did not)
    out_of_scope: str = ""  # the intent router's reason, when it said off-topic


@dataclass(frozen=True)
class AbstainDecision:
    """Answered or declined; `kind` and `reason` name the first rule that fired, `fired` all."""

    abstained: bool
    signals: AbstainSignals
    kind: AbstainKind | None = None
    reason: str = ""
    fired: tuple[str, ...] = ()  # "kind: reason" for every rule that fired
    message: str = ""  # what the user was told instead (when abstained)
    original_answer: str = ""  # the answer the decision withheld (or gave)
    notes: tuple[str, ...] = ()  # e.g. "grounded but irrelevant: …"


def rules_fired(signals: AbstainSignals, settings: AbstainConfig) -> list[tuple[AbstainKind, str]]:
    """Every rule that fires for these signals, in decision order (first = the reason)."""
    s = signals
    fired: list[tuple[AbstainKind, str]] = []
    if settings.on_out_of_scope and s.out_of_scope:
        fired.append(("out_of_scope", f"the intent router called it off-topic ({s.out_of_scope})"))
    if settings.on_no_context and s.no_context:
        fired.append(("no_context", f"no passage was relevant enough ({s.no_context})"))
    supported = (settings.evidence_support is not None and s.support is not None
                 and s.support >= settings.evidence_support)
    if settings.min_evidence is not None and s.evidence is not None and s.evidence < settings.min_evidence \
            and not supported:
        fired.append(("weak_evidence", f"best question–passage similarity {s.evidence:.3f} "
                                       f"< {settings.min_evidence:g}"))
    if settings.on_llm_declined and s.answer_mode in ("llm", "no_rag") and s.relevance is not None \
            and s.relevance.noncommittal:
        fired.append(("llm_declined", "the LLM said the sources do not answer the question"))
    rel = s.relevance
    if settings.on_no_relevant_sentence and s.answer_mode == "extractive" and rel is not None \
            and rel.overlap == 0:
        fired.append(("no_relevant_sentence", "no answer sentence shares a word with the question"))
    if settings.on_no_relevant_sentence and s.answer_mode == "extractive" and rel is None:
        # the extractive answerer quotes whole sentences only: the sources offered none
        fired.append(("no_relevant_sentence", "the sources hold no whole sentence to quote"))
    if settings.min_answer_relevance is not None and rel is not None \
            and rel.score < settings.min_answer_relevance:
        fired.append(("irrelevant_answer", f"answer relevance {rel.score:.3f} "
                                           f"< {settings.min_answer_relevance:g}"))
    if settings.on_ungrounded and s.grounded is False:
        share = f"{s.grounded_share:.2f}" if s.grounded_share is not None else "?"
        fired.append(("ungrounded", f"grounding failed after {s.retries} retr"
                                    f"{'y' if s.retries == 1 else 'ies'} (grounded share {share})"))
    if settings.min_confidence is not None and s.confidence is not None \
            and s.confidence < settings.min_confidence:
        fired.append(("low_confidence", f"confidence {s.confidence:.2f} < {settings.min_confidence:g}"))
    return fired


def notes_for(signals: AbstainSignals) -> tuple[str, ...]:
    """What the figures say together that neither says alone."""
    rel = signals.relevance
    if signals.grounded and rel is not None and rel.score < IRRELEVANT_BELOW:
        return (f"grounded but irrelevant: the sentences are in the sources, but the answer's "
                f"relevance to the question is {rel.score:.2f} (< {IRRELEVANT_BELOW:g})",)
    return ()


def decide(signals: AbstainSignals, settings: AbstainConfig, answer: str = "") -> AbstainDecision:
    """The decision for these signals (pure: calibration replays it with other bars)."""
    fired = rules_fired(signals, settings)
    notes = notes_for(signals)
    if not fired:
        return AbstainDecision(False, signals, original_answer=answer, notes=notes)
    kind, reason = fired[0]
    return AbstainDecision(True, signals, kind, reason, tuple(f"{k}: {r}" for k, r in fired),
                           settings.message, answer, notes)


def _out_of_scope(state: PipelineState) -> str:
    found = state.artifact("understand", Understanding)
    intent = found.intent if found is not None else None
    if intent is None or intent.intent != "off_topic":
        return ""
    return intent.reason or intent.layer


def _passages(state: PipelineState) -> list[str]:
    """The retrieved chunks the answer is written from, as retrieved: the hits behind the context
    blocks (a block expanded to a 2,000-character parent would be judged on its first tokens
    only), else the first candidates."""
    context = built_context(state)
    if context is not None and context.no_rag:
        return []
    if context is None:
        return [c.chunk.text for c in state.candidates[:EVIDENCE_PASSAGES]]
    hits = {hit for b in context.blocks for hit in (b.hit_ids or (b.chunk_id,))}
    texts = [c.chunk.text for c in state.candidates if c.chunk_id in hits]
    return texts or [b.text for b in context.blocks]


def _declined_by_llm(text: str) -> bool:
    return INSUFFICIENT.rstrip(".").lower() in text.lower()


def gather(state: PipelineState, env: StageEnv, embedder: TextVectors) -> AbstainSignals:
    """The signals of a run that reached this stage with an answer."""
    settings = env.config.abstain
    question = state.queries[0].text if state.queries else state.query
    passages = _passages(state)
    evidence = max(cosines(embedder, question, passages)) if passages else None
    grounded = state.artifact("ground", GroundedAnswer)
    # the answer that stands: grounding may have replaced the generate stage's first one
    answer = grounded.answer if grounded is not None else generated(state)
    context = built_context(state)
    relevance = None
    text = state.answer or ""
    if answer is not None and text:
        use_llm = settings.relevance_method == "llm" or (
            settings.relevance_method == "auto" and answer.mode == "llm")
        chat = make_client(env.shared.llm)[0] if use_llm else None
        relevance = answer_relevance(state.query, text, embedder, chat=chat,
                                     n_questions=settings.llm_questions,
                                     embedding_weight=settings.embedding_weight)
        if answer.mode in ("llm", "no_rag") and _declined_by_llm(text):
            relevance = replace(relevance, noncommittal=True)
    report = grounded.report if grounded is not None else None
    return AbstainSignals(
        evidence=evidence,
        relevance=relevance,
        answer_mode=answer.mode if answer is not None else "",
        grounded=report.is_grounded if report is not None else None,
        grounded_share=report.grounded_share if report is not None else None,
        confidence=report.confidence if report is not None else None,
        support=answer.support if answer is not None else None,
        retries=grounded.retried if grounded is not None else 0,
        no_context=(context.reason or "no-RAG fallback") if context is not None and context.no_rag else "",
    )


def _embedder(embedding: EmbeddingConfig) -> TextVectors:
    from rag.embed import get_embedder  # late: loads the preset's model on first use

    return get_embedder(embedding)


def run_abstain(state: PipelineState, env: StageEnv) -> StageResult:
    settings = env.config.abstain
    if state.halted:
        out = _out_of_scope(state)
        if not out:
            return StageResult(state, status="skipped", reason=f"not reached: {state.halted}")
        decision = decide(AbstainSignals(out_of_scope=out), settings, state.answer or "")
    elif not state.answer and not _quoted_nothing(state):
        return StageResult(state, status="skipped", reason="no answer to decide on")
    else:
        decision = decide(gather(state, env, _embedder(env.shared.embedding)), settings, state.answer or "")
    relevance = decision.signals.relevance
    warnings = relevance.warnings if relevance is not None else ()
    if not decision.abstained:
        return StageResult(state, decision, {"answer_chars": len(state.answer or "")}, "ok", warnings)
    declined = replace(state, answer=settings.message, withheld=f"{decision.kind}: {decision.reason}")
    return StageResult(declined, decision, {"answer_chars": len(state.answer or "")}, "ok",
                       warnings, f"declined ({decision.kind}): {decision.reason}")


def _quoted_nothing(state: PipelineState) -> bool:
    """The extractive answerer found no whole sentence to quote: an empty answer to decline."""
    answer = generated(state)
    return answer is not None and answer.mode == "extractive" and not answer.text


def declined(decision: AbstainDecision | None) -> bool:
    return decision is not None and decision.abstained


def _off(config: PipelineConfig) -> str | None:
    return None if config.abstain.enabled else "abstain.enabled is false"


STAGES.add("abstain", StageSpec("abstain", run_abstain, AbstainDecision, _off,
                                settings=lambda c: c.abstain, runs_after_halt=True,
                                inputs=(StageInput("understand", Understanding),
                                        StageInput("context", BuiltContext),
                                        StageInput("generate", GenerateOutput),
                                        StageInput("ground", GroundedAnswer))))
