"""The persisted tokenized corpus round-trips, and re-adding a chunk replaces it."""

from __future__ import annotations

from pathlib import Path

from rag.index.sparse.corpus import TokenizedCorpus


def test_corpus_round_trips_through_npz(tmp_path: Path) -> None:
    corpus = TokenizedCorpus()
    corpus.add(["a", "b", "c"], [["apt", "get"], [], ["apt", "apt", "dpkg"]])
    corpus.save(tmp_path / "c.npz")
    loaded = TokenizedCorpus.load(tmp_path / "c.npz")
    assert loaded.chunk_ids == ["a", "b", "c"]
    assert loaded.tokens == [["apt", "get"], [], ["apt", "apt", "dpkg"]]


def test_adding_an_existing_chunk_replaces_it_and_bumps_the_version() -> None:
    corpus = TokenizedCorpus(["a", "b"], [["x"], ["y"]])
    version = corpus.version
    corpus.add(["a"], [["z"]])
    assert corpus.chunk_ids == ["b", "a"] and corpus.tokens == [["y"], ["z"]]
    corpus.remove(["b", "missing"])
    assert corpus.chunk_ids == ["a"] and corpus.version > version


def test_missing_file_loads_empty(tmp_path: Path) -> None:
    assert len(TokenizedCorpus.load(tmp_path / "none.npz")) == 0
