"""One builder per ONNX build: a process that finds another one building waits for its graph
instead of building its own copy, and a build that never ends is named, not waited on forever.
Builds are kept once per machine (the user's cache folder), not once per data folder."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import portalocker
import pytest

from rag.embed import onnx_build
from rag.embed.base import EmbeddingModelError


def _holding_the_lock(models: Path, key: str) -> portalocker.Lock:
    lock = portalocker.Lock(models / f".{key}.lock", "a", flags=portalocker.LOCK_EX)
    lock.acquire()
    return lock


def test_a_second_caller_waits_for_the_builder_and_builds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(onnx_build.MODELS_ENV, str(tmp_path))
    builds: list[str] = []
    monkeypatch.setattr(onnx_build, "_build", lambda variant, target: builds.append(variant))
    key = onnx_build.build_key("fp32")
    other = _holding_the_lock(tmp_path, key)  # "another process" is building
    found: list[tuple[Path, str]] = []
    waiter = threading.Thread(target=lambda: found.append(onnx_build.built_minilm("fp32")))
    waiter.start()
    time.sleep(0.5)
    assert waiter.is_alive() and not found  # waiting, not building
    (tmp_path / key).mkdir()
    (tmp_path / key / "model.onnx").write_bytes(b"graph")  # the other builder's result
    other.release()
    waiter.join(timeout=30)
    assert found == [(tmp_path / key / "model.onnx", key)] and builds == []


def test_a_build_that_holds_the_lock_too_long_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(onnx_build.MODELS_ENV, str(tmp_path))
    monkeypatch.setattr(onnx_build, "_BUILD_WAIT_S", 0.3)
    key = onnx_build.build_key("fp32")
    other = _holding_the_lock(tmp_path, key)
    try:
        with pytest.raises(EmbeddingModelError, match="another process has been building"):
            onnx_build.built_minilm("fp32")
    finally:
        other.release()


def test_builds_are_kept_once_per_machine_not_per_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(onnx_build.MODELS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folders = []
    for data in ("first", "second"):
        monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / data))
        folders.append(onnx_build.models_dir())
    assert folders == [tmp_path / "xdg" / "rag-workbench" / "onnx"] * 2


def test_a_build_an_older_version_kept_in_the_data_folder_is_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(onnx_build.MODELS_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(onnx_build, "_build", lambda variant, target: pytest.fail("rebuilt"))
    key = onnx_build.build_key("fp32")
    older = tmp_path / "data" / "cache" / "models" / key / "model.onnx"
    older.parent.mkdir(parents=True)
    older.write_bytes(b"graph")
    assert onnx_build.built_minilm("fp32") == (older, key)
