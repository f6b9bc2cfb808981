"""Each stage is built from its own config section: run over every preset, a stage reads only
the section its trace record shows (`settings`), never another stage's (issue 38, clause 3).
What stages share (the LLM endpoint, the index's embedder and settings key, the answer's
prompt) comes from `env.shared`, taken from the config at the run's edge, not read by a stage;
what an earlier stage decided comes as its declared output (`inputs=`), or, for a router, as
overrides the later stage applies to its own section. A spec has no way to name another
section it reads."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

import pytest
from hashing_presets import use_hashing_presets
from pipeline_collection import MemoryCollection, make_chunks
from section_reads import READS, marked_registry, recording, undeclared

from rag.config import available_presets, load_preset
from rag.embed import get_embedder
from rag.pipeline import initial_state, run_stages
from rag.retrieve.search import clear_candidate_cache
from rag.stages import PipelineState, StageEnv, StageRegistry, StageResult, StageSpec
from rag.trace import Trace

# every route of the adaptive router (dense_only, fusion, two_stage, hierarchical, summarize),
# a greeting, and a comparison
QUESTIONS = ("How does reciprocal rank fusion work?", "hello", "Compare BM25 and dense.",
             "What is a vault?", 'what does "vault passphrase" mean', "Summarize the handbook")


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
def test_every_stage_reads_only_its_own_section(preset: str) -> None:
    stages = marked_registry()
    for question in QUESTIONS:
        trace = _run(stages, preset, question)
        assert not [r.stage for r in trace.records if r.status == "failed"], trace.records
    assert READS, "nothing was recorded"
    assert undeclared(stages, load_preset(preset)) == {}


def test_a_spec_cannot_name_another_section_it_reads() -> None:
    assert "reads" not in {f.name for f in fields(StageSpec)}
    with pytest.raises(TypeError):
        StageSpec("rerank", _peeks_at_fusion, object, reads=("fusion",))  # type: ignore[call-arg]


def _peeks_at_fusion(state: PipelineState, env: StageEnv) -> StageResult:
    return StageResult(state, inputs={"k": env.config.fusion.k})


def test_a_stage_reading_another_section_is_caught() -> None:
    sneaky = StageRegistry()
    sneaky.add("rerank", StageSpec("rerank", _peeks_at_fusion, object, settings=lambda c: c.rerank))
    _run(marked_registry(sneaky), "hybrid", "fusion?")
    assert undeclared(sneaky, load_preset("hybrid")) == {"rerank": {"fusion"}}


def _peeks_at_the_cache(state: PipelineState, env: StageEnv) -> StageResult:
    return StageResult(state, inputs={"cache": env.config.query.cache.enabled,
                                      "guard": env.config.query.guard.enabled})


def test_a_stage_reading_a_section_nested_beside_its_own_is_caught() -> None:
    sneaky = StageRegistry()  # guard's section is query.guard; query.cache is understand's
    sneaky.add("guard", StageSpec("guard", _peeks_at_the_cache, object,
                                  settings=lambda c: c.query.guard))
    sneaky.add("understand", StageSpec("understand", _peeks_at_the_cache, object,
                                       settings=lambda c: c.query))
    _run(marked_registry(sneaky), "hybrid", "fusion?")
    assert undeclared(sneaky, load_preset("hybrid")) == {"guard": {"query.cache"},
                                                         "understand": {"query.guard"}}
