"""The background fitter: fits run off the caller's thread on one worker, the newest request
waits while one runs (older waiting ones are dropped), the last finished result stays in use,
a failed fit keeps the previous result, and the synchronous switch runs at once."""

from __future__ import annotations

import threading

import pytest

from eval.judging import background_fit
from eval.judging.background_fit import BackgroundFitter


def _blocked() -> tuple[threading.Event, threading.Event]:
    """Occupy the process's one fit worker until `release` is set."""
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait(30)

    background_fit._executor().submit(hold)
    assert started.wait(30)
    return started, release


def test_the_last_finished_fit_is_used_while_the_next_waits() -> None:
    fitter: BackgroundFitter[str] = BackgroundFitter(synchronous=False)
    fitter.request("a", lambda: "fit a")
    assert fitter.wait(30) is not None and fitter.latest.value == "fit a"  # type: ignore[union-attr]
    _, release = _blocked()
    calls: list[str] = []
    fitter.request("b", lambda: calls.append("b") or "fit b")  # type: ignore[func-returns-value]
    fitter.request("c", lambda: calls.append("c") or "fit c")  # type: ignore[func-returns-value]
    fitter.request("d", lambda: calls.append("d") or "fit d")  # type: ignore[func-returns-value]
    assert fitter.busy and fitter.latest.value == "fit a"  # type: ignore[union-attr]
    release.set()
    fitter.wait(30)
    assert not fitter.busy and fitter.latest.value == "fit d"  # type: ignore[union-attr]
    assert calls == ["b", "d"]  # b was running when c and d came; c was superseded by d
    fitter.request("d", lambda: calls.append("again") or "x")  # type: ignore[func-returns-value]
    fitter.wait(30)
    assert calls == ["b", "d"]  # a finished key is not fitted again


def test_fits_run_off_the_callers_thread() -> None:
    fitter: BackgroundFitter[str] = BackgroundFitter(synchronous=False)
    fitter.request("k", lambda: threading.current_thread().name)
    done = fitter.wait(30)
    assert done is not None and done.value.startswith("judge-fit")


def test_a_failed_fit_keeps_the_previous_one_and_says_why() -> None:
    fitter: BackgroundFitter[int] = BackgroundFitter(synchronous=False)
    fitter.request(1, lambda: 1)
    fitter.wait(30)

    def broken() -> int:
        raise ValueError("no labels")

    fitter.request(2, broken)
    fitter.wait(30)
    assert fitter.latest is not None and fitter.latest.value == 1
    assert fitter.error == "ValueError: no labels"


@pytest.mark.parametrize("env", ["1", "true"])
def test_the_synchronous_switch_fits_at_once_in_the_callers_thread(
        monkeypatch: pytest.MonkeyPatch, env: str) -> None:
    monkeypatch.setenv(background_fit.SYNC_ENV, env)
    fitter: BackgroundFitter[str] = BackgroundFitter()
    assert fitter.synchronous
    fitter.request("k", lambda: threading.current_thread().name)
    assert not fitter.busy and fitter.latest is not None
    assert fitter.latest.value == threading.current_thread().name
