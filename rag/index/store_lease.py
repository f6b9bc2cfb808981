"""Sharing the embedded Qdrant folder between processes: a lease that is handed over on request.

Qdrant Edge lets one process at a time open a shard (it locks the shard's WAL; a second process
fails with WouldBlock), so the embedded client flocks `<folder>/.lock` and holds every shard of
the folder. A process keeps its client open while it works (re-opening reloads the shards) and
gives it up when another process asks:

- `store_session()` is how every read and write reaches the client. Inside a session the client
  stays open; sessions nest and are shared by the threads of one process.
- A process that finds the folder taken drops a request file (`<folder>.wanted/<pid>`) and polls
  the lock, up to `RAG_WORKBENCH_STORE_WAIT` seconds (default 60); then `StoreBusyError` names
  the holder's pid and what to do.
- Every process that holds the client runs a small watcher thread: when a request from another
  live process is pending and none of its own sessions is open, it closes the client. Its next
  session re-opens the folder (waiting its turn the same way) and so reads what others wrote.

With `QDRANT_URL` set, the server serialises access itself and none of this applies.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import portalocker

from rag.index.edge_client import EdgeClient, FolderTakenError
from rag.index.points import StoreClient

WAIT_ENV = "RAG_WORKBENCH_STORE_WAIT"
_DEFAULT_WAIT = 60.0
_POLL = 0.05


class StoreBusyError(RuntimeError):
    """The embedded store stayed in use by another process for longer than the wait allows."""


def store_wait() -> float:
    """Seconds a process waits for the embedded store (`RAG_WORKBENCH_STORE_WAIT`)."""
    return float(os.environ.get(WAIT_ENV, _DEFAULT_WAIT))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _folder_free(location: str) -> bool:
    """True when no client holds the folder's lock (checked without loading a shard)."""
    lock_path = Path(location) / ".lock"
    if not lock_path.exists():
        return True
    with open(lock_path, "r+") as handle:
        try:
            portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.LockException:
            return False
        portalocker.unlock(handle)
        return True


class _Lease:
    """This process's client for one location, its open sessions and its watcher thread."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.client: StoreClient | None = None
        self.location: str | None = None
        self.sessions = 0
        self.opened = 0  # how many times this process opened the folder (tests, diagnostics)
        self._watcher: threading.Thread | None = None

    # -- paths -------------------------------------------------------------------------------
    @staticmethod
    def _requests(location: str) -> Path:
        return Path(location + ".wanted")

    @staticmethod
    def _holder_file(location: str) -> Path:
        return Path(location + ".holder")

    # -- opening and closing (callers hold self.cond) -----------------------------------------
    def client_for(self, location: str, remote: bool) -> StoreClient:
        if self.client is not None and self.location == location:
            return self.client
        if self.client is not None:
            self.close()  # the data dir or URL changed: never hold two clients
        if remote:
            from rag.index.server_client import ServerClient  # late: only server mode needs it

            self.client = ServerClient(location)
        else:
            self.client = self._open_local(location)
            self._start_watcher()
        self.location = location
        return self.client

    def _open_local(self, location: str) -> StoreClient:
        deadline = time.monotonic() + store_wait()
        request = self._requests(location) / str(os.getpid())
        try:
            while True:
                if _folder_free(location):
                    try:
                        client = EdgeClient(Path(location))
                    except FolderTakenError:  # taken between the check and the open
                        pass
                    else:
                        self.opened += 1
                        self._holder_file(location).write_text(str(os.getpid()))
                        _migrate_once(client, location)
                        return client
                if time.monotonic() >= deadline:
                    raise StoreBusyError(self._busy_message(location))
                if not request.exists():
                    request.parent.mkdir(parents=True, exist_ok=True)
                    request.write_text(str(os.getpid()))
                time.sleep(_POLL)
        finally:
            request.unlink(missing_ok=True)

    def _busy_message(self, location: str) -> str:
        holder = self._holder_file(location)
        pid = holder.read_text().strip() if holder.exists() else "?"
        return (
            f"the Qdrant store {location} is in use by another process (pid {pid}) that did not "
            f"hand it over within {store_wait():g} s; wait for it to finish, stop it, raise "
            f"{WAIT_ENV}, or run a Qdrant server and set QDRANT_URL"
        )

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.client, self.location = None, None

    # -- handing over --------------------------------------------------------------------------
    def _start_watcher(self) -> None:
        if self._watcher is None or not self._watcher.is_alive():
            self._watcher = threading.Thread(target=self._watch, name="qdrant-lease", daemon=True)
            self._watcher.start()

    def _watch(self) -> None:
        while True:
            time.sleep(_POLL)
            with self.cond:
                if self.client is None or self.sessions or self.location is None:
                    continue
                if os.environ.get("QDRANT_URL") or not self.wanted(self.location):
                    continue
                self.close()

    def wanted(self, location: str) -> bool:
        """Another live process is waiting for the folder (stale requests are removed)."""
        folder = self._requests(location)
        if not folder.is_dir():
            return False
        for request in folder.iterdir():
            try:
                pid = int(request.name)
            except ValueError:
                continue
            if pid == os.getpid():
                continue
            if _alive(pid):
                return True
            request.unlink(missing_ok=True)
        return False


def _migrate_once(client: EdgeClient, location: str) -> None:
    """Collections an older version kept in qdrant-client's local mode move into Edge."""
    from rag.index.legacy_local import LEGACY_FOLDER, migrate_legacy  # late: rarely needed

    legacy = Path(location).with_name(LEGACY_FOLDER)
    if legacy.is_dir():
        migrate_legacy(client, legacy)


LEASE = _Lease()


@contextlib.contextmanager
def session(location: str, remote: bool) -> Iterator[StoreClient]:
    """The process's client, kept open (not handed to another process) until the block ends."""
    with LEASE.cond:
        client = LEASE.client_for(location, remote)
        LEASE.sessions += 1
    try:
        yield client
    finally:
        with LEASE.cond:
            LEASE.sessions -= 1
            LEASE.cond.notify_all()


WRITE_WAIT_ENV = "RAG_WORKBENCH_WRITE_WAIT"
_DEFAULT_WRITE_WAIT = 600.0


class CollectionBusyError(StoreBusyError):
    """Another process (or thread) kept writing to the collection for longer than the wait."""


@contextlib.contextmanager
def exclusive(lock_path: Path, what: str) -> Iterator[None]:
    """One writer at a time across processes and threads (an flock on `lock_path`); waits up to
    `RAG_WORKBENCH_WRITE_WAIT` seconds (default 600), then raises CollectionBusyError."""
    wait = float(os.environ.get(WRITE_WAIT_ENV, _DEFAULT_WRITE_WAIT))
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = portalocker.Lock(
        lock_path, mode="a", timeout=wait, check_interval=_POLL,
        flags=portalocker.LOCK_EX | portalocker.LOCK_NB,
    )  # fmt: skip
    try:
        lock.acquire()
    except portalocker.LockException:
        raise CollectionBusyError(
            f"{what} is being written by another ingest that did not finish within {wait:g} s; "
            f"try again when it is done, or raise {WRITE_WAIT_ENV}"
        ) from None
    try:
        yield
    finally:
        lock.release()
