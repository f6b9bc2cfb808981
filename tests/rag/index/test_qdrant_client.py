"""One Qdrant client per process: local folder by default, a server when QDRANT_URL is set."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from qdrant_client.local.qdrant_local import QdrantLocal
from qdrant_client.qdrant_remote import QdrantRemote

from rag.index.qdrant_store import Point, QdrantStore, get_client, qdrant_location, release_client
from rag.paths import data_dir


class _VersionOnly(BaseHTTPRequestHandler):
    """Answers the client's version check (GET /) the way a Qdrant server does."""

    checked = threading.Event()

    def do_GET(self) -> None:
        body = json.dumps({"title": "qdrant", "version": "1.20.0"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        _VersionOnly.checked.set()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VersionOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_local_by_default_and_shared() -> None:
    assert qdrant_location() == str(data_dir() / "qdrant")
    assert get_client() is get_client()
    assert isinstance(get_client()._client, QdrantLocal)


def test_qdrant_url_switches_to_server_mode_without_holding_two_clients(
    monkeypatch: pytest.MonkeyPatch, server_url: str
) -> None:
    local = get_client()
    monkeypatch.setenv("QDRANT_URL", server_url)
    remote = get_client()
    assert isinstance(remote._client, QdrantRemote) and remote is not local
    assert get_client() is remote
    assert _VersionOnly.checked.wait(10)  # the client asked the server for its version
    monkeypatch.delenv("QDRANT_URL")
    assert isinstance(get_client()._client, QdrantLocal)


def test_local_writes_commit_without_waiting_for_the_disk_and_survive_a_reopen() -> None:
    store = QdrantStore("wal-check")
    store.drop()
    store.create(4)
    points = [Point(f"c{i}", np.full(4, i + 1.0), (i,), (1.0,), {"chunk_id": f"c{i}"})
              for i in range(3)]
    store.upsert(points)
    connection = get_client()._client.collections["wal-check"].storage.storage
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: no fsync per commit
    release_client()  # the next use opens the folder afresh and reads what was written
    assert set(QdrantStore("wal-check").payloads(["c0", "c1", "c2"])) == {"c0", "c1", "c2"}
    stored = data_dir() / "qdrant" / "collection" / "wal-check" / "storage.sqlite"
    assert sqlite3.connect(stored).execute("SELECT count(*) FROM points").fetchone()[0] == 3
