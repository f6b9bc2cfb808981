"""Circuit breaker state machine (closed → open → half-open → closed / open)."""

from __future__ import annotations

from rag.llm.breaker import CircuitBreaker, breaker_for, reset_breakers


def make(failures: int = 3, cooldown: float = 10.0) -> tuple[CircuitBreaker, list[float]]:
    now = [0.0]
    return CircuitBreaker(failures, cooldown, clock=lambda: now[0]), now


def test_opens_after_n_failures_and_refuses_calls() -> None:
    breaker, _ = make(failures=3)
    for _ in range(2):
        breaker.record_failure()
    assert breaker.state == "closed" and breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open" and not breaker.allow()


def test_success_resets_the_failure_count() -> None:
    breaker, _ = make(failures=2)
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    assert breaker.state == "closed"


def test_half_open_lets_one_trial_through_and_its_outcome_decides() -> None:
    breaker, now = make(failures=1, cooldown=10.0)
    breaker.record_failure()
    now[0] = 9.9
    assert not breaker.allow()
    now[0] = 10.0
    assert breaker.state == "half_open" and breaker.allow() and not breaker.allow()  # one trial only
    breaker.record_failure()  # failed trial: open again, cool-down restarts
    assert breaker.state == "open"
    now[0] = 20.0
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed" and breaker.allow()


def test_breakers_are_shared_per_endpoint_key() -> None:
    reset_breakers()
    first = breaker_for("http://a|m", 5, 30.0)
    assert breaker_for("http://a|m", 5, 30.0) is first
    assert breaker_for("http://b|m", 5, 30.0) is not first
    reset_breakers()
    assert breaker_for("http://a|m", 5, 30.0) is not first
