"""The pipeline runner: one query through one configuration, stage by stage, into a Trace.

Stages run in STAGE_ORDER:

    guard → understand → adapt → retrieve → fuse → postprocess → authority → rerank → select
    → graph → verify → context → generate → ground

A stage is a `StageSpec` registered in STAGES under one of those names. It reads the frozen
`PipelineState` and returns a `StageResult` holding the next state and what the trace should
show (`outputs`, with every score it saw). Stages never time or record themselves: the runner
times each one and writes its StageRecord. A stage that is off for this config, not installed,
or comes after a halt is recorded as "skipped" with the reason; a stage that degraded returns
status "fallback" with a warning and the run goes on; an exception is recorded as "failed" and
the remaining stages are skipped.

Adding a stage (e.g. rerank):
  1. in the module STAGE_MODULES names for it (rag/rerank/stage.py), write
     `def run(state: PipelineState, env: StageEnv) -> StageResult` — read `state.candidates`,
     return `StageResult(replace(state, candidates=new), outputs={"candidates": new, ...})`;
     put a stage's own frozen output in `state.with_artifact("rerank", result)` for later stages;
  2. at the end of that module: `STAGES.add("rerank", StageSpec("rerank", run, off_reason,
     settings=lambda c: c.rerank))`, where `off_reason(config)` returns why it does not run
     (e.g. "rerank.enabled is false") or None.
Modules are imported on first use; a missing one just leaves its stage "skipped: not installed".
To stop the run early (guard blocked, greeting answered, cache hit) return a state with
`halted="why"` (and `answer` if there is one). A routing stage may change the settings of the
stages after it by returning a state with `overrides` (dotted config paths, e.g.
{"retrieval.top_k": 5}): the runner validates them and hands later stages that config.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from rag.config import PipelineConfig, with_overrides
from rag.retrieve.base import Candidate, RankedList, SearchQuery, as_candidates
from rag.retrieve.fuse_filter import FusionResult, fuse_and_filter
from rag.retrieve.search import SearchableCollection, retrieve_candidates
from rag.retrieve.settings import FilterConfig
from rag.trace import StageRecord, StageStatus, Trace

T = TypeVar("T")

STAGE_ORDER = (
    "guard", "understand", "adapt", "retrieve", "fuse", "postprocess", "authority",
    "rerank", "select", "graph", "verify", "context", "generate", "ground",
)  # fmt: skip

# stage -> module that registers it (imported lazily; absent modules mean "not installed").
STAGE_MODULES: Mapping[str, str] = MappingProxyType({
    "guard": "rag.query.stage",
    "understand": "rag.query.stage",
    "adapt": "rag.query.adaptive_router",
    "retrieve": "rag.retrieve.stage",
    "fuse": "rag.retrieve.stage",
    "postprocess": "rag.retrieve.stage",
    "authority": "rag.retrieve.authority",
    "rerank": "rag.rerank.stage",
    "select": "rag.retrieve.stage",
    "graph": "rag.context.graph_stage",
    "verify": "rag.context.self_rag",
    "context": "rag.context.stage",
    "generate": "rag.generate.stage",
    "ground": "rag.grounding.stage",
})  # fmt: skip

# stage -> config section whose `enabled` flag explains a stage that is not installed
_SECTION = MappingProxyType({
    "guard": "query", "understand": "query", "rerank": "rerank", "context": "context",
    "generate": "generation", "ground": "grounding",
})  # fmt: skip


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


class ConversationTurn(Protocol):
    """One earlier message of a conversation (rag.memory's messages fit)."""

    role: str
    content: str


@dataclass(frozen=True)
class PipelineState:
    """What flows between stages. Each stage returns a new state (dataclasses.replace)."""

    query: str  # as the user typed it
    queries: tuple[SearchQuery, ...]  # what retrieval searches; `understand` may rewrite/expand
    filters: FilterConfig  # payload filters (routers may narrow them; `user` sets the owner)
    lists: Mapping[str, RankedList] = field(default_factory=_empty)  # retrieve's output
    candidates: tuple[Candidate, ...] = ()  # the current ranking (fuse, postprocess, rerank …)
    answer: str | None = None
    halted: str = ""  # non-empty: a stage ended the run early, and why
    artifacts: Mapping[str, object] = field(default_factory=_empty)  # stage -> its own output
    overrides: Mapping[str, Any] = field(default_factory=_empty)  # config changes for later stages

    def with_artifact(self, stage: str, value: object) -> PipelineState:
        return replace(self, artifacts=MappingProxyType({**self.artifacts, stage: value}))

    def artifact(self, stage: str, kind: type[T]) -> T | None:
        """Stage `stage`'s output if it ran and is a `kind`, else None."""
        value = self.artifacts.get(stage)
        return value if isinstance(value, kind) else None


class StageEnv:
    """Read-only surroundings of a run: the config, who asks, the clock, the collection
    (opened on first use, so a run that halts early never touches the index)."""

    def __init__(
        self,
        config: PipelineConfig,
        collection: SearchableCollection | None = None,
        *,
        user: str | None = None,
        conversation: Sequence[ConversationTurn] = (),
        now: datetime | None = None,
    ) -> None:
        self.config = config
        self.user = user
        self.conversation = tuple(conversation)
        self.now = now or datetime.now(UTC)
        self._collection = collection

    @property
    def opened_collection(self) -> SearchableCollection | None:
        """The collection if a stage used it (or the caller passed one), else None."""
        return self._collection

    def collection(self) -> SearchableCollection:
        if self._collection is None:
            from rag.index import open_collection  # late: opens the Qdrant client

            self._collection = open_collection(self.config.index.collection)
        return self._collection


@dataclass(frozen=True)
class StageResult:
    """A stage's return: the next state, and what its trace record shows."""

    state: PipelineState
    outputs: Mapping[str, Any] = field(default_factory=_empty)
    inputs: Mapping[str, Any] = field(default_factory=_empty)
    status: StageStatus = "ok"
    warnings: tuple[str, ...] = ()
    reason: str = ""


def _always_on(config: PipelineConfig) -> str | None:
    return None


@dataclass(frozen=True)
class StageSpec:
    """A registered stage: how to run it, why it might be off, which config section it records."""

    name: str
    run: Callable[[PipelineState, StageEnv], StageResult]
    off_reason: Callable[[PipelineConfig], str | None] = _always_on
    settings: Callable[[PipelineConfig], BaseModel] | None = None


class StageRegistry:
    """STAGE_ORDER names -> StageSpec; `modules` says which module registers each stage and is
    imported on first lookup. Unknown names are an error that lists the valid ones."""

    def __init__(self, modules: Mapping[str, str] | None = None) -> None:
        self._modules = modules or {}
        self._specs: dict[str, StageSpec] = {}

    def add(self, name: str, spec: StageSpec) -> None:
        if name not in STAGE_ORDER:
            raise ValueError(f"unknown pipeline stage {name!r}; valid: {', '.join(STAGE_ORDER)}")
        if name in self._specs:
            raise ValueError(f"pipeline stage {name!r} is registered twice")
        if spec.name != name:
            raise ValueError(f"stage registered as {name!r} is named {spec.name!r}")
        self._specs[name] = spec

    def find(self, name: str) -> StageSpec | None:
        """The stage registered under `name`, importing its module on first use."""
        module = self._modules.get(name)
        if name not in self._specs and module is not None:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
        return self._specs.get(name)

    def names(self) -> list[str]:
        return [name for name in STAGE_ORDER if self.find(name) is not None]


STAGES = StageRegistry(STAGE_MODULES)

# Called with the final state and the config after every run_query; stage modules append to it
# when they load (rag.query.stage: the semantic cache stores the generated answer).
AFTER_RUN: list[Callable[[PipelineState, PipelineConfig], object]] = []


def _not_installed_reason(name: str, config: PipelineConfig) -> tuple[str, tuple[str, ...]]:
    """Why a stage nobody registered did not run; a warning too when the config asked for it."""
    section = _SECTION.get(name)
    enabled = getattr(getattr(config, section), "enabled", None) if section else None
    if enabled is False:
        return f"{section}.enabled is false", ()
    reason = f"stage not installed (nothing in {STAGE_MODULES.get(name, '?')} registers it)"
    return reason, (reason,) if enabled else ()


def initial_state(query: str, config: PipelineConfig, user: str | None = None) -> PipelineState:
    filters = config.retrieval.filters
    if user is not None and filters.owner is None:  # a user sees public + their own chunks
        filters = filters.model_copy(update={"owner": user})
    return PipelineState(query=query, queries=(SearchQuery(query),), filters=filters)


def _settings_of(spec: StageSpec, config: PipelineConfig) -> Mapping[str, Any]:
    return spec.settings(config).model_dump(mode="json") if spec.settings else {}


def _run_one(
    spec: StageSpec, state: PipelineState, env: StageEnv, raise_errors: bool
) -> tuple[StageRecord, PipelineState, str]:
    """Run one stage: its record, the next state, and the failure text (empty if none)."""
    settings = _settings_of(spec, env.config)
    off = spec.off_reason(env.config)
    if off is not None:
        return StageRecord(spec.name, "skipped", settings=settings, reason=off), state, ""
    started = time.perf_counter()
    try:
        result = spec.run(state, env)
    except Exception as exc:  # recorded: the trace names the failed stage and the error
        if raise_errors:
            raise
        wall_ms = (time.perf_counter() - started) * 1000
        failed = f"{spec.name}: {type(exc).__name__}: {exc}"
        return (
            StageRecord(spec.name, "failed", settings, wall_ms=wall_ms, reason=failed),
            state,
            failed,
        )
    record = StageRecord(
        spec.name, result.status, settings, result.inputs, result.outputs,
        (time.perf_counter() - started) * 1000, result.warnings, result.reason,
    )  # fmt: skip
    return record, result.state, ""


def run_stages(
    state: PipelineState,
    env: StageEnv,
    trace: Trace,
    *,
    raise_errors: bool = False,
    stages: StageRegistry = STAGES,
) -> PipelineState:
    """Run STAGE_ORDER over `state`, appending one record per stage to `trace`. When a stage
    sets `state.overrides`, the stages after it see `env.config` with those fields replaced."""
    failed = ""
    base, applied = env.config, state.overrides
    for name in STAGE_ORDER:
        if state.overrides != applied:
            applied = state.overrides
            env.config = with_overrides(base, dict(applied))
        if failed or state.halted:
            why = f"an earlier stage failed: {failed}" if failed else f"not reached: {state.halted}"
            trace.add(StageRecord(name, "skipped", reason=why))
            continue
        try:
            spec = stages.find(name)
        except ImportError as exc:  # a stage module that cannot load fails its stage, recorded
            if raise_errors:
                raise
            failed = f"{name}: cannot import its module: {exc}"
            trace.add(StageRecord(name, "failed", reason=failed))
            continue
        if spec is None:
            reason, warnings = _not_installed_reason(name, env.config)
            trace.add(StageRecord(name, "skipped", reason=reason, warnings=warnings))
            continue
        record, state, failed = _run_one(spec, state, env, raise_errors)
        trace.add(record)
    return state


def run_query(
    query: str,
    config: PipelineConfig,
    collection: SearchableCollection | None = None,
    *,
    conversation: Sequence[ConversationTurn] | None = None,
    user: str | None = None,
    now: datetime | None = None,
    raise_errors: bool = False,
) -> Trace:
    """Run `query` through every stage of `config`; the Trace records each stage with its
    candidates and all their scores. `collection` defaults to `config.index.collection`."""
    env = StageEnv(config, collection, user=user, conversation=conversation or (), now=now)
    trace = Trace(query=query, preset=config.name, config=config.model_dump(mode="json"))
    final = run_stages(initial_state(query, config, user), env, trace, raise_errors=raise_errors)
    trace.answer = final.answer
    for hook in AFTER_RUN:
        hook(final, config)
    if env.opened_collection is not None:
        trace.collection = env.opened_collection.name
    return trace


def ranked_candidates(trace: Trace) -> tuple[Candidate, ...]:
    """The final ranking of a run: the candidates of the last retrieval-side stage that has them
    (select, else rerank / postprocess / fuse), live or rebuilt from exported JSON."""
    for name in ("select", "rerank", "postprocess", "fuse"):
        record = trace.stage(name)
        if record is not None and record.status != "skipped" and "candidates" in record.outputs:
            return as_candidates(record.outputs["candidates"])
    return ()


__all__ = [
    "AFTER_RUN",
    "STAGES",
    "STAGE_MODULES",
    "STAGE_ORDER",
    "FusionResult",
    "PipelineState",
    "StageEnv",
    "StageRegistry",
    "StageResult",
    "StageSpec",
    "fuse_and_filter",
    "initial_state",
    "ranked_candidates",
    "retrieve_candidates",
    "run_query",
    "run_stages",
]
