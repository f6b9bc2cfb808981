"""Fits off the page's script thread: one worker for the whole process (two cores are shared),
the newest request wins, and the last finished result is what the page uses meanwhile.

A key on the Judge page must answer in ≤ 200 ms; refitting the judge, cross-validating it and
recomputing the scores can take longer under load, so the page asks for a fit and goes on with
the last one that finished ("judge refitting…" while one runs). `synchronous=True` (or the
environment variable RAG_WORKBENCH_SYNC_FIT=1) runs each request at once, in the caller's
thread: for tests, which then see every label's fit without waiting.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

SYNC_ENV = "RAG_WORKBENCH_SYNC_FIT"
FIT = "judge-fit"
_EXECUTORS: dict[str, ThreadPoolExecutor] = {}
_EXECUTOR_LOCK = threading.Lock()


def _executor(name: str = FIT) -> ThreadPoolExecutor:
    """The one worker of `name` (the judge's refits; the slower comparison of the two judges
    has its own, so a minute of encoding never holds a refit up)."""
    with _EXECUTOR_LOCK:
        if name not in _EXECUTORS:
            _EXECUTORS[name] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        return _EXECUTORS[name]


def synchronous_default() -> bool:
    return os.environ.get(SYNC_ENV, "").strip().lower() in {"1", "true", "yes"}


@dataclass(frozen=True)
class Finished(Generic[T]):
    key: Hashable
    value: T


class BackgroundFitter(Generic[T]):
    """One kind of fit for one session: `request(key, compute)` starts it unless that key is
    running or done; a request made while another runs waits (only the newest waits: an older
    waiting one is dropped, its labels are superseded). `latest` is the last finished result.
    A failed fit keeps the previous result and records the error (shown by the page)."""

    def __init__(self, synchronous: bool | None = None, worker: str = FIT) -> None:
        self.synchronous = synchronous_default() if synchronous is None else synchronous
        self.worker = worker
        self._lock = threading.RLock()  # a fit done at once calls back under the lock
        self._running: tuple[Hashable, Future[T]] | None = None
        self._waiting: tuple[Hashable, Callable[[], T]] | None = None
        self._latest: Finished[T] | None = None
        self.error: str | None = None
        self.fits = 0  # finished fits, for tests and the page's status line

    def request(self, key: Hashable, compute: Callable[[], T]) -> None:
        if self.synchronous:
            if self._latest is None or self._latest.key != key:
                self._finish(key, compute)
            return
        with self._lock:
            if self._latest is not None and self._latest.key == key:
                self._waiting = None
                return
            if self._running is not None:
                if self._running[0] != key:
                    self._waiting = (key, compute)
                return
            self._start(key, compute)

    def _start(self, key: Hashable, compute: Callable[[], T]) -> None:
        """Submit (the lock is held)."""
        future = _executor(self.worker).submit(compute)
        self._running = (key, future)
        future.add_done_callback(lambda f: self._done(key, f))

    def _done(self, key: Hashable, future: Future[T]) -> None:
        with self._lock:
            try:
                self._latest, self.error = Finished(key, future.result()), None
                self.fits += 1
            except Exception as exc:  # noqa: BLE001 -- shown on the page; the last fit stays
                self.error = f"{type(exc).__name__}: {exc}"
            self._running = None
            if self._waiting is not None:
                waiting, self._waiting = self._waiting, None
                self._start(*waiting)

    def _finish(self, key: Hashable, compute: Callable[[], T]) -> None:
        try:
            self._latest, self.error = Finished(key, compute()), None
            self.fits += 1
        except Exception as exc:  # noqa: BLE001 -- as in _done
            self.error = f"{type(exc).__name__}: {exc}"

    @property
    def latest(self) -> Finished[T] | None:
        return self._latest

    @property
    def busy(self) -> bool:
        """Whether a fit is running or waiting."""
        with self._lock:
            return self._running is not None or self._waiting is not None

    def wait(self, timeout: float | None = None) -> Finished[T] | None:
        """Block until no fit is running or waiting (benchmarks, tests, the CLI)."""
        while True:
            with self._lock:
                running = self._running
            if running is None:
                return self._latest
            try:
                running[1].result(timeout)
            except TimeoutError:
                raise
            except Exception:  # noqa: BLE001 -- the fit's own error is kept in .error
                pass
            time.sleep(0.001)  # the done-callback clears `running` just after the result
