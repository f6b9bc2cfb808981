"""Every bundled preset's trace survives JSON: `Trace.from_json(trace.to_json())` rebuilds each
stage's output as the class its StageSpec declares, equal to the live one.

Runs offline over the in-memory collection with the hashing embedder: stages that need an LLM
or a model that is not installed are skipped (and say so), the others produce real outputs.
"""

from __future__ import annotations

import json

import pytest
from pipeline_collection import MemoryCollection, make_chunks

from rag.config import PipelineConfig, available_presets, load_preset, with_overrides
from rag.embed import get_embedder
from rag.pipeline import STAGE_ORDER, STAGES, run_query
from rag.retrieve.search import Retrieved, clear_candidate_cache
from rag.retrieve.stage import FuseOutput, SelectOutput
from rag.trace import Trace

QUERY = "How does reciprocal rank fusion combine the BM25 and dense lists?"


def offline(name: str) -> PipelineConfig:
    return with_overrides(load_preset(name), {"embedding.backend": "hashing"})


@pytest.mark.parametrize("name", available_presets())
def test_trace_json_round_trips_to_equal_typed_outputs(name: str) -> None:
    clear_candidate_cache()
    config = offline(name)
    collection = MemoryCollection(f"roundtrip-{name}", make_chunks(), get_embedder(config.embedding))
    trace = run_query(QUERY, config, collection)
    assert [r.stage for r in trace.records] == list(STAGE_ORDER)
    assert trace.status == "ok", [(r.stage, r.reason) for r in trace.records if r.status == "failed"]

    declared = STAGES.output_types()
    produced = [r for r in trace.records if r.output is not None]
    for record in produced:
        assert isinstance(record.output, declared[record.stage]), record.stage
    for kind in (Retrieved, FuseOutput, SelectOutput):  # retrieval runs under every preset
        assert trace.output(kind) is not None, f"{name}: no {kind.__name__}"

    text = trace.to_json()
    rebuilt = Trace.from_json(text)
    assert [r.stage for r in rebuilt.records] == [r.stage for r in trace.records]
    for live, loaded in zip(trace.records, rebuilt.records, strict=True):
        assert type(loaded.output) is type(live.output), live.stage
        assert loaded.output == live.output, live.stage
        assert (loaded.status, loaded.reason, loaded.warnings) == (
            live.status, live.reason, live.warnings
        )
    for kind in {type(r.output) for r in produced}:
        assert rebuilt.output(kind) == trace.output(kind)
    assert (rebuilt.query, rebuilt.preset, rebuilt.answer, rebuilt.collection) == (
        trace.query, trace.preset, trace.answer, trace.collection
    )
    assert rebuilt.to_dict() == trace.to_dict()
    assert json.loads(rebuilt.to_json()) == json.loads(text)
