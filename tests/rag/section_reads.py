"""Which config sections each stage reads while it runs: a PipelineConfig that records every
section looked up on it, and a registry whose stages say which of them is running."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGE_ORDER, STAGES, PipelineState, StageEnv, StageRegistry, StageResult, StageSpec

_RUNNING: ContextVar[str | None] = ContextVar("section_reads_stage", default=None)
SECTIONS = frozenset(PipelineConfig.model_fields) - {"name", "description"}


class RecordingConfig(PipelineConfig):
    """A PipelineConfig noting, per running stage, each section read from it."""

    def __getattribute__(self, name: str) -> Any:
        stage = _RUNNING.get()
        if stage is not None and name in SECTIONS:
            READS[stage].add(name)
        return super().__getattribute__(name)


READS: defaultdict[str, set[str]] = defaultdict(set)


def recording(config: PipelineConfig) -> RecordingConfig:
    return RecordingConfig.model_validate(config.model_dump(mode="json"))


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
    return seen


def undeclared(stages: StageRegistry, config: PipelineConfig) -> dict[str, set[str]]:
    """stage -> the sections it read in the runs recorded so far that are not its own."""
    found: dict[str, set[str]] = {}
    for name, read in READS.items():
        spec = stages.find(name)
        if spec is not None:
            extra = read - own_sections(spec, config)
            if extra:
                found[name] = extra
    return found
