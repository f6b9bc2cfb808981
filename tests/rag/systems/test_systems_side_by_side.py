"""One query through several presets: facts read from the traces, what differs, and the
adaptive router's overrides reaching the later stages of a real run."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from rag.config import PipelineConfig, load_preset, with_overrides
from rag.embed import get_embedder
from rag.query.adaptive_router import TOP_K, AdaptivePlan
from rag.retrieve.search import clear_candidate_cache
from rag.retrieve.stage import SelectOutput
from rag.systems import (
    Comparison,
    compare,
    differences,
    trace_facts,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/rag: the shared collection
from pipeline_collection import MemoryCollection, make_chunks

OFFLINE = {"embedding.backend": "openai", "embedding.model": "hashed-bow-systems",
           "generation.mode": "extractive", "grounding.model_check": "none",
           "rerank.enabled": False}


def preset(name: str, **more: object) -> PipelineConfig:
    return with_overrides(load_preset(name), {**OFFLINE, **more})


@pytest.fixture(scope="module")
def collection() -> Iterator[MemoryCollection]:
    with FakeOpenAI() as server:  # hashed bag-of-words embeddings over HTTP
        saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.base_url, "sk-test"
        clear_candidate_cache()
        embedder = get_embedder(preset("axiom").embedding)
        yield MemoryCollection("mem-systems", make_chunks(), embedder)
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def run(query: str, configs: list[PipelineConfig], collection: MemoryCollection) -> Comparison:
    return compare(query, configs, lambda c: (c, collection))


def test_a_greeting_is_answered_without_retrieval_by_the_intent_routers_only(
    collection: MemoryCollection,
) -> None:
    result = run("hello there", [preset("axiom"), preset("intellidocs")], collection)
    axiom, intellidocs = result.runs
    assert axiom.facts == ("answered a greeting without retrieval (rules layer)",)
    assert axiom.trace.stage("retrieve").status == "skipped" and axiom.sources == ()
    assert any(f.startswith("fused 2 list(s) by rrf k=60") for f in intellidocs.facts)
    assert result.differences["axiom"] == axiom.facts


def test_expansion_and_the_adaptive_route_show_and_shared_facts_drop_out(
    collection: MemoryCollection,
) -> None:
    query = "How does reciprocal rank fusion combine the bm25 and dense lists?"
    unfiltered = preset("adaptive", **{"retrieval.depth": 40, "postprocess.threshold": None})
    result = run(query, [preset("echomind"), unfiltered], collection)
    echomind, adaptive = result.runs
    assert "expanded to 2 queries" in echomind.facts  # the offline keyword variant
    route = next(f for f in adaptive.facts if f.startswith("adaptive route"))
    strategy = route.split()[2].lower()
    # the runner handed the route's top_k to the select stage of the same run
    assert adaptive.trace.output(SelectOutput).top_k == TOP_K[strategy]
    assert adaptive.trace.output(AdaptivePlan).overrides["retrieval.routed_top_k"] == TOP_K[strategy]
    assert adaptive.grounded_share is not None and echomind.grounded_share is None
    assert [s.n for s in adaptive.sources] == list(range(1, len(adaptive.sources) + 1))


def test_differences_keep_only_what_not_every_system_did(collection: MemoryCollection) -> None:
    runs = run("what is bm25", [preset("intellidocs"), preset("intellidocs")], collection).runs
    assert differences(runs) == {"intellidocs": ()}
    assert trace_facts(runs[0].trace) == runs[0].facts
