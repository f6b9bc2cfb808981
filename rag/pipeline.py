"""The pipeline runner: the one way stages are composed, into a Trace.

Stages run in STAGE_ORDER:

    guard → understand → adapt → retrieve → fuse → postprocess → authority → rerank → select
    → graph → verify → context → generate → ground → abstain

A stage is a `StageSpec` registered in STAGES under one of those names. It reads the frozen
`PipelineState` and returns a `StageResult`: the next state and its `output`, a frozen typed
object of the class the spec declares (`StageSpec.output`). The runner times each stage, checks
the output's type, stores it in the stage's StageRecord and in `state.artifacts` (so later stages
read `state.artifact("rerank", RerankResult)`), and readers of a finished run use
`trace.output(RerankResult)`. A stage that is off for this config, not installed, or comes after
a halt is recorded as "skipped" with the reason; a stage that degraded returns status "fallback"
with a warning and the run goes on; an exception is recorded as "failed" (once) and the stages
after it say "skipped: <stage> failed".

Any contiguous slice of STAGE_ORDER runs over a seeded state (`run_slice(state, …, first="fuse",
last="select")`): the Retrieval page, eval's retrieval mode and sweeps re-run the retrieval tail
over cached candidate lists through the same specs `run_query` uses, so nothing is wired twice.

Adding a stage (e.g. rerank):
  1. in the module STAGE_MODULES names for it (rag/rerank/stage.py), write a frozen dataclass
     for what it produces and `def run(state: PipelineState, env: StageEnv) -> StageResult`
     that reads `state.candidates` and returns `StageResult(replace(state, candidates=new),
     output=RerankResult(...))`;
  2. at the end of that module: `STAGES.add("rerank", StageSpec("rerank", run, RerankResult,
     off_reason, settings=lambda c: c.rerank))`, where `off_reason(config)` returns why it does
     not run (e.g. "rerank.enabled is false") or None. Work to do after a whole run (e.g. storing
     the answer in the semantic cache) goes in `after_run=`.
Modules are imported on first use; a missing one just leaves its stage "skipped: not installed".
To stop the run early (guard blocked, greeting answered, cache hit) return a state with
`halted="why"` (and `answer` if there is one). A routing stage may change the settings of the
stages after it by returning a state with `overrides` (dotted config paths, e.g.
{"retrieval.top_k": 5}): the runner validates them and hands later stages that config.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, Protocol, TypeVar, cast

from pydantic import BaseModel

from rag.config import PipelineConfig, with_overrides
from rag.generate.deadline import llm_deadline
from rag.index.embedding_pin import pinned_for
from rag.privacy import normalize_user
from rag.retrieve.base import Candidate, RankedList, SearchQuery
from rag.retrieve.search import SearchableCollection
from rag.retrieve.settings import FilterConfig
from rag.trace import StageRecord, StageStatus, Trace

T = TypeVar("T")

STAGE_ORDER = (
    "guard", "understand", "adapt", "retrieve", "fuse", "postprocess", "authority",
    "rerank", "select", "graph", "verify", "context", "generate", "ground", "abstain",
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
    "abstain": "rag.abstain.stage",
})  # fmt: skip

# stage -> config section whose `enabled` flag explains a stage that is not installed
_SECTION = MappingProxyType({
    "guard": "query", "understand": "query", "rerank": "rerank", "context": "context",
    "generate": "generation", "ground": "grounding", "abstain": "abstain",
})  # fmt: skip

# Config sections read only by the stages after `retrieve`: the lists a run retrieves do not
# depend on them, so a page may cache the head of a run and re-run the tail as they change.
TAIL_SECTIONS = ("fusion", "postprocess", "rerank", "context", "generation", "grounding", "abstain")


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


class ConversationTurn(Protocol):
    """One earlier message of a conversation (rag.memory's messages fit). Read-only, so frozen
    dataclasses (rag.generate.base.Message) fit too."""

    @property
    def role(self) -> str: ...

    @property
    def content(self) -> str: ...


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
    artifacts: Mapping[str, object] = field(default_factory=_empty)  # stage -> its typed output
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
        self._index: SearchableCollection | None = None

    @property
    def opened_collection(self) -> SearchableCollection | None:
        """The index a stage read (or the collection the caller passed), else None."""
        return self._index or self._collection

    def collection(self) -> SearchableCollection:
        """The index this run's config reads: the collection's own, or the one derived from its
        documents for other chunking/embedding settings (built on first use, rag/index/derived.py)."""
        if self._index is None:
            if self._collection is None:
                from rag.index import open_collection  # late: opens the Qdrant client

                self._collection = open_collection(self.config.index.collection)
            self._index = self._collection
            if getattr(self._collection, "keeps_texts", False):  # a stored set of documents
                from rag.index.derived import index_for

                self._index = index_for(self._collection, self.config)  # type: ignore[arg-type]
        return self._index


@dataclass(frozen=True)
class StageResult:
    """A stage's return: the next state, its typed output (None when it did nothing to show),
    and a short summary of what it read (`inputs`, for display only)."""

    state: PipelineState
    output: object | None = None
    inputs: Mapping[str, Any] = field(default_factory=_empty)
    status: StageStatus = "ok"
    warnings: tuple[str, ...] = ()
    reason: str = ""


def _always_on(config: PipelineConfig) -> str | None:
    return None


@dataclass(frozen=True)
class StageSpec:
    """A registered stage: how to run it, the type of its output, why it might be off, which
    config section it records, what to do once a whole run has finished, and whether it runs
    after a halt."""

    name: str
    run: Callable[[PipelineState, StageEnv], StageResult]
    output: type
    off_reason: Callable[[PipelineConfig], str | None] = _always_on
    settings: Callable[[PipelineConfig], BaseModel] | None = None
    after_run: Callable[[PipelineState, PipelineConfig], object] | None = None
    runs_after_halt: bool = False  # still runs when an earlier stage halted (abstain decides on it)


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

    def output_types(self) -> dict[str, type]:
        """stage -> the class of its output, for every installed stage (rebuilds JSON traces)."""
        return {name: spec.output for name in STAGE_ORDER if (spec := self.find(name))}


STAGES = StageRegistry(STAGE_MODULES)


def stage_slice(first: str | None = None, last: str | None = None) -> tuple[str, ...]:
    """The stages from `first` to `last` inclusive (default: all); unknown names list the valid."""
    for name in (first, last):
        if name is not None and name not in STAGE_ORDER:
            raise ValueError(f"unknown pipeline stage {name!r}; valid: {', '.join(STAGE_ORDER)}")
    lo = STAGE_ORDER.index(first) if first else 0
    hi = STAGE_ORDER.index(last) if last else len(STAGE_ORDER) - 1
    if lo > hi:
        raise ValueError(f"stage {first!r} comes after {last!r} in {' → '.join(STAGE_ORDER)}")
    return STAGE_ORDER[lo : hi + 1]


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
        filters = filters.model_copy(update={"owner": normalize_user(user)})
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
    record = StageRecord(
        spec.name, result.status, settings, result.inputs, result.output,
        (time.perf_counter() - started) * 1000, result.warnings, result.reason,
    )  # fmt: skip
    next_state = result.state
    if result.output is not None:
        next_state = next_state.with_artifact(spec.name, result.output)
    return record, next_state, ""


def _runs_after_halt(stages: StageRegistry, name: str) -> bool:
    try:
        spec = stages.find(name)
    except ImportError:
        return False
    return spec is not None and spec.runs_after_halt


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
    """Run the stages `first`..`last` of STAGE_ORDER (default: all) over `state`, appending one
    record per stage to `trace`. `state.overrides` (set by a routing stage, or carried in a
    seeded state) are applied to `env.config` for every stage that runs after they appear."""
    failed = ""
    base = env.config
    applied: Mapping[str, Any] = MappingProxyType({})
    for name in stage_slice(first, last):
        if state.overrides != applied:
            applied = state.overrides
            env.config = with_overrides(base, dict(applied))
        if failed or (state.halted and not _runs_after_halt(stages, name)):
            why = f"{failed} failed" if failed else f"not reached: {state.halted}"
            trace.add(StageRecord(name, "skipped", reason=why))
            continue
        try:
            spec = stages.find(name)
        except ImportError as exc:  # a stage module that cannot load fails its stage, recorded
            if raise_errors:
                raise
            failed = name
            trace.add(StageRecord(name, "failed", reason=f"cannot import its module: {exc}"))
            continue
        if spec is None:
            reason, warnings = _not_installed_reason(name, env.config)
            trace.add(StageRecord(name, "skipped", reason=reason, warnings=warnings))
            continue
        record, state, failed = _run_one(spec, state, env, raise_errors)
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
    collection: SearchableCollection | None = None,
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
    config = pinned_for(config, collection)  # the ONNX graph the collection's vectors came from
    env = StageEnv(config, collection, user=user, conversation=conversation or (), now=now)
    trace = Trace(query=state.query, preset=config.name, config=config.model_dump(mode="json"))
    with llm_deadline(config.generation.deadline_s):  # bounds every LLM call of this run
        final = run_stages(state, env, trace, first=first, last=last, raise_errors=raise_errors)
    trace.answer = final.answer
    if env.opened_collection is not None:
        trace.collection = env.opened_collection.name
    return SliceRun(final, trace)


def run_query(
    query: str,
    config: PipelineConfig,
    collection: SearchableCollection | None = None,
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
    config = pinned_for(config, collection)  # what the stages ran with, for after_run too
    done = run_slice(initial_state(query, config, user), config, collection, last=last,
                     conversation=conversation, user=user, now=now, raise_errors=raise_errors)
    if last is None:
        for name in STAGE_ORDER:
            spec = STAGES.find(name)
            record = done.trace.stage(name)
            if spec and spec.after_run and record is not None and record.status != "skipped":
                spec.after_run(done.state, config)
    return done.trace


def run_head(
    query: str,
    config: PipelineConfig,
    collection: SearchableCollection | None = None,
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
    collection: SearchableCollection | None = None,
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
    wished = head.overrides.get("retrieval.top_k")
    if isinstance(wished, int) and wished > config.retrieval.depth:
        # A router capped its top_k at the (deeper) depth the head searched; at this depth it
        # would have capped it here (rag.query.adaptive_router: top_k ≤ retrieval.depth).
        capped = {**head.overrides, "retrieval.top_k": config.retrieval.depth}
        head = replace(head, overrides=MappingProxyType(capped))
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
    "StageEnv",
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
