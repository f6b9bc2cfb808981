"""The stage registry and what flows between stages: the stage order, the frozen PipelineState,
the StageEnv a stage reads, StageResult/StageSpec, and STAGES (name -> spec). The runner that
composes them into a Trace is rag.pipeline; stage modules import only this module, so no stage
(and no stage output type) imports the runner.

Adding a stage (e.g. rerank):
  1. in the module STAGE_MODULES names for it (rag/rerank/stage.py), write a frozen dataclass
     for what it produces and `def run(state: PipelineState, env: StageEnv) -> StageResult`
     that reads `state.candidates` and returns `StageResult(replace(state, candidates=new),
     output=RerankResult(...))`;
  2. at the end of that module: `STAGES.add("rerank", StageSpec("rerank", run, RerankResult,
     off_reason, settings=lambda c: c.rerank))`, where `off_reason(config)` returns why it does
     not run (e.g. "rerank.enabled is false") or None. Work to do after a whole run (e.g. storing
     the answer in the semantic cache) goes in `after_run=`. The earlier outputs it reads go in
     `inputs=(StageInput("understand", Understanding), …)`: the runner checks them first. It
     reads its settings from its own section only (`env.config.rerank`, rag/settings/rerank.py)
     and what stages share from `env.shared` (the LLM endpoint, the index's embedder, the
     answer's prompt, taken from the config at the run's edge); no other section
     (tests/rag/test_stage_sections.py fails on one).
Modules are imported on first use; one that is missing or does not register its stage is an
error (the run records the stage as failed; `raise_errors=True` raises it).
To stop the run early (guard blocked, greeting answered, cache hit) return a state with
`halted="why"` (and `answer` if there is one). A routing stage may change the settings of the
stages after it by returning a state with `overrides` (dotted config paths, e.g.
{"retrieval.routed_top_k": 5}): the runner validates them and hands later stages that config;
it reads none of those sections, and each stage applies what the route asks to its own.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

from rag.hidden_chars import Stripped
from rag.records.hits import Candidate, RankedList, SearchableCollection, SearchQuery
from rag.settings.embedding import EmbeddingConfig
from rag.settings.llm import AnswerPrompt, LLMEndpoint
from rag.settings.pipeline import PipelineConfig
from rag.settings.retrieval import FilterConfig

if TYPE_CHECKING:  # rag.index sits above the stages: its types only, its code late
    from rag.index.document_texts import KeptTexts
    from rag.index.ref import IndexRef

StageStatus = Literal["ok", "skipped", "failed", "fallback", "cache_hit", "blocked"]
T = TypeVar("T")

STAGE_ORDER = (
    "guard", "understand", "adapt", "retrieve", "fuse", "postprocess", "authority",
    "rerank", "select", "graph", "verify", "context", "generate", "ground", "abstain",
)  # fmt: skip

# stage -> module that registers it (imported on first use; a missing one is an error).
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

# Config sections read only by the stages after `retrieve`: the lists a run retrieves do not
# depend on them, so a page may cache the head of a run and re-run the tail as they change.


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


class ConversationTurn(Protocol):
    """One earlier message of a conversation (rag.memory's messages fit). Read-only, so frozen
    dataclasses (rag.llm.base.Message) fit too."""

    @property
    def role(self) -> str: ...

    @property
    def content(self) -> str: ...


@dataclass(frozen=True)
class PipelineState:
    """What flows between stages. Each stage returns a new state (dataclasses.replace)."""

    query: str  # as the user typed it; from the guard stage on, its clean text (rag.query.stage)
    queries: tuple[SearchQuery, ...]  # what retrieval searches; `understand` may rewrite/expand
    filters: FilterConfig  # payload filters (routers may narrow them; `user` sets the owner)
    lists: Mapping[str, RankedList] = field(default_factory=_empty)  # retrieve's output
    candidates: tuple[Candidate, ...] = ()  # the current ranking (fuse, postprocess, rerank …)
    answer: str | None = None
    halted: str = ""  # non-empty: a stage ended the run early, and why
    withheld: str = ""  # non-empty: a stage (abstain) replaced the answer with a decline, and why
    artifacts: Mapping[str, object] = field(default_factory=_empty)  # stage -> its typed output
    overrides: Mapping[str, Any] = field(default_factory=_empty)  # config changes for later stages
    # what the edge stripped from the question (rag.hidden_chars): counts and what tag characters
    # spelled, for the guard and the trace; the raw text itself is never kept
    hidden: Stripped | None = None

    def with_artifact(self, stage: str, value: object) -> PipelineState:
        return replace(self, artifacts=MappingProxyType({**self.artifacts, stage: value}))

    def artifact(self, stage: str, kind: type[T]) -> T | None:
        """Stage `stage`'s output if it ran and is a `kind`, else None."""
        value = self.artifacts.get(stage)
        return value if isinstance(value, kind) else None


@dataclass(frozen=True)
class Shared:
    """What several stages use and no stage's section owns, taken from the config at the edge of
    a run (whenever StageEnv.config is set: at the start, and when a routing stage's overrides
    apply), never by a stage: the LLM endpoint every LLM call goes to, the embedder of the index
    the run reads (pinned to its graph), the collection's name, a key of the settings that
    make that index (chunking, embedding, index), for caches, and the answer's prompt (which the
    context's token budget must fit). A stage reads these, not the generation, embedding,
    chunking or index sections (tests/rag/test_stage_sections.py)."""

    llm: LLMEndpoint
    embedding: EmbeddingConfig
    collection: str
    index_key: str
    prompt: AnswerPrompt

    @classmethod
    def of(cls, config: PipelineConfig) -> Shared:
        made_by = {
            "chunking": config.chunking.model_dump(mode="json"),
            "embedding": config.embedding.model_dump(mode="json", exclude={"batch_size", "cache"}),
            "index": config.index.model_dump(mode="json", exclude={"collection"}),
        }
        canonical = json.dumps(made_by, sort_keys=True, separators=(",", ":"))
        return cls(LLMEndpoint.of(config.generation), config.embedding, config.index.collection,
                   hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16],
                   AnswerPrompt.of(config.generation))


class StageEnv:
    """Read-only surroundings of a run: the config, what stages share (`shared`, taken from the
    config with it), who asks, the clock, and where it reads (`IndexRef`, rag/index/ref.py):
    the ref the caller resolved at the edge, or one resolved on first use from the collection it
    passed or the config names (so a run that halts early never touches the index)."""

    shared: Shared  # taken from the config each time it is set (the config setter below)

    def __init__(
        self,
        config: PipelineConfig,
        collection: IndexRef | SearchableCollection | None = None,
        *,
        user: str | None = None,
        conversation: Sequence[ConversationTurn] = (),
        now: datetime | None = None,
    ) -> None:
        self.config = config
        self.user = user
        self.conversation = tuple(conversation)
        self.now = now or datetime.now(UTC)
        self._source = collection
        self._ref, self._bare = _split(collection)
        self._checked = False  # the ref's stored index checked against the config (index_ref)

    @property
    def config(self) -> PipelineConfig:
        return self._config

    @config.setter
    def config(self, config: PipelineConfig) -> None:
        self._config = config
        self.shared = Shared.of(config)

    @property
    def opened_collection(self) -> SearchableCollection | None:
        """The index a stage read (or the one the caller passed), else None."""
        if self._ref is not None:
            return self._ref.index
        return self._bare

    def index_ref(self) -> IndexRef:
        """Where this run reads, resolved and checked once: the index to search and its
        collection. A stored index built with other index settings than this run's config (an
        Index or a ref handed over for another config) raises IncompatibleConfigError here, in
        the stage that first asks (retrieve, or understand/adapt when they read the index)."""
        if self._ref is None:
            from rag.index import open_collection  # late: these open the Qdrant client
            from rag.index.derived import as_ref

            source = self._source
            if source is None:
                source = open_collection(self.config.index.collection)
            self._ref = as_ref(source, self.config)
        if not self._checked:
            if self._ref.stored is not None:
                self._ref.stored.check_compatible(self.config)
            self._checked = True
        return self._ref

    def collection(self) -> SearchableCollection:
        """The index this run's config reads: the collection's own, or the one derived from its
        documents for other chunking/embedding settings (built on first use, rag/index/derived.py)."""
        return self.index_ref().index

    def kept_texts(self) -> tuple[KeptTexts | None, str]:
        """The kept document text of the collection this run reads, or None and why: nothing
        opened yet in this run and nothing passed (no stage searched), or an index without its
        collection (rag.index.ref.IndexRef.kept_texts)."""
        if self._ref is not None:
            return self._ref.kept_texts()
        if self._source is None:
            return None, "no collection was opened in this run"
        from rag.index.ref import kept_texts_of

        return kept_texts_of(self._source)  # not resolved: no derived index built for the text


def _split(source: IndexRef | SearchableCollection | None
           ) -> tuple[IndexRef | None, SearchableCollection | None]:  # fmt: skip
    """(source, None) for an IndexRef, else (None, source): a bare index or nothing."""
    from rag.index.ref import IndexRef

    return (source, None) if isinstance(source, IndexRef) else (None, source)


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
class StageInput:
    """An earlier stage's output a stage reads (`state.artifact(stage, kind)`): the runner
    checks it before the stage runs. `required`: the stage cannot run without it."""

    stage: str
    kind: type
    required: bool = False


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
    after_run: Callable[[PipelineState, PipelineConfig, Shared], object] | None = None
    runs_after_halt: bool = False  # still runs when an earlier stage halted (abstain decides on it)
    inputs: tuple[StageInput, ...] = ()  # the earlier stages' outputs it reads
    # No other config section: a stage reads its own (`settings`) and `env.shared`, nothing else
    # (tests/rag/test_stage_sections.py fails on any other section a stage reads).


class StageInputError(TypeError):
    """A stage's declared input is missing, mistyped, or not an earlier stage's: names both."""


class StageModuleError(ImportError):
    """A stage module that imports but does not register the stage STAGE_MODULES names it for."""


class StageRegistry:
    """STAGE_ORDER names -> StageSpec; `modules` says which module registers each stage and is
    imported on first lookup. Unknown names are an error that lists the valid ones."""

    def __init__(
        self, modules: Mapping[str, str] | None = None, order: tuple[str, ...] = STAGE_ORDER
    ) -> None:
        self._modules = modules or {}
        self._specs: dict[str, StageSpec] = {}
        self.order = order  # the run order of its stages (the query's, or the ingest's)

    def add(self, name: str, spec: StageSpec) -> None:
        order = self.order
        if name not in order:
            raise ValueError(f"unknown pipeline stage {name!r}; valid: {', '.join(order)}")
        if name in self._specs:
            raise ValueError(f"pipeline stage {name!r} is registered twice")
        if spec.name != name:
            raise ValueError(f"stage registered as {name!r} is named {spec.name!r}")
        for need in spec.inputs:
            if need.stage not in order[: order.index(name)]:
                raise StageInputError(f"stage {name!r} reads stage {need.stage!r}, which does not "
                                      f"run before it in {' → '.join(order)}")
        self._specs[name] = spec

    def find(self, name: str) -> StageSpec | None:
        """The stage registered under `name`, importing its module on first use. A module that
        cannot be imported, or that does not register the stage, raises (ImportError): a stage
        of STAGE_ORDER is never silently absent. None only for a registry built without
        modules (a test's partial registry) that lacks the stage."""
        module = self._modules.get(name)
        if name not in self._specs and module is not None:
            importlib.import_module(module)
            if name not in self._specs:
                raise StageModuleError(f"module {module} was imported but registers no stage "
                                       f"{name!r} (STAGES.add({name!r}, StageSpec(...)) at its end)")
        return self._specs.get(name)

    def check_inputs(self, spec: StageSpec, state: PipelineState) -> None:
        """Raise StageInputError, naming both stages, when an input `spec` declares has another
        type than its producer declares, or in `state` is mistyped, or (required) is missing."""
        for need in spec.inputs:
            producer = self.find(need.stage)
            if producer is not None and not issubclass(producer.output, need.kind):
                raise StageInputError(
                    f"stage {spec.name!r} reads stage {need.stage!r}'s output as "
                    f"{need.kind.__name__}, but {need.stage!r} produces {producer.output.__name__}")
            value = state.artifacts.get(need.stage)
            if value is None and need.required:
                raise StageInputError(
                    f"stage {spec.name!r} needs stage {need.stage!r}'s output "
                    f"({need.kind.__name__}), and {need.stage!r} produced none in this run")
            if value is not None and not isinstance(value, need.kind):
                raise StageInputError(
                    f"stage {spec.name!r} reads stage {need.stage!r}'s output as "
                    f"{need.kind.__name__}, but this run holds a {type(value).__name__}")

    def names(self) -> list[str]:
        return [name for name in self.order if self.find(name) is not None]

    def output_types(self) -> dict[str, type]:
        """stage -> the class of its output, for every stage (rebuilds JSON traces)."""
        return {name: spec.output for name in self.order if (spec := self.find(name))}


STAGES = StageRegistry(STAGE_MODULES)


def stage_slice(
    first: str | None = None, last: str | None = None, order: tuple[str, ...] = STAGE_ORDER
) -> tuple[str, ...]:
    """The stages of `order` from `first` to `last` inclusive (default: all); unknown names list
    the valid."""
    for name in (first, last):
        if name is not None and name not in order:
            raise ValueError(f"unknown pipeline stage {name!r}; valid: {', '.join(order)}")
    lo = order.index(first) if first else 0
    hi = order.index(last) if last else len(order) - 1
    if lo > hi:
        raise ValueError(f"stage {first!r} comes after {last!r} in {' → '.join(order)}")
    return order[lo : hi + 1]
