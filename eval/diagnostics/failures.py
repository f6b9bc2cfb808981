"""Why each question failed, read off its trace and its labels — no LLM opinion.

One class per question, the first that applies:

- missed_abstention: the question is unanswerable (QA row `"answerable": false`) and was answered;
- wrong_abstention: the question is answerable and the abstain stage declined it;
- retrieval_miss: no relevant chunk in any retriever's list;
- ranking_loss: a relevant chunk was retrieved but fusion/reranking/selection cut it before the
  context;
- context_dilution: a relevant chunk reached the ranking the context was built from, but the
  context budget dropped it, or it is in the context yet outnumbered (relevant blocks are a
  minority) and the answer cites none of them;
- unsupported_answer: the grounding check found sentences the context does not support;
- correct: none of the above (for an unanswerable question: it was declined).

A chunk is relevant per the set's labels (eval.scoring.compare.is_relevant: judged document, or
overlap with a labeled span). Questions of sets without labels for a question skip the retrieval
classes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from eval.data.evalsets import EvalSet
from eval.data.qa import load_qa_file
from eval.runs.beir_index import beir_collection, eval_config
from eval.scoring.compare import is_relevant
from rag.abstain.stage import AbstainDecision
from rag.chunking.base import Chunk
from rag.config import PipelineConfig, with_overrides
from rag.context.base import BuiltContext
from rag.grounding.retry import GroundedAnswer
from rag.index.hits import Candidate
from rag.pipeline import ranked_candidates, run_query
from rag.retrieve.search import Retrieved
from rag.trace import Trace

FailureClass = Literal["missed_abstention", "wrong_abstention", "retrieval_miss", "ranking_loss",
                       "context_dilution", "unsupported_answer", "correct"]
CLASSES: tuple[FailureClass, ...] = ("retrieval_miss", "ranking_loss", "context_dilution",
                                     "unsupported_answer", "wrong_abstention", "missed_abstention",
                                     "correct")
# the stages that turn a ranking into a checked answer (eval.scoring.answers's, without ragas)
ANSWER_STAGES = {"context.enabled": True, "generation.enabled": True, "grounding.enabled": True}
HOW_DECIDED: dict[FailureClass, str] = {
    "retrieval_miss": "no relevant chunk in any retriever's list",
    "ranking_loss": "a relevant chunk was retrieved but cut before the context (fusion, rerank, top_k)",
    "context_dilution": "a relevant chunk reached the final ranking but the context budget dropped "
                        "it, or relevant blocks are a minority of the context and the answer cites none",
    "unsupported_answer": "the grounding check found unsupported sentences",
    "wrong_abstention": "the pipeline declined a question the corpus answers",
    "missed_abstention": "the pipeline answered a question the corpus cannot answer",
    "correct": "none of the above (an unanswerable question that was declined counts as correct)",
}


@dataclass(frozen=True)
class Failure:
    kind: FailureClass
    why: str


def _retrieved(trace: Trace) -> list[Candidate]:
    found = trace.output(Retrieved)
    return [c for ranked in (found.lists.values() if found else ()) for c in ranked.candidates]


def _relevant_ids(candidates: Iterable[Candidate], relevant: Callable[[Chunk], bool]) -> set[str]:
    return {c.chunk_id for c in candidates if relevant(c.chunk)}


def classify(trace: Trace, relevant: Callable[[Chunk], bool], answerable: bool = True,
             labeled: bool = True) -> Failure:
    """The failure class of one question's run (see the module docstring for the order)."""
    decision = trace.output(AbstainDecision)
    declined = decision is not None and decision.abstained
    if not answerable:
        if declined:
            return Failure("correct", f"declined ({decision.kind if decision else ''})")
        return Failure("missed_abstention", "answered a question the corpus cannot answer")
    if declined and decision is not None:
        return Failure("wrong_abstention", f"declined ({decision.kind}): {decision.reason}")
    if labeled:
        retrieved = _relevant_ids(_retrieved(trace), relevant)
        if not retrieved:
            return Failure("retrieval_miss", "no relevant chunk in any retriever's list")
        ranked = _relevant_ids(ranked_candidates(trace), relevant)
        if not ranked:
            return Failure("ranking_loss", f"{len(retrieved)} relevant chunk(s) retrieved, none in "
                                           "the final ranking")
        dilution = _dilution(trace, ranked)
        if dilution:
            return Failure("context_dilution", dilution)
    grounded = trace.output(GroundedAnswer)
    if grounded is not None and not grounded.report.is_grounded:
        report = grounded.report
        return Failure("unsupported_answer", f"{len(report.unsupported)} of {len(report.sentences)} "
                                             f"sentence(s) unsupported")
    return Failure("correct", "")


def _dilution(trace: Trace, ranked: set[str]) -> str:
    context = trace.output(BuiltContext, "context")
    if context is None or context.no_rag:
        return ""
    relevant_blocks = [b for b in context.blocks if ranked & {b.chunk_id, *b.hit_ids}]
    if not relevant_blocks:
        return (f"{len(ranked)} relevant chunk(s) in the final ranking, none left in the context "
                f"({context.budget.dropped_blocks} block(s) dropped by the budget)")
    cited = set(trace.output(GroundedAnswer).answer.cited) if trace.output(GroundedAnswer) else set()
    outnumbered = len(relevant_blocks) * 2 < len(context.blocks)
    if outnumbered and cited and not cited & {b.n for b in relevant_blocks}:
        return (f"{len(relevant_blocks)} of {len(context.blocks)} context blocks relevant; the "
                f"answer cites only others")
    return ""


__all__ = ["CLASSES", "HOW_DECIDED", "ClassifiedQuery", "Failure", "FailureClass", "answerable_of",
           "class_counts", "classify", "classify_queries"]


@dataclass(frozen=True)
class ClassifiedQuery:
    qid: str
    question: str
    failure: Failure
    trace: Trace


def answerable_of(evalset: EvalSet) -> dict[str, bool]:
    """qid -> answerable: from the QA file's rows for QA sets, else every query is answerable."""
    source = Path(evalset.dataset.source)
    if source.is_file() and source.suffix.lower() in (".jsonl", ".csv"):
        return {item.qid: item.answerable for item in load_qa_file(source).items}
    return dict.fromkeys(evalset.dataset.queries, True)


def classify_queries(
    evalset: EvalSet, config: PipelineConfig, qids: Iterable[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[ClassifiedQuery]:
    """Run each query through every stage of `config` (context, generation and grounding on)
    over the set's collection, and classify it."""
    config = with_overrides(eval_config(config, evalset.dataset), dict(ANSWER_STAGES))
    collection = beir_collection(evalset.dataset, config, progress=False)
    answerable = answerable_of(evalset)
    chosen = list(qids) if qids is not None else list(evalset.dataset.queries)
    out = []
    for done, qid in enumerate(chosen, start=1):
        question = evalset.dataset.queries[qid]
        trace = run_query(question, config, collection)
        labeled = bool(evalset.dataset.qrels.get(qid) or evalset.spans.get(qid))
        failure = classify(trace, partial(is_relevant, evalset, qid), answerable.get(qid, True), labeled)
        out.append(ClassifiedQuery(qid, question, failure, trace))
        if progress is not None:
            progress(done, len(chosen))
    return out


def class_counts(classified: Iterable[ClassifiedQuery]) -> dict[FailureClass, int]:
    counts = dict.fromkeys(CLASSES, 0)
    for item in classified:
        counts[item.failure.kind] += 1
    return counts
