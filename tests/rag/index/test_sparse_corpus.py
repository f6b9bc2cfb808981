"""The persisted tokenized corpus round-trips, re-adding a chunk replaces it, a save cut short
leaves the previous file, and an unreadable file is reported as damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.index.sparse.corpus import DamagedCorpusError, TokenizedCorpus


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


def test_a_save_cut_short_leaves_the_previous_corpus_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.npz"
    TokenizedCorpus(["a"], [["apt"]]).save(path)

    def killed(target: Path, **_: object) -> None:  # kill -9 after half the bytes
        Path(target).write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", killed)
    with pytest.raises(KeyboardInterrupt):
        TokenizedCorpus(["a", "b"], [["apt"], ["dpkg"]]).save(path)
    assert TokenizedCorpus.load(path).chunk_ids == ["a"]
    monkeypatch.undo()
    TokenizedCorpus(["b"], [["dpkg"]]).save(path)  # the next save clears what the kill left
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]
    assert TokenizedCorpus.load(path).chunk_ids == ["b"]


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 cut", b"not a zip at all"])
def test_an_unreadable_file_is_named_in_a_damaged_corpus_error(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / "c.npz").write_bytes(content)
    with pytest.raises(DamagedCorpusError, match=r"c\.npz"):
        TokenizedCorpus.load(tmp_path / "c.npz")
