"""Which config sections each stage reads while it runs: a PipelineConfig that records every
section looked up on it, and a registry whose stages say which of them is running."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from rag.settings.context import ContextConfig
from rag.settings.pipeline import PipelineConfig
from rag.settings.query import QueryConfig
from rag.stages import STAGE_ORDER, STAGES, PipelineState, StageEnv, StageRegistry, StageResult, StageSpec

_RUNNING: ContextVar[str | None] = ContextVar("section_reads_stage", default=None)
SECTIONS = frozenset(PipelineConfig.model_fields) - {"name", "description"}
# sections that hold other stages' sections: a read inside them is noted as "query.<field>"
NESTED = {"query": QueryConfig, "context": ContextConfig}


class RecordingConfig(PipelineConfig):
    """A PipelineConfig noting, per running stage, each section read from it."""

    def __getattribute__(self, name: str) -> Any:
        stage = _RUNNING.get()
        if stage is not None and name in SECTIONS:
            READS[stage].add(name)
        return super().__getattribute__(name)


class _RecordingQuery(QueryConfig):
    def __getattribute__(self, name: str) -> Any:
        _note("query", name, QueryConfig)
        return super().__getattribute__(name)


class _RecordingContext(ContextConfig):
    def __getattribute__(self, name: str) -> Any:
        _note("context", name, ContextConfig)
        return super().__getattribute__(name)


def _note(section: str, name: str, kind: type[BaseModel]) -> None:
    stage = _RUNNING.get()
    if stage is not None and name in kind.model_fields:
        READS[stage].add(f"{section}.{name}")


READS: defaultdict[str, set[str]] = defaultdict(set)


def recording(config: PipelineConfig) -> RecordingConfig:
    raw = config.model_dump(mode="json")
    held = RecordingConfig.model_validate(raw)
    # the sections holding others' record their fields too (model_copy, as the runner's
    # overrides make, keeps these classes: a section is re-validated as its own type)
    object.__setattr__(held, "query", _RecordingQuery.model_validate(raw["query"]))
    object.__setattr__(held, "context", _RecordingContext.model_validate(raw["context"]))
    return held


@contextmanager
def running(stage: str) -> Iterator[None]:
    token = _RUNNING.set(stage)
    try:
        yield
    finally:
        _RUNNING.reset(token)


def _marked(spec: StageSpec) -> StageSpec:
    def run(state: PipelineState, env: StageEnv) -> StageResult:
        with running(spec.name):
            return spec.run(state, env)

    def off(config: PipelineConfig) -> str | None:
        with running(spec.name):
            return spec.off_reason(config)

    return replace(spec, run=run, off_reason=off)


def marked_registry(source: StageRegistry = STAGES) -> StageRegistry:
    """Every stage of `source`, run so the recording config knows which is reading."""
    stages = StageRegistry()
    for name in STAGE_ORDER:
        spec = source.find(name)
        if spec is not None:
            stages.add(name, _marked(spec))
    return stages


def own_sections(spec: StageSpec, config: PipelineConfig) -> set[str]:
    """The sections a stage's `settings` (what its trace record shows) is taken from."""
    seen: set[str] = set()
    if spec.settings is not None:
        probe = recording(config)
        token = _RUNNING.set("-own-")
        try:
            spec.settings(probe)
        finally:
            _RUNNING.reset(token)
        seen = READS.pop("-own-", set())
    # the most specific: `query.guard`, not the `query` it was reached through
    return {a for a in seen if not any(b != a and _within(b, a) for b in seen)}


def _within(path: str, section: str) -> bool:
    return path == section or path.startswith(section + ".")


def _owned(read: str, own: set[str], others: set[str]) -> bool:
    """A read is the stage's when it is inside one of its sections but not inside one another
    stage owns there (query.guard is the guard's, not understand's), or when it is the parent
    a stage passes through to its own (`config.query` on the way to `query.guard`)."""
    for mine in own:
        if _within(mine, read):
            return True
        if _within(read, mine):
            inner = [o for o in others if o != mine and _within(o, mine)]
            return not any(_within(read, o) for o in inner)
    return False


def undeclared(stages: StageRegistry, config: PipelineConfig) -> dict[str, set[str]]:
    """stage -> the sections it read in the runs recorded so far that are not its own."""
    owners = {name: own_sections(spec, config) for name in stages.order
              if (spec := stages.find(name)) is not None}
    found: dict[str, set[str]] = {}
    for name, read in READS.items():
        if name not in owners:
            continue
        others = set().union(*(o for n, o in owners.items() if n != name))
        extra = {r for r in read if not _owned(r, owners[name], others)}
        if extra:
            found[name] = extra
    return found
