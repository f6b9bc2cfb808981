"""The five seed presets: every bundled preset validates, and the seeds' numbers survive loading."""

from pathlib import Path

import pytest

from rag.config import available_presets, load_preset, preset_yaml
from rag.systems import FEATURE_KEYS, SYSTEMS, preset_mappings


@pytest.mark.parametrize("name", available_presets())
def test_every_bundled_preset_loads_validates_and_round_trips(name: str, tmp_path: Path) -> None:
    config = load_preset(name)
    assert config.name == name and config.description
    saved = tmp_path / f"{name}.yaml"
    saved.write_text(preset_yaml(config))
    assert load_preset(saved) == config


def test_the_five_systems_are_bundled() -> None:
    assert set(SYSTEMS) <= set(available_presets())


def test_axiom_numbers() -> None:
    c = load_preset("axiom")
    assert (c.fusion.method, c.fusion.k) == ("rrf", 60)
    assert c.chunking.params == {"parent_size": 2000, "parent_overlap": 200,
                                 "child_size": 400, "child_overlap": 50}
    assert (c.retrieval.depth, c.retrieval.top_k, c.retrieval.filters.levels) == (20, 5, ["child"])
    assert (c.rerank.top_n, c.rerank.depth, c.rerank.threshold) == (5, 50, 0.3)
    assert c.rerank.threshold_fallback and c.rerank.normalization == "sigmoid"
    assert (c.grounding.word_weight, c.grounding.trigram_weight) == (0.6, 0.4)
    g = c.grounding
    assert (g.grounded_at, g.ungrounded_below, g.max_retries) == (0.8, 0.3, 2)
    assert c.query.intent.semantic_threshold == 0.85 and c.query.rewrite.history_messages == 5
    assert c.context.expansion == "parent" and c.query.adaptive.summarize_path


def test_echomind_numbers() -> None:
    c = load_preset("echomind")
    assert (c.fusion.method, c.fusion.k) == ("weighted_rrf", 60)
    assert c.fusion.weights == {"dense": 0.6, "bm25": 0.4}
    assert c.chunking.strategy == "doc_type"
    assert c.query.expand.methods == ["multi_query"] and c.query.expand.max_queries == 4
    assert c.index.tokenizer.pattern == "[a-z0-9]{2,}"
    assert c.context.parent_max_chars == 1600 and c.context.compression == "llm"
    assert c.postprocess.prefer_authoritative and c.postprocess.time_decay_half_life_days
    assert c.rerank.method == "llm" and c.rerank.normalization == "divide10"
    assert "parent" not in c.retrieval.filters.levels


def test_adaptive_numbers() -> None:
    c = load_preset("adaptive")
    assert (c.fusion.method, c.fusion.k) == ("rrf", 30)
    assert c.retrieval.depth == 15 and c.retrieval.top_k == 10
    assert (c.postprocess.threshold, c.postprocess.threshold_on) == (0.40, "dense")
    penalties = c.postprocess.content_penalty_factors
    assert penalties == {"glossary": 0.7, "toc": 0.5, "image_credits": 0.6}
    assert c.postprocess.dedupe_threshold == 0.95
    cache = c.query.cache
    assert (cache.precision_threshold, cache.recall_threshold) == (0.95, 0.85)
    assert (cache.ttl_s, cache.capacity) == (300, 1000)
    assert (c.query.spell.min_word_overlap, c.query.spell.min_char_similarity) == (0.5, 0.6)
    assert c.query.adaptive.enabled and c.context.verify.enabled
    assert c.context.ordering == "sandwich"
    assert (c.context.context_window, c.generation.timeout_s) == (8000, 120)


def test_vexora_numbers() -> None:
    c = load_preset("vexora")
    assert (c.fusion.method, c.fusion.alpha) == ("relative_score", 0.3)
    assert c.chunking.strategy == "hierarchical"
    assert (c.retrieval.depth, c.retrieval.top_k, c.postprocess.threshold) == (20, 5, 0.1)
    x = c.context
    assert (x.expand_documents, x.expand_threshold, x.expand_max_chunks) == (3, 0.3, 20)
    assert x.expansion == "document" and x.graph.enabled and x.graph.max_depth == 2
    assert c.rerank.policy == "keep" and c.rerank.top_n == 5
    assert (c.query.rewrite.history_messages, c.query.rewrite.max_assistant_chars) == (6, 500)
    assert c.query.guard.enabled and c.query.adaptive.level_filter and c.grounding.require_citations


def test_intellidocs_numbers() -> None:
    c = load_preset("intellidocs")
    assert (c.chunking.strategy, c.chunking.params) == ("recursive", {"size": 512, "overlap": 50})
    assert (c.postprocess.threshold, c.postprocess.threshold_on) == (0.3, "dense")
    assert c.retrieval.top_k == 5 and c.retrieval.depth == 3 * c.retrieval.top_k
    assert c.rerank.depth == 3 * c.rerank.top_n == 15
    assert c.embedding.model == "all-MiniLM-L6-v2" and c.index.sparse_backend == "qdrant"
    assert not c.query.enabled


def test_mapping_comments_name_known_features_and_cover_the_parts_we_cannot_run() -> None:
    for system in SYSTEMS:
        mapped = preset_mappings(system)
        assert set(mapped) <= FEATURE_KEYS, f"{system}: unknown feature in a mapped() comment"
        assert all(" → " in note for note in mapped.values()), system
    for system in ("axiom", "echomind", "adaptive", "vexora"):  # Chroma, FAISS, PGVector, Weaviate
        assert "Qdrant" in preset_mappings(system)["vector_store"]
    assert "Neo4j" in preset_mappings("vexora")["graph"]
    assert "payload filters" in preset_mappings("vexora")["permissions"]
