"""Registry names (a reranker, a chunking strategy) are checked when the stage that uses them is
built, and where a preset enters (rag.config); a config section alone accepts any name, so
rag.settings imports no stage package (issue 38, clause 4)."""

from __future__ import annotations

import pytest
from hashing_presets import use_hashing_presets
from pipeline_collection import MemoryCollection, make_chunks

from rag.chunking import get_chunker
from rag.config import PresetError, config_from_dict, load_preset
from rag.embed import get_embedder
from rag.pipeline import run_query
from rag.settings.chunking import ChunkingConfig
from rag.settings.rerank import RerankConfig


def test_a_section_takes_any_name() -> None:
    assert RerankConfig(method="colbert").method == "colbert"
    assert ChunkingConfig(strategy="nope", params={}).strategy == "nope"


def test_the_rerank_stage_names_the_valid_rerankers_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    use_hashing_presets(monkeypatch)
    preset = load_preset("hybrid_rerank")
    config = preset.model_copy(update={"rerank": preset.rerank.model_copy(update={"method": "colbert"})})
    memory = MemoryCollection("mem", make_chunks(), get_embedder(config.embedding))
    record = run_query("How does reciprocal rank fusion work?", config, memory).stage("rerank")
    assert record is not None and record.status == "failed"
    assert "valid: cross_encoder, embedding, llm" in record.reason


def test_a_chunker_is_checked_when_built_and_a_preset_when_loaded() -> None:
    with pytest.raises(ValueError, match="unknown chunking strategy 'nope'"):
        get_chunker("nope")
    with pytest.raises(PresetError, match=r"chunking: unknown chunking strategy 'nope'"):
        config_from_dict({"chunking": {"strategy": "nope", "params": {}}})
