"""One query through several presets, and what each system did differently — read from the
traces alone (the Systems page renders this; nothing here searches except through run_query).

`trace_facts(trace)` turns a trace into short sentences ("expanded to 4 queries", "answered a
greeting without retrieval", "fused 2 lists by RRF k=60"); `differences` keeps, per system,
the facts that not every compared system shares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from rag.context.graph_stage import GraphOutput
from rag.context.self_rag import Verification
from rag.index.ref import IndexRef
from rag.llm.usability import UsabilityTally, counting
from rag.outputs.context import BuiltContext
from rag.outputs.generated import GenerateOutput
from rag.outputs.grounding import GroundedAnswer
from rag.pipeline import ConversationTurn, ranked_candidates, run_query
from rag.query.adaptive_router import AdaptivePlan
from rag.query.understand import Understanding
from rag.records.hits import SearchableCollection
from rag.rerank.base import RerankResult
from rag.retrieve.authority import AuthorityResult
from rag.retrieve.search import Retrieved
from rag.retrieve.stage import PostprocessOutput, SelectOutput
from rag.settings.pipeline import PipelineConfig
from rag.trace import Trace

# (config, collection) for a preset: where its documents are indexed with its own settings.
CollectionFor = Callable[[PipelineConfig], tuple[PipelineConfig, IndexRef | SearchableCollection]]


@dataclass(frozen=True)
class Source:
    n: int  # [Source n] in the answer (0: a ranked chunk that did not reach the context)
    title: str
    chunk_id: str
    score: float
    text: str


@dataclass(frozen=True)
class SystemRun:
    """One preset's run of the query: the trace and what the page shows of it."""

    preset: str
    trace: Trace
    facts: tuple[str, ...]
    sources: tuple[Source, ...]
    grounded_share: float | None  # None: the ground stage did not run
    is_grounded: bool | None
    # every LLM reply of the run, per parser: ok / repaired / fallback with the reasons
    llm: UsabilityTally = field(default_factory=UsabilityTally)

    @property
    def answer(self) -> str:
        return self.trace.answer or ""

    def timeline(self) -> list[dict[str, Any]]:
        """One row per stage: status, wall time and why it was skipped or fell back."""
        return [{"preset": self.preset, "stage": r.stage, "status": r.status,
                 "ms": round(r.wall_ms, 2), "reason": r.reason} for r in self.trace.records]


@dataclass(frozen=True)
class Comparison:
    query: str
    runs: tuple[SystemRun, ...]
    differences: Mapping[str, tuple[str, ...]]  # preset -> facts not every system shares


def _understand_facts(found: Understanding, status: str, queries: int) -> list[str]:
    if status == "cache_hit":
        return ["answered from the semantic cache"]
    intent = found.intent
    if intent is not None and not found.needs_retrieval:
        return [f"answered a {intent.intent} without retrieval ({intent.layer} layer)"]
    facts: list[str] = []
    if found.spell is not None and found.spell.changed:
        facts.append(f"corrected the spelling to {found.spell.corrected!r}")
    if found.rewrite is not None and found.rewrite.changed:
        facts.append(f"rewrote the query to {found.rewrite.rewritten!r}")
    if found.classification is not None:
        facts.append(f"classified it {found.classification.label}")
    if found.route is not None:
        facts.append(f"routed it {found.route.complexity} / {found.route.query_type}")
    if queries > 1:
        facts.append(f"expanded to {queries} queries")
    return facts


def _adapt_facts(plan: AdaptivePlan, trace: Trace) -> list[str]:
    facts = []
    if plan.strategy:
        selected = trace.output(SelectOutput)  # the route's top_k as select kept it (≤ depth)
        top_k = selected.top_k if selected is not None else plan.overrides.get("retrieval.routed_top_k")
        facts.append(f"adaptive route {str(plan.strategy).upper()} (top {top_k})")
    if plan.levels:
        facts.append(f"searched only {', '.join(plan.levels)} chunks")
    if plan.overrides.get("context.expansion") == "summarize":
        facts.append("took the summarize path (whole document in order)")
    return facts


def _retrieval_facts(trace: Trace) -> list[str]:
    facts = []
    retrieved = trace.output(Retrieved)
    fuse = trace.stage("fuse")
    if retrieved is not None and retrieved.lists and fuse is not None and fuse.status != "skipped":
        settings = fuse.settings
        method = settings.get("method", "?")
        weights = dict(settings.get("weights", {}))
        param = {"rrf": f" k={settings.get('k')}",
                 "weighted_rrf": f" k={settings.get('k')} {weights}",
                 "relative_score": f" alpha={settings.get('alpha')}"}.get(str(method), "")
        facts.append(f"fused {len(retrieved.lists)} list(s) by {method}{param}")
    post = trace.output(PostprocessOutput)
    ran = [s for s in (post.steps if post is not None else ()) if s.status != "skipped"]
    if ran:
        facts.append("post-retrieval: " + ", ".join(
            s.step + (f" (−{len(s.removed)})" if s.removed else "") for s in ran))
    authority = trace.output(AuthorityResult)
    if authority is not None and authority.moved:
        facts.append(f"ranked {len(authority.moved)} document chunk(s) before tied transcripts")
    return facts


def _rerank_facts(trace: Trace) -> list[str]:
    rerank = trace.stage("rerank")
    result = trace.output(RerankResult)
    if rerank is not None and result is not None and rerank.status in ("ok", "fallback"):
        return [f"reranked {result.pairs} pairs with {result.path}"]
    if rerank is not None and rerank.status == "skipped" and not rerank.reason.startswith(
            ("not reached", "rerank.enabled")):
        why = rerank.reason.split(" (")[0].split(":")[0]
        return [f"{rerank.settings.get('method', '')} rerank could not run: {why}"]
    return []


def _later_facts(trace: Trace) -> list[str]:
    facts = _rerank_facts(trace)
    graph = trace.output(GraphOutput)
    if graph is not None and graph.added:
        facts.append(f"entity graph added {len(graph.added)} chunk(s)")
    verified = trace.output(Verification)
    verify = trace.stage("verify")
    if verified is not None and verify is not None:
        dropped = sum(not v.kept for v in verified.verdicts)
        facts.append(f"Self-RAG ({verified.method}) dropped {dropped} chunk(s)")
    context = trace.output(BuiltContext, "context")
    if context is not None:
        context_record = trace.stage("context")  # recorded: it has an output
        if context.no_rag and context_record is not None:
            facts.append(context_record.reason)
        for step in context.steps:
            if step.step.startswith(("expand:", "compress:", "order:")) and not step.step.endswith(
                    (":none", ":rank")):
                facts.append(f"context {step.step}: {step.n_in} → {step.n_out} blocks")
    generated = trace.output(GenerateOutput)
    if generated is not None:
        facts.append(f"answer: {generated.answer.mode}")
    grounded = trace.output(GroundedAnswer)
    if grounded is not None:
        retries = grounded.retried
        after = f" after {retries} retries" if retries else ""
        facts.append(f"grounded share {grounded.report.grounded_share:.2f}{after}")
    return facts


def trace_facts(trace: Trace) -> tuple[str, ...]:
    """What this run did, stage by stage, in short sentences (read from the trace only)."""
    guard = trace.stage("guard")
    if guard is not None and guard.status == "blocked":
        return (f"guard blocked the query: {guard.reason}",)
    facts: list[str] = []
    understand = trace.stage("understand")
    found = trace.output(Understanding)
    if understand is not None and found is not None:
        facts += _understand_facts(found, understand.status, len(found.search_queries))
    if any(r.reason.startswith("not reached") for r in trace.records):
        return tuple(facts)
    plan = trace.output(AdaptivePlan)
    if plan is not None:
        facts += _adapt_facts(plan, trace)
    return tuple(facts + _retrieval_facts(trace) + _later_facts(trace))


def sources_of(trace: Trace) -> tuple[Source, ...]:
    """The cited context blocks ([Source n]) when a context was built, else the final ranking."""
    context = trace.output(BuiltContext, "context")
    blocks = context.blocks if context is not None else ()
    if blocks:
        return tuple(Source(b.n, b.title, b.chunk_id, b.score, b.text) for b in blocks)
    return tuple(Source(0, str(c.chunk.metadata.get("title") or c.chunk.doc_id), c.chunk_id,
                        c.score, c.chunk.text) for c in ranked_candidates(trace))


def system_run(trace: Trace, llm: UsabilityTally | None = None) -> SystemRun:
    grounded = trace.output(GroundedAnswer)
    report = grounded.report if grounded is not None else None
    return SystemRun(trace.preset, trace, trace_facts(trace), sources_of(trace),
                     report.grounded_share if report is not None else None,
                     report.is_grounded if report is not None else None,
                     llm if llm is not None else UsabilityTally())


def differences(runs: Sequence[SystemRun]) -> dict[str, tuple[str, ...]]:
    """Per system, its facts that are not facts of every compared system."""
    shared = set.intersection(*(set(r.facts) for r in runs)) if len(runs) > 1 else set()
    return {r.preset: tuple(f for f in r.facts if f not in shared) for r in runs}


def compare(query: str, configs: Sequence[PipelineConfig], collection_for: CollectionFor, *,
            user: str | None = None, conversation: Sequence[ConversationTurn] = ()) -> Comparison:
    """Run `query` through each config over its own collection; traces plus differences."""
    runs = []
    for config in configs:
        pointed, collection = collection_for(config)
        with counting() as llm:
            trace = run_query(query, pointed, collection, user=user, conversation=conversation)
        runs.append(system_run(trace, llm))
    return Comparison(query, tuple(runs), MappingProxyType(differences(runs)))
