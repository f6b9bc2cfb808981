"""Circuit breaker (Nygard, "Release It!", 2007; Adaptive): open after N failures, half-open after a
cool-down to let one trial call through, closed again on success."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

BreakerState = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    """One per endpoint (base URL + model), shared by every call in the process."""

    def __init__(self, failures: int, cooldown_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.failures = failures
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._count = 0
        self._opened_at: float | None = None
        self._trial = False  # a half-open trial call is in flight
        self._lock = threading.Lock()

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown_s:
            return "half_open"
        return "open"

    def allow(self) -> bool:
        """May a call go through now? In half-open state only one trial call at a time."""
        with self._lock:
            state = self.state
            if state == "closed":
                return True
            if state == "half_open" and not self._trial:
                self._trial = True
                return True
            return False

    def record_success(self) -> None:
        with self._lock:
            self._count = 0
            self._opened_at = None
            self._trial = False

    def record_failure(self) -> None:
        with self._lock:
            self._count += 1
            if self._trial or self._count >= self.failures:
                self._opened_at = self._clock()  # (re)open: a failed trial restarts the cool-down
            self._trial = False


_BREAKERS: dict[str, CircuitBreaker] = {}
_BREAKERS_LOCK = threading.Lock()


def breaker_for(key: str, failures: int, cooldown_s: float) -> CircuitBreaker:
    """The process-wide breaker for `key` (base URL + model; never a key or a secret)."""
    with _BREAKERS_LOCK:
        breaker = _BREAKERS.get(key)
        if breaker is None or (breaker.failures, breaker.cooldown_s) != (failures, cooldown_s):
            breaker = _BREAKERS[key] = CircuitBreaker(failures, cooldown_s)
        return breaker


def reset_breakers() -> None:
    """Forget every breaker (tests; or after the user fixed the endpoint)."""
    with _BREAKERS_LOCK:
        _BREAKERS.clear()
