"""One query through several presets, and what each system did differently — read from the
traces alone (the Systems page renders this; nothing here searches except through run_query).

`trace_facts(trace)` turns a trace into short sentences ("expanded to 4 queries", "answered a
greeting without retrieval", "fused 2 lists by RRF k=60"); `differences` keeps, per system,
the facts that not every compared system shares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rag.config import PipelineConfig
from rag.pipeline import ConversationTurn, ranked_candidates, run_query
from rag.retrieve.search import SearchableCollection
from rag.trace import StageRecord, Trace

# (config, collection) for a preset: where its documents are indexed with its own settings.
CollectionFor = Callable[[PipelineConfig], tuple[PipelineConfig, SearchableCollection]]


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


def _out(record: StageRecord | None, key: str, default: Any = None) -> Any:  # noqa: ANN401
    """One output of a stage record (trace outputs are untyped by design), or `default`."""
    return default if record is None else record.outputs.get(key, default)


def _understand_facts(record: StageRecord) -> list[str]:
    facts: list[str] = []
    found = record.outputs.get("understanding")
    if record.status == "cache_hit":
        return ["answered from the semantic cache"]
    intent = getattr(found, "intent", None)
    if intent is not None and not getattr(found, "needs_retrieval", True):
        return [f"answered a {intent.intent} without retrieval ({intent.layer} layer)"]
    spell = getattr(found, "spell", None)
    if spell is not None and spell.changed:
        facts.append(f"corrected the spelling to {spell.corrected!r}")
    rewrite = getattr(found, "rewrite", None)
    if rewrite is not None and rewrite.changed:
        facts.append(f"rewrote the query to {rewrite.rewritten!r}")
    classification = getattr(found, "classification", None)
    if classification is not None:
        facts.append(f"classified it {classification.label}")
    route = getattr(found, "route", None)
    if route is not None:
        facts.append(f"routed it {route.complexity} / {route.query_type}")
    queries = record.outputs.get("queries") or ()
    if len(queries) > 1:
        facts.append(f"expanded to {len(queries)} queries")
    return facts


def _adapt_facts(record: StageRecord) -> list[str]:
    facts = []
    if record.outputs.get("strategy"):
        top_k = (record.outputs.get("overrides") or {}).get("retrieval.top_k")
        facts.append(f"adaptive route {str(record.outputs['strategy']).upper()} (top {top_k})")
    if record.outputs.get("levels"):
        facts.append(f"searched only {', '.join(record.outputs['levels'])} chunks")
    if (record.outputs.get("overrides") or {}).get("context.expansion") == "summarize":
        facts.append("took the summarize path (whole document in order)")
    return facts


def _retrieval_facts(trace: Trace) -> list[str]:
    facts = []
    lists = _out(trace.stage("retrieve"), "lists") or {}
    fuse = trace.stage("fuse")
    if lists and fuse is not None and fuse.status != "skipped":
        settings = fuse.settings
        method = settings.get("method", "?")
        weights = dict(settings.get("weights", {}))
        param = {"rrf": f" k={settings.get('k')}",
                 "weighted_rrf": f" k={settings.get('k')} {weights}",
                 "relative_score": f" alpha={settings.get('alpha')}"}.get(str(method), "")
        facts.append(f"fused {len(lists)} list(s) by {method}{param}")
    ran = [s for s in _out(trace.stage("postprocess"), "steps", ()) or ()
           if getattr(s, "status", "skipped") != "skipped"]
    if ran:
        facts.append("post-retrieval: " + ", ".join(
            s.step + (f" (−{len(s.removed)})" if s.removed else "") for s in ran))
    moved = _out(trace.stage("authority"), "moved", ())
    if moved:
        facts.append(f"ranked {len(moved)} document chunk(s) before tied transcripts")
    return facts


def _later_facts(trace: Trace) -> list[str]:
    facts = []
    rerank = trace.stage("rerank")
    if rerank is not None and rerank.status in ("ok", "fallback"):
        facts.append(f"reranked {_out(rerank, 'pairs', 0)} pairs with {_out(rerank, 'method')}")
    elif rerank is not None and rerank.status == "skipped" and not rerank.reason.startswith(
            ("not reached", "rerank.enabled")):
        why = rerank.reason.split(" (")[0].split(":")[0]
        facts.append(f"{rerank.settings.get('method', '')} rerank could not run: {why}")
    added = _out(trace.stage("graph"), "added", ())
    if added:
        facts.append(f"entity graph added {len(added)} chunk(s)")
    verify = trace.stage("verify")
    if verify is not None and verify.status != "skipped":
        dropped = _out(verify, "dropped", 0)
        facts.append(f"Self-RAG ({_out(verify, 'method')}) dropped {dropped} chunk(s)")
    context = trace.stage("context")
    if context is not None and context.status != "skipped":
        if _out(context, "no_rag"):
            facts.append(context.reason)
        for step in _out(context, "steps", ()) or ():
            name = getattr(step, "name", "")
            if name.startswith(("expand:", "compress:", "order:")) and not name.endswith(
                    (":none", ":rank")):
                facts.append(f"context {name}: {step.blocks_in} → {step.blocks_out} blocks")
    generate = trace.stage("generate")
    if generate is not None and generate.status != "skipped":
        facts.append(f"answer: {_out(generate, 'mode')}")
    ground = trace.stage("ground")
    if ground is not None and ground.status == "ok":
        share = _out(ground, "grounded_share")
        retries = _out(ground, "retries", 0)
        after = f" after {retries} retries" if retries else ""
        facts.append(f"grounded share {share:.2f}{after}")
    return facts


def trace_facts(trace: Trace) -> tuple[str, ...]:
    """What this run did, stage by stage, in short sentences (read from the trace only)."""
    guard = trace.stage("guard")
    if guard is not None and guard.status == "blocked":
        return (f"guard blocked the query: {guard.reason}",)
    facts: list[str] = []
    understand = trace.stage("understand")
    if understand is not None and understand.status != "skipped":
        facts += _understand_facts(understand)
    if any(r.reason.startswith("not reached") for r in trace.records):
        return tuple(facts)
    adapt = trace.stage("adapt")
    if adapt is not None and adapt.status == "ok":
        facts += _adapt_facts(adapt)
    return tuple(facts + _retrieval_facts(trace) + _later_facts(trace))


def sources_of(trace: Trace) -> tuple[Source, ...]:
    """The cited context blocks ([Source n]) when a context was built, else the final ranking."""
    blocks = _out(trace.stage("context"), "blocks", ()) or ()
    if blocks:
        return tuple(Source(b.n, b.title, b.chunk_id, b.score, b.text) for b in blocks)
    return tuple(Source(0, str(c.chunk.metadata.get("title") or c.chunk.doc_id), c.chunk_id,
                        c.score, c.chunk.text) for c in ranked_candidates(trace))


def system_run(trace: Trace) -> SystemRun:
    ground = trace.stage("ground")
    ran = ground is not None and ground.status == "ok"
    return SystemRun(trace.preset, trace, trace_facts(trace), sources_of(trace),
                     _out(ground, "grounded_share") if ran else None,
                     _out(ground, "is_grounded") if ran else None)


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
        trace = run_query(query, pointed, collection, user=user, conversation=conversation)
        runs.append(system_run(trace))
    return Comparison(query, tuple(runs), MappingProxyType(differences(runs)))
