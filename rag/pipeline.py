"""The pipeline runner: the one way stages are composed, into a Trace.

Stages run in STAGE_ORDER:

    guard → understand → adapt → retrieve → fuse → postprocess → authority → rerank → select
    → graph → verify → context → generate → ground → abstain

A stage is a `StageSpec` registered in STAGES under one of those names. It reads the frozen
`PipelineState` and returns a `StageResult`: the next state and its `output`, a frozen typed
object of the class the spec declares (`StageSpec.output`). The runner times each stage, checks
the output's type, stores it in the stage's StageRecord and in `state.artifacts` (so later stages
read `state.artifact("rerank", RerankResult)`), and readers of a finished run use
`trace.output(RerankResult)`. A stage that is off for this config or comes after a halt is
recorded as "skipped" with the reason; a stage that degraded returns status "fallback" with a
warning and the run goes on; an exception is recorded as "failed" (once) and the stages
after it say "skipped: <stage> failed".

Any contiguous slice of STAGE_ORDER runs over a seeded state (`run_slice(state, …, first="fuse",
last="select")`): the Retrieval page, eval's retrieval mode and sweeps re-run the retrieval tail
over cached candidate lists through the same specs `run_query` uses, so nothing is wired twice.

The stage registry (STAGES, StageSpec, PipelineState, StageEnv) is rag.stages; the names are
re-exported here for callers that run queries.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType
from typing import Any, Protocol, cast

from rag.hidden_chars import strip_hidden
from rag.index.embedding_pin import pinned_for
from rag.index.ref import IndexRef
from rag.llm.deadline import allowance, llm_deadline, stage_budget
from rag.privacy import normalize_user
from rag.records.hits import Candidate, RankedList, SearchableCollection, SearchQuery
from rag.settings.overrides import apply_overrides
from rag.settings.pipeline import PipelineConfig
from rag.stages import (
    STAGE_MODULES,
    STAGE_ORDER,
    STAGES,
    ConversationTurn,
    PipelineState,
    Shared,
    StageEnv,
    StageInput,
    StageInputError,
    StageRegistry,
    StageResult,
    StageSpec,
    stage_slice,
)
from rag.trace import LLMBudgetUse, StageRecord, Trace

TAIL_SECTIONS = ("fusion", "postprocess", "rerank", "context", "generation", "grounding", "abstain")


# where a run reads: a ref resolved at the edge (rag.index.derived.resolve), a collection (the
# run resolves it on first use), a stand-in index, or None (the collection the config names)
Source = IndexRef | SearchableCollection | None


def _pinned(config: PipelineConfig, source: Source) -> PipelineConfig:
    return source.pin(config) if isinstance(source, IndexRef) else pinned_for(config, source)


def initial_state(query: str, config: PipelineConfig, user: str | None = None) -> PipelineState:
    filters = config.retrieval.filters
    if user is not None and filters.owner is None:  # a user sees public + their own chunks
        filters = filters.model_copy(update={"owner": normalize_user(user)})
    # the edge: hidden characters never get past here, whatever the guard's settings; what they
    # were (counts, what tag characters spelled) goes on for the guard and the trace note
    stripped = strip_hidden(query)
    return PipelineState(query=stripped.text, queries=(SearchQuery(stripped.text),), filters=filters,
                         hidden=stripped if stripped.count else None)


def _settings_of(spec: StageSpec, config: PipelineConfig) -> Mapping[str, Any]:
    return spec.settings(config).model_dump(mode="json") if spec.settings else {}


def _run_one(
    spec: StageSpec, state: PipelineState, env: StageEnv, raise_errors: bool,
    stages: StageRegistry = STAGES,
) -> tuple[StageRecord, PipelineState, str]:
    """Run one stage: its record, the next state, and the failure text (empty if none)."""
    settings = _settings_of(spec, env.config)
    off = spec.off_reason(env.config)
    if off is not None:
        return StageRecord(spec.name, "skipped", settings=settings, reason=off), state, ""
    try:
        stages.check_inputs(spec, state)  # before it runs: a missing/mistyped input names both
    except StageInputError as exc:
        if raise_errors:
            raise
        return (StageRecord(spec.name, "failed", settings, reason=f"StageInputError: {exc}"),
                state, spec.name)
    started = time.perf_counter()
    budget = env.config.generation.budget
    before_generation = (spec.name in STAGE_ORDER  # an ingest stage is no query's
                         and STAGE_ORDER.index(spec.name) < STAGE_ORDER.index("generate"))
    allowed = allowance(spec.name, budget.share(spec.name), budget.generation_reserve, before_generation)
    setting = "generation.deadline_s" if spec.name == "generate" else f"generation.budget.shares.{spec.name}"
    try:
        with stage_budget(spec.name, allowed[0] if allowed else None, setting) as use:
            result = spec.run(state, env)
        if result.output is not None and not isinstance(result.output, spec.output):
            raise TypeError(f"stage {spec.name!r} returned a {type(result.output).__name__}, "
                            f"its spec declares {spec.output.__name__}")
    except Exception as exc:  # recorded: the trace names the failed stage and the error
        if raise_errors:
            raise
        wall_ms = (time.perf_counter() - started) * 1000
        failed = f"{type(exc).__name__}: {exc}"
        return (
            StageRecord(spec.name, "failed", settings, wall_ms=wall_ms, reason=failed),
            state,
            spec.name,
        )
    llm_stage = spec.name == "generate" or any(k == spec.name for k in budget.shares) or use.calls > 0
    spent = LLMBudgetUse(round(allowed[0], 3) if allowed else None, round(use.used_s, 3), use.calls,
                         round(allowed[1], 3) if allowed else None) if llm_stage else None
    record = StageRecord(
        spec.name, result.status, settings, result.inputs, result.output,
        (time.perf_counter() - started) * 1000, result.warnings, result.reason, spent,
    )  # fmt: skip
    next_state = result.state
    if result.output is not None:
        next_state = next_state.with_artifact(spec.name, result.output)
    return record, next_state, ""


def run_stages(
    state: PipelineState,
    env: StageEnv,
    trace: Trace,
    *,
    first: str | None = None,
    last: str | None = None,
    raise_errors: bool = False,
    stages: StageRegistry = STAGES,
) -> PipelineState:
    """Run the stages `first`..`last` of `stages.order` (default: all; STAGE_ORDER, or the ingest's
    rag.ingestion.registry.INGEST_ORDER) over `state`, appending one
    record per stage to `trace`. `state.overrides` (set by a routing stage, or carried in a
    seeded state) are applied to `env.config` for every stage that runs after they appear."""
    failed = ""
    base = env.config
    applied: Mapping[str, Any] = MappingProxyType({})
    for name in stage_slice(first, last, stages.order):
        if state.overrides != applied:
            applied = state.overrides
            env.config = apply_overrides(base, dict(applied))  # names: checked by each stage
        if failed:
            trace.add(StageRecord(name, "skipped", reason=f"{failed} failed"))
            continue
        try:
            spec = stages.find(name)
        except ImportError as exc:  # a stage module missing or not registering: failed, recorded
            if raise_errors:
                raise
            failed = name
            trace.add(StageRecord(name, "failed", reason=f"cannot load the stage: {exc}"))
            continue
        if state.halted and name in state.artifacts and not any(r.stage == name for r in trace.records):
            # the halting stage supplied this stage's output (a semantic cache hit): recorded as is
            trace.add(StageRecord(name, "cache_hit", output=state.artifacts[name],
                                  reason=f"not run: {state.halted}; its output is the cached one"))
            continue
        if state.halted and not (spec is not None and spec.runs_after_halt):
            trace.add(StageRecord(name, "skipped", reason=f"not reached: {state.halted}"))
            continue
        if spec is None:  # only a partial registry (tests) lacks a stage
            trace.add(StageRecord(name, "skipped", reason="not in this run's stage registry"))
            continue
        record, state, failed = _run_one(spec, state, env, raise_errors, stages)
        trace.add(record)
    return state


@dataclass(frozen=True)
class SliceRun:
    """A slice of stages that ran: the state after the last one, and their trace."""

    state: PipelineState
    trace: Trace


def run_slice(
    state: PipelineState,
    config: PipelineConfig,
    collection: Source = None,
    *,
    first: str | None = None,
    last: str | None = None,
    conversation: Sequence[ConversationTurn] | None = None,
    user: str | None = None,
    now: datetime | None = None,
    raise_errors: bool = False,
) -> SliceRun:
    """Run the stages `first`..`last` over a seeded `state` (e.g. the retrieval tail over cached
    lists). `collection` defaults to `config.index.collection`, opened only if a stage needs it."""
    config = _pinned(config, collection)  # the ONNX graph the collection's vectors came from
    env = StageEnv(config, collection, user=user, conversation=conversation or (), now=now)
    trace = Trace(query=state.query, preset=config.name, config=config.model_dump(mode="json"))
    if state.hidden is not None and (first is None or first == STAGE_ORDER[0]):
        trace.notes.append(f"question: {state.hidden.note()}")
    with llm_deadline(config.generation.deadline_s):  # bounds every LLM call of this run
        final = run_stages(state, env, trace, first=first, last=last, raise_errors=raise_errors)
    trace.answer = final.answer
    if env.opened_collection is not None:
        trace.collection = env.opened_collection.name
    return SliceRun(final, trace)


def run_query(
    query: str,
    config: PipelineConfig,
    collection: Source = None,
    *,
    last: str | None = None,
    conversation: Sequence[ConversationTurn] | None = None,
    user: str | None = None,
    now: datetime | None = None,
    raise_errors: bool = False,
) -> Trace:
    """Run `query` through every stage of `config` (or up to `last`); the Trace records each
    stage with its candidates and all their scores. `collection` defaults to
    `config.index.collection`. After a whole run each stage that ran gets its `after_run`."""
    config = _pinned(config, collection)  # what the stages ran with, for after_run too
    done = run_slice(initial_state(query, config, user), config, collection, last=last,
                     conversation=conversation, user=user, now=now, raise_errors=raise_errors)
    if last is None:
        shared = Shared.of(config)
        for name in STAGE_ORDER:
            spec = STAGES.find(name)
            record = done.trace.stage(name)
            if spec and spec.after_run and record is not None and record.status != "skipped":
                spec.after_run(done.state, config, shared)
    return done.trace


def run_head(
    query: str,
    config: PipelineConfig,
    collection: Source = None,
    *,
    user: str | None = None,
    now: datetime | None = None,
) -> SliceRun:
    """guard → … → retrieve: the part of a run that searches. Pages cache it (by `head_key`)
    and re-run the tail over its lists with `run_tail` on every control change."""
    return run_slice(initial_state(query, config, user), config, collection, last="retrieve",
                     user=user, now=now)


def run_tail(
    head: PipelineState,
    config: PipelineConfig,
    collection: Source = None,
    *,
    depth: int | None = None,
    first: str = "fuse",
    last: str = "select",
    user: str | None = None,
    now: datetime | None = None,
) -> SliceRun:
    """The stages `first`..`last` over a head's state, its lists cut to their first `depth`
    candidates when given (a list searched deeper, cut, is the list a shallower search returns)."""
    if depth is not None:
        cut = {name: RankedList(r.retriever, r.candidates[:depth]) for name, r in head.lists.items()}
        head = replace(head, lists=MappingProxyType(cut))
    return run_slice(head, config, collection, first=first, last=last, user=user, now=now)


def head_key(config: PipelineConfig) -> str:
    """Hash of every setting the stages up to `retrieve` depend on (not TAIL_SECTIONS, not
    retrieval.top_k): two configs with the same key retrieve the same lists."""
    settings = config.model_dump(mode="json", exclude=set(TAIL_SECTIONS))
    settings["retrieval"].pop("top_k", None)
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


class HasCandidates(Protocol):
    """A stage output that carries the ranking at that point."""

    @property
    def candidates(self) -> tuple[Candidate, ...]: ...


def ranked_candidates(trace: Trace) -> tuple[Candidate, ...]:
    """The final ranking of a run: the candidates of the last retrieval-side stage that ran
    (select, else rerank / postprocess / fuse)."""
    for name in ("select", "rerank", "authority", "postprocess", "fuse"):
        record = trace.stage(name)
        if record is not None and record.status != "skipped" and record.output is not None:
            found = cast(HasCandidates, record.output)  # these stages' outputs carry candidates
            return tuple(found.candidates)
    return ()


__all__ = [
    "STAGES",
    "STAGE_MODULES",
    "STAGE_ORDER",
    "TAIL_SECTIONS",
    "PipelineState",
    "SliceRun",
    "Source",
    "StageEnv",
    "StageInput",
    "StageInputError",
    "StageRegistry",
    "StageResult",
    "StageSpec",
    "head_key",
    "initial_state",
    "ranked_candidates",
    "run_head",
    "run_query",
    "run_slice",
    "run_stages",
    "run_tail",
    "stage_slice",
]
