"""Stages declare what they read: the runner checks each declared input before the stage runs,
and a missing or mistyped one is an error naming both stages."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import pytest

from rag.config import load_preset
from rag.pipeline import (
    STAGE_ORDER,
    STAGES,
    PipelineState,
    StageEnv,
    StageInput,
    StageInputError,
    StageRegistry,
    StageResult,
    StageSpec,
    initial_state,
    run_stages,
)
from rag.trace import Trace


@dataclass(frozen=True)
class Said:
    text: str


@dataclass(frozen=True)
class Heard:
    text: str


def _say(state: PipelineState, env: StageEnv) -> StageResult:
    return StageResult(state, output=Said("hello"))


def _hear(state: PipelineState, env: StageEnv) -> StageResult:
    said = state.artifact("guard", Said)
    return StageResult(state, output=Heard(said.text if said else ""))


def registry(need: StageInput, *, with_guard: bool = True) -> StageRegistry:
    stages = StageRegistry()
    if with_guard:
        stages.add("guard", StageSpec("guard", _say, Said))
    stages.add("understand", StageSpec("understand", _hear, Heard, inputs=(need,)))
    return stages


def run(stages: StageRegistry, state: PipelineState | None = None, raise_errors: bool = False
        ) -> Trace:  # fmt: skip
    config = load_preset("bm25")
    trace = Trace("hi", config.name)
    run_stages(state or initial_state("hi", config), StageEnv(config), trace, stages=stages,
               last="understand", raise_errors=raise_errors)
    return trace


def test_a_declared_input_reaches_the_stage() -> None:
    trace = run(registry(StageInput("guard", Said, required=True)))
    assert trace.output(Heard) == Heard("hello")


def test_a_missing_required_input_fails_the_stage_naming_both() -> None:
    stages = registry(StageInput("guard", Said, required=True), with_guard=False)
    record = run(stages).stage("understand")
    assert record is not None and record.status == "failed"
    assert "stage 'understand' needs stage 'guard'" in record.reason
    with pytest.raises(StageInputError, match="'understand' needs stage 'guard'"):
        run(stages, raise_errors=True)


def test_an_optional_input_may_be_absent() -> None:
    stages = registry(StageInput("guard", Said), with_guard=False)
    assert run(stages).output(Heard) == Heard("")


def test_a_mistyped_input_fails_the_stage_naming_both() -> None:
    # the producer declares Said, the reader expects Heard
    record = run(registry(StageInput("guard", Heard))).stage("understand")
    assert record is not None and record.status == "failed"
    assert "stage 'understand' reads stage 'guard''s output as Heard, but 'guard' produces Said" \
        in record.reason
    # a seeded state holding another type under the producer's name
    seeded = initial_state("hi", load_preset("bm25"))
    seeded = PipelineState(seeded.query, seeded.queries, seeded.filters,
                           artifacts=MappingProxyType({"guard": Heard("x")}))
    stages = StageRegistry()
    stages.add("understand", StageSpec("understand", _hear, Heard,
                                       inputs=(StageInput("guard", Said),)))
    with pytest.raises(StageInputError, match="this run holds a Heard"):
        run(stages, seeded, raise_errors=True)


def test_a_stage_cannot_read_a_later_stage() -> None:
    with pytest.raises(StageInputError, match="'guard' reads stage 'understand', which does not run"):
        StageRegistry().add("guard", StageSpec("guard", _say, Said,
                                               inputs=(StageInput("understand", Heard),)))


def test_every_registered_stage_declares_inputs_its_producers_make() -> None:
    declared = 0
    for name in STAGE_ORDER:
        spec = STAGES.find(name)
        assert spec is not None
        for need in spec.inputs:
            producer = STAGES.find(need.stage)
            assert producer is not None and issubclass(producer.output, need.kind), (name, need)
            declared += 1
    assert declared >= 10  # understand, adapt, fuse, graph, context, generate, ground, abstain
