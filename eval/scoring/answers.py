"""Answer metrics: ragas's (Es et al. 2023, ragas 0.4) per sample, plus our groundedness figures.

Offline, no model: ragas's non-LLM context precision / recall against reference contexts
(Levenshtein similarity ≥ 0.5 decides relevance), string similarity (1 − normalized Levenshtein),
BLEU (sacrebleu) and ROUGE-L F1 (rouge_score). With an OpenAI-compatible endpoint (`ragas_judge`):
faithfulness, answer relevancy and LLM context precision against the reference. From the trace's
`ground` stage: the share of supported sentences and the share of citing sentences whose
citations check out. A metric that raises or returns NaN on a sample is kept in `failed` with
its reason and never averaged in (eval.scoring.metrics.MetricScores).

ragas's non-LLM context metrics compare whole strings, so short span labels against 512-character
chunks stay below the 0.5 similarity bar (≈ 0): for span sets, eval.runs.evalset_runner's span-overlap chunk
metrics are the retrieval figures to read.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.data.evalsets import qa_corpus_set
from eval.data.qa import QAItem, QASet
from eval.runs.beir_index import beir_collection
from eval.scoring.abstention import AbstainOutcome
from eval.scoring.answer_form import fragment_share
from eval.scoring.metrics import MetricScores
from eval.scoring.stats import bootstrap_ci
from rag.abstain.stage import AbstainDecision
from rag.config import PipelineConfig, with_overrides
from rag.context.base import BuiltContext
from rag.generate.stage import GenerateOutput
from rag.grounding.retry import GroundedAnswer
from rag.paths import SAMPLES_DIR
from rag.pipeline import run_query
from rag.trace import Trace


@dataclass(frozen=True)
class AnswerSample:
    """One question's answer with what it is judged against; groundedness comes from the trace."""

    qid: str
    question: str
    answer: str
    contexts: tuple[str, ...] = ()  # retrieved passages, as sent to the answerer
    reference: str = ""  # reference answer
    reference_contexts: tuple[str, ...] = ()  # labeled passages (span texts)
    grounded_share: float | None = None  # None: the ground stage did not run
    citation_validity: float | None = None  # None: no sentence cites a source
    answerable: bool = True  # False: the QA row says the corpus cannot answer it
    abstained: str | None = None  # the abstain rule that declined it; None: answered (or no stage)
    written_by: str = ""  # the final answer's mode: llm, extractive (incl. an LLM's fallback), …


@dataclass(frozen=True)
class RagasJudge:
    """A ragas LLM (and embeddings, for answer relevancy) on an OpenAI-compatible endpoint."""

    llm: Any  # ragas InstructorBaseRagasLLM
    embeddings: Any = None  # ragas BaseRagasEmbedding


Scorer = Callable[[AnswerSample, RagasJudge | None], Awaitable[float]]


class MissingInput(ValueError):
    """The sample lacks what the metric needs (recorded as the failure's reason)."""


def _need(value: object, what: str) -> None:
    if not value:
        raise MissingInput(f"no {what}")


def _judge(judge: RagasJudge | None, embeddings: bool = False) -> RagasJudge:
    if judge is None:
        raise MissingInput("needs an LLM endpoint (none configured)")
    if embeddings and judge.embeddings is None:
        raise MissingInput("needs an embeddings endpoint (none configured)")
    return judge


def _ragas_metrics() -> Any:
    """ragas's metric collection, imported when a metric first scores: ragas pulls in langchain,
    openai and datasets (1.5-3 s here), which listing metrics or running a pipeline never needs."""
    from ragas.metrics import collections

    return collections


def _context_sample(s: AnswerSample) -> Any:
    from ragas.dataset_schema import SingleTurnSample

    _need(s.contexts, "retrieved contexts")
    _need(s.reference_contexts, "reference contexts")
    return SingleTurnSample(retrieved_contexts=list(s.contexts),
                            reference_contexts=list(s.reference_contexts))


async def _context_precision(s: AnswerSample, _: RagasJudge | None) -> float:
    sample = _context_sample(s)
    # not (yet) in ragas.metrics.collections in 0.4.3: the single-turn class, from its module
    from ragas.metrics._context_precision import NonLLMContextPrecisionWithReference

    return await NonLLMContextPrecisionWithReference().single_turn_ascore(sample)


async def _context_recall(s: AnswerSample, _: RagasJudge | None) -> float:
    sample = _context_sample(s)
    from ragas.metrics._context_recall import NonLLMContextRecall

    return await NonLLMContextRecall().single_turn_ascore(sample)


def _reference_metric(build: Callable[[Any], Any]) -> Scorer:
    """A metric scoring the answer against the reference; `build` makes it from ragas's
    collection on first use, then it is reused."""
    made: list[Any] = []

    async def score(s: AnswerSample, _: RagasJudge | None) -> float:
        _need(s.reference, "reference answer")
        _need(s.answer, "answer")
        if not made:
            made.append(build(_ragas_metrics()))
        return (await made[0].ascore(reference=s.reference, response=s.answer)).value

    return score


async def _faithfulness(s: AnswerSample, judge: RagasJudge | None) -> float:
    llm = _judge(judge).llm
    _need(s.answer, "answer")
    _need(s.contexts, "retrieved contexts")
    result = await _ragas_metrics().Faithfulness(llm=llm).ascore(
        user_input=s.question, response=s.answer, retrieved_contexts=list(s.contexts))
    return result.value


async def _answer_relevancy(s: AnswerSample, judge: RagasJudge | None) -> float:
    j = _judge(judge, embeddings=True)
    _need(s.answer, "answer")
    result = await _ragas_metrics().AnswerRelevancy(llm=j.llm, embeddings=j.embeddings).ascore(
        user_input=s.question, response=s.answer)
    return result.value


async def _llm_context_precision(s: AnswerSample, judge: RagasJudge | None) -> float:
    llm = _judge(judge).llm
    _need(s.reference, "reference answer")
    _need(s.contexts, "retrieved contexts")
    result = await _ragas_metrics().ContextPrecisionWithReference(llm=llm).ascore(
        user_input=s.question, reference=s.reference, retrieved_contexts=list(s.contexts))
    return result.value


def _figure(name: str, why_missing: str) -> Scorer:
    async def score(s: AnswerSample, _: RagasJudge | None) -> float:
        value = getattr(s, name)
        if value is None:
            raise MissingInput(why_missing)
        return value

    return score


OFFLINE_METRICS: Mapping[str, Scorer] = {
    "context_precision": _context_precision,
    "context_recall": _context_recall,
    "string_similarity": _reference_metric(lambda rc: rc.NonLLMStringSimilarity()),
    # effective order: short answers have no 4-grams, which would make every BLEU 0
    "bleu": _reference_metric(lambda rc: rc.BleuScore(kwargs={"use_effective_order": True})),
    "rouge_l": _reference_metric(lambda rc: rc.RougeScore(rouge_type="rougeL", mode="fmeasure")),
}
LLM_METRICS: Mapping[str, Scorer] = {
    "faithfulness": _faithfulness,
    "answer_relevancy": _answer_relevancy,
    "llm_context_precision": _llm_context_precision,
}
async def _fragment_share(s: AnswerSample, _: RagasJudge | None) -> float:
    value = fragment_share(s.answer)
    if value is None:
        raise MissingInput("an answer without sentences")
    return value


FORM_METRICS: Mapping[str, Scorer] = {"fragment_share": _fragment_share}
GROUNDING_METRICS: Mapping[str, Scorer] = {
    "grounded_share": _figure("grounded_share", "the ground stage did not run"),
    "citation_validity": _figure("citation_validity", "no sentence cites a source"),
}
ANSWER_METRICS: Mapping[str, Scorer] = {**OFFLINE_METRICS, **LLM_METRICS, **FORM_METRICS,
                                         **GROUNDING_METRICS}
DEFAULT_ANSWER_METRICS = (*OFFLINE_METRICS, *FORM_METRICS, *GROUNDING_METRICS)


def check_metrics(metrics: Sequence[str]) -> None:
    """Raise ValueError naming the valid answer metrics when one is unknown."""
    unknown = [m for m in metrics if m not in ANSWER_METRICS]
    if unknown:
        raise ValueError(f"unknown answer metric(s) {', '.join(unknown)}; "
                         f"valid: {', '.join(ANSWER_METRICS)}")


async def _one(scorer: Scorer, sample: AnswerSample, judge: RagasJudge | None) -> float | str:
    """The score, or the reason it failed: an exception's text, or NaN / not a number."""
    try:
        value = await scorer(sample, judge)
    except Exception as exc:  # noqa: BLE001 - any ragas/LLM failure is recorded per sample
        return f"{type(exc).__name__}: {exc}"
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return f"returned {value!r}, not a finite number"
    return float(value)


async def _score_all(
    samples: Sequence[AnswerSample], metrics: Sequence[str], judge: RagasJudge | None
) -> dict[str, MetricScores]:
    out = {}
    for name in metrics:
        values: dict[str, float] = {}
        failed: dict[str, str] = {}
        for sample in samples:
            result = await _one(ANSWER_METRICS[name], sample, judge)
            if isinstance(result, str):
                failed[sample.qid] = result
            else:
                values[sample.qid] = result
        out[name] = MetricScores(name, values, failed)
    return out


def answer_metrics(
    samples: Sequence[AnswerSample],
    metrics: Sequence[str] = DEFAULT_ANSWER_METRICS,
    llm: RagasJudge | None = None,
) -> dict[str, MetricScores]:
    """Every metric on every sample (sequentially: a local endpoint serves one request at a
    time); LLM metrics without `llm` fail per sample with the reason, they never raise."""
    check_metrics(metrics)
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # the usual case: no loop in this thread
        return asyncio.run(_score_all(samples, metrics, llm))
    # a notebook kernel already runs a loop here: score on a thread with its own
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _score_all(samples, metrics, llm)).result()


def ragas_judge(
    base_url: str,
    model: str,
    api_key: str = "none",
    embedding_model: str | None = None,
    timeout_s: float = 60.0,
    max_tokens: int | None = None,
) -> RagasJudge:
    """A RagasJudge on an OpenAI-compatible endpoint (embeddings only when a model is named;
    `max_tokens` caps each reply: a small local model may otherwise ramble to its limit)."""
    from openai import AsyncOpenAI
    from ragas.embeddings import embedding_factory
    from ragas.llms import llm_factory

    client = AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
    embeddings = (embedding_factory("openai", model=embedding_model, client=client)
                  if embedding_model else None)
    limits = {"max_tokens": max_tokens} if max_tokens else {}
    return RagasJudge(llm_factory(model, client=client, **limits), embeddings)


def grounding_figures(trace: Trace) -> tuple[float | None, float | None]:
    """(share of supported sentences, share of citing sentences whose citations are valid)."""
    grounded = trace.output(GroundedAnswer)
    if grounded is None:
        return None, None
    report = grounded.report
    checked = [s for s in report.sentences if s.citation_ok is not None]
    validity = sum(bool(s.citation_ok) for s in checked) / len(checked) if checked else None
    return float(report.grounded_share), validity


def trace_contexts(trace: Trace) -> tuple[str, ...]:
    """The passages the answer was written from: the context stage's blocks, in order."""
    context = trace.output(BuiltContext, "context")
    return tuple(b.text for b in context.blocks) if context is not None else ()


def written_by(trace: Trace) -> str:
    """How the answer that stands was written: the one grounding kept, else the generate
    stage's; "extractive" also when an LLM call failed and the offline answerer stood in."""
    grounded = trace.output(GroundedAnswer)
    generated = trace.output(GenerateOutput)
    answer = grounded.answer if grounded is not None else \
        generated.answer if generated is not None else None
    return answer.mode if answer is not None else ""


def answer_sources(samples: Sequence[AnswerSample]) -> dict[str, Any]:
    """Who wrote the answers, among those given and those declined, and per question: an LLM
    run's figures mix the model's answers with the extractive ones that stood in for failed calls."""
    def count(group: Sequence[AnswerSample]) -> dict[str, int]:
        return dict(Counter(s.written_by or "none" for s in group))

    return {"answered": count([s for s in samples if s.abstained is None]),
            "declined": count([s for s in samples if s.abstained is not None]),
            "by_question": {s.qid: s.written_by for s in samples}}


def sample_from_trace(
    qid: str, trace: Trace, reference: str = "", reference_contexts: Sequence[str] = (),
    answerable: bool = True,
) -> AnswerSample:
    """An AnswerSample from a full pipeline run's trace and the question's labels."""
    grounded, validity = grounding_figures(trace)
    decision = trace.output(AbstainDecision)
    return AnswerSample(
        qid=qid, question=trace.query, answer=trace.answer or "",
        contexts=trace_contexts(trace), reference=reference,
        reference_contexts=tuple(reference_contexts),
        grounded_share=grounded, citation_validity=validity, answerable=answerable,
        abstained=decision.kind if decision is not None and decision.abstained else None,
        written_by=written_by(trace),
    )


def abstain_outcomes(samples: Sequence[AnswerSample]) -> list[AbstainOutcome]:
    return [AbstainOutcome(s.qid, s.answerable, s.abstained is not None, s.abstained or "")
            for s in samples]


def answered(samples: Sequence[AnswerSample]) -> list[AnswerSample]:
    """The samples the pipeline answered (the answer metrics' population)."""
    return [s for s in samples if s.abstained is None]


# the stages that turn a ranking into a checked answer
ANSWER_STAGES = {"context.enabled": True, "generation.enabled": True, "grounding.enabled": True}


def reference_passages(item: QAItem, corpus: Mapping[str, Mapping[str, str]]) -> tuple[str, ...]:
    """The labeled span texts of a question (cut from the corpus when the label omits them)."""
    return tuple(s.text or corpus[s.doc]["text"][s.start:s.end] for s in item.spans)


def qa_traces(
    qa: QASet,
    config: PipelineConfig,
    documents_dir: Path = SAMPLES_DIR,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[QAItem, Trace, Mapping[str, Mapping[str, str]]]]:
    """Run every question of a QA set through the full pipeline of `config`: (item, trace,
    corpus) per question.

    `documents_dir` is a folder of documents (span `doc` = a file name) or a BEIR folder (its
    corpus.jsonl; `doc_ids` = passage ids). The collection is the one eval.runs.evalset_runner
    scores, indexed once per index settings. Context, generation and grounding are switched on
    (an answer is what is scored); everything else is the preset's own, so
    `generation.mode="auto"` answers with the LLM when OPENAI_BASE_URL is set and extractively
    otherwise.
    """
    evalset = qa_corpus_set(qa, documents_dir)
    collection = beir_collection(evalset.dataset, config, progress=False)
    config = with_overrides(config, {"index.collection": collection.name, **ANSWER_STAGES})
    for done, item in enumerate(qa.items, start=1):
        yield item, run_query(item.question, config, collection), evalset.dataset.corpus
        if progress is not None:
            progress(done, len(qa.items))


def qa_answer_samples(
    qa: QASet,
    config: PipelineConfig,
    documents_dir: Path = SAMPLES_DIR,
    progress: Callable[[int, int], None] | None = None,
) -> list[AnswerSample]:
    """Answer every question of a QA set with the full pipeline of `config` (see `qa_traces`)."""
    return [sample_from_trace(item.qid, trace, item.answer, reference_passages(item, corpus),
                              item.answerable)
            for item, trace, corpus in qa_traces(qa, config, documents_dir, progress)]


def scores_json(scores: Mapping[str, MetricScores], n_resamples: int = 1000,
                seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per metric: mean with a bootstrap 95% CI, counts, and every failed sample's reason (JSON
    has no NaN: a metric that failed everywhere has mean null)."""
    out = {}
    for name, s in scores.items():
        ci = bootstrap_ci([s.values[q] for q in sorted(s.values)], 0.95, n_resamples, seed)
        out[name] = {
            "mean": s.mean if s.values else None,
            "ci95": [ci.low, ci.high] if s.values else [None, None],
            "n": s.n, "failed": s.n_failed, "errors": dict(s.failed),
            "values": dict(s.values),
        }
    return out
