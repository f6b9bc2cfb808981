"""The embedded store shared between processes: a long-lived holder (like the app) and the CLI
on the same data folder; two ingests into one collection at once; a clear message when the
holder will not hand the store over in time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rag.config import PRESET_OVERRIDES_ENV, load_preset, with_overrides
from rag.documents import ingest_paths
from rag.index import delete_collection, open_collection
from rag.index.store_lease import CollectionBusyError
from rag.paths import PROJECT_ROOT, SAMPLES_DIR

HOLDER = Path(__file__).with_name("store_holder.py")
FAQ = SAMPLES_DIR / "lumen-notes-faq.txt"
HANDBOOK = SAMPLES_DIR / "lumen-notes-handbook.md"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A fresh data folder and hashing presets for every process the test starts."""
    return {
        **os.environ,
        "RAG_WORKBENCH_DATA": str(tmp_path / "data"),
        PRESET_OVERRIDES_ENV: "{embedding.backend: hashing}",
        "PYTHONPATH": str(PROJECT_ROOT),
        "RAG_WORKBENCH_STORE_WAIT": "30",
    }


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", args[0], *args[1:]],
        env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


class Holder:
    """The holder process and a line-per-command conversation with it."""

    def __init__(self, env: dict[str, str], name: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(HOLDER), name], env=env, cwd=PROJECT_ROOT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip

    def ask(self, command: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def first_line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()


@pytest.fixture
def holder(env: dict[str, str]) -> Iterator[Holder]:
    done = cli(env, "rag", "ingest", str(FAQ), "--collection", "shared", "--preset", "hybrid")
    assert done.returncode == 0, done.stderr
    started = Holder(env, "shared")
    assert started.first_line().startswith("ok ")  # it queried: it holds the store now
    yield started
    started.proc.kill()
    started.proc.wait()


def test_cli_ingests_and_queries_while_a_long_lived_process_holds_the_store(
    env: dict[str, str], holder: Holder
) -> None:
    assert holder.ask("count").split()[0] == "1"
    ingest = cli(env, "rag", "ingest", str(HANDBOOK), "--collection", "shared",
                 "--preset", "hybrid")  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    assert "1 added" in ingest.stdout
    query = cli(env, "rag", "query", "What does the handbook say about tags?",
                "--collection", "shared", "--json")  # fmt: skip
    assert query.returncode == 0, query.stderr
    sources = {c["chunk"]["metadata"].get("source", "") for c in _final(json.loads(query.stdout))}
    assert any(s.endswith("lumen-notes-handbook.md") for s in sources)
    # the holder sees the new document on its next use, in the manifest and in Qdrant
    documents, points = holder.ask("count").split()
    assert documents == "2" and int(points) > 0
    assert holder.ask("query").startswith("ok ")
    # a holder that keeps a session open past the wait: one clear line, no traceback
    assert holder.ask("hold 20") == "holding"
    busy = cli({**env, "RAG_WORKBENCH_STORE_WAIT": "1"}, "rag", "query", "trash",
               "--collection", "shared")  # fmt: skip
    assert busy.returncode == 2
    assert f"in use by another process (pid {holder.proc.pid})" in busy.stderr
    assert "RAG_WORKBENCH_STORE_WAIT" in busy.stderr and "Traceback" not in busy.stderr


def test_two_ingests_into_one_collection_at_once_both_land(hashing_presets: None) -> None:
    """Two writers (threads here; the write lock is an flock, so processes behave the same) with
    their own Collection objects: one waits for the other and re-reads the manifest first."""
    files = sorted(p for p in SAMPLES_DIR.iterdir() if p.suffix in {".txt", ".md"})
    config = with_overrides(load_preset("hybrid"), {"index.collection": "both"})
    name = f"both-{uuid.uuid4().hex[:8]}"
    open_collection(name, create=True)

    def ingest(paths: list[Path]) -> None:
        open_collection(name).add_documents(ingest_paths(paths).documents, config, progress=False)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(ingest, [files[::2], files[1::2]]))
    collection = open_collection(name)
    assert len(collection.manifest.documents) == len(files)
    assert collection.manifest.chunk_count == collection.store.count() > 0  # nothing lost
    delete_collection(name)


def test_a_writer_that_outlasts_the_wait_gets_a_clear_message(
    hashing_presets: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"busy-{uuid.uuid4().hex[:8]}"
    collection = open_collection(name, create=True)
    monkeypatch.setenv("RAG_WORKBENCH_WRITE_WAIT", "0.2")
    with collection.writing(), pytest.raises(CollectionBusyError, match="another ingest"):
        open_collection(name).remove_document("x")
    delete_collection(name)


def _final(trace: dict) -> list[dict]:
    """The candidates the select stage kept."""
    (select,) = [r for r in trace["records"] if r["stage"] == "select"]
    return select["output"]["candidates"]
