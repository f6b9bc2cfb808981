"""The heads cache: what a run reads back from disk is what it computed, and a file left broken
(a run killed mid-write, an older format) is recomputed instead of failing every later run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from eval.data.beir import load_beir
from eval.runs.beir_index import beir_collection, eval_config
from eval.runs.candidates import QueryLists, at_depth, cache_path, retrieve_all
from rag.config import load_preset

DATASET = Path(__file__).resolve().parents[3] / "datasets" / "beir_sample"


def _lists(heads: tuple[QueryLists, ...]) -> list[tuple[object, ...]]:
    return [(h.qid, {name: [(c.chunk_id, c.score) for c in ranked.candidates]
                     for name, ranked in h.lists.items()}, h.head.queries if h.head else None)
            for h in heads]


def test_heads_read_back_equal_the_computed_ones_and_a_broken_file_is_recomputed(
    hashing_presets: None,
) -> None:
    dataset = load_beir(DATASET)
    few = replace(dataset, queries=dict(list(dataset.queries.items())[:4]))
    config = eval_config(load_preset("hybrid"), few)
    collection = beir_collection(few, config, progress=False)
    depth = config.retrieval.depth
    computed, cached = retrieve_all(few, config, collection, depth)
    assert not cached and all(h.lists for h in computed)
    again, cached = retrieve_all(few, config, collection, depth)
    assert cached and _lists(again) == _lists(computed)

    path = cache_path(few, at_depth(config, depth), collection)
    assert path.exists()
    path.write_bytes(path.read_bytes()[:40])  # a gzip stream cut short
    recomputed, cached = retrieve_all(few, config, collection, depth)
    assert not cached and _lists(recomputed) == _lists(computed)
    assert retrieve_all(few, config, collection, depth)[1]  # and stored whole again
    assert not list(path.parent.glob(".*.partial"))
