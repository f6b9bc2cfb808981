"""Each stage is built from its own config section: run over every preset, a stage reads only
the section its trace record shows (`settings`) and the ones its spec names in `reads`. What
stages share (the LLM endpoint, the index's embedder and settings key) comes from `env.shared`,
taken from the config at the run's edge, not read by a stage; the `reads` left are values kept
in another section, their number held so it can only shrink (issue 38, clause 3)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hashing_presets import use_hashing_presets
from pipeline_collection import MemoryCollection, make_chunks
from section_reads import READS, marked_registry, recording, undeclared

from rag.config import available_presets, load_preset
from rag.embed import get_embedder
from rag.pipeline import STAGE_ORDER, STAGES, initial_state, run_stages
from rag.retrieve.search import clear_candidate_cache
from rag.stages import PipelineState, StageEnv, StageRegistry, StageResult, StageSpec
from rag.trace import Trace

MAX_SHARED_READS = 5  # sum of every spec's `reads` (was 19): lower it as stages stop reading others


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    use_hashing_presets(monkeypatch)
    READS.clear()
    clear_candidate_cache()
    yield
    READS.clear()


def _run(stages: StageRegistry, preset: str, question: str) -> Trace:
    config = recording(load_preset(preset))
    memory = MemoryCollection("mem", make_chunks(), get_embedder(config.embedding))
    trace = Trace(question, preset)
    run_stages(initial_state(question, config), StageEnv(config, memory), trace, stages=stages)
    return trace


@pytest.mark.parametrize("preset", available_presets())
def test_every_stage_reads_only_its_own_section_and_what_it_declares(preset: str) -> None:
    stages = marked_registry()
    for question in ("How does reciprocal rank fusion work?", "hello", "Compare BM25 and dense."):
        trace = _run(stages, preset, question)
        assert not [r.stage for r in trace.records if r.status == "failed"], trace.records
    assert READS, "nothing was recorded"
    assert undeclared(stages, load_preset(preset)) == {}


def test_the_declared_reads_only_shrink() -> None:
    declared = {name: spec.reads for name in STAGE_ORDER if (spec := STAGES.find(name))}
    assert sum(map(len, declared.values())) <= MAX_SHARED_READS, declared
    for name, reads in declared.items():
        assert len(set(reads)) == len(reads), name


def _peeks_at_fusion(state: PipelineState, env: StageEnv) -> StageResult:
    return StageResult(state, inputs={"k": env.config.fusion.k})


def test_a_stage_reading_another_section_undeclared_is_caught() -> None:
    sneaky = StageRegistry()
    sneaky.add("rerank", StageSpec("rerank", _peeks_at_fusion, object, settings=lambda c: c.rerank))
    _run(marked_registry(sneaky), "hybrid", "fusion?")
    assert undeclared(sneaky, load_preset("hybrid")) == {"rerank": {"fusion"}}
    READS.clear()
    declared = StageRegistry()
    declared.add("rerank", StageSpec("rerank", _peeks_at_fusion, object, settings=lambda c: c.rerank,
                                     reads=("fusion",)))
    _run(marked_registry(declared), "hybrid", "fusion?")
    assert undeclared(declared, load_preset("hybrid")) == {}
