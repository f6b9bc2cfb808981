"""Can this model judge? A stage that lets an LLM's grades or verdicts replace its offline method
checks the model first, once, on labelled probes of that judgement (rag.llm.judge_probes):
a model whose right answers are not above chance — a one-sided binomial test at 5 % — does not
judge, the stage runs its offline form, and its trace says why.

Why: structured replies make even a 135M model's judgements parse, and parsed they turned out
to be noise — SmolLM2 calls every claim supported and grades excerpts by their position. A reply
that parses is not a judgement that means something; this check is what tells them apart.

A check is keyed by endpoint, configured model, the models the endpoint lists (so a different
model served under the same URL and name is checked anew), reply format and probe set; kept for
the process and on disk (under the data dir), and run outside the query's LLM deadline. Probe replies are not
counted in the usability tally of the run; the check itself is, as `judge_check.<judgement>`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from rag.llm.base import ChatModel
from rag.llm.client import Endpoint, LLMClient
from rag.llm.deadline import without_deadline
from rag.llm.local_server import served_models
from rag.llm.usability import UsabilityTally, counting, record_reply
from rag.paths import cache_dir

ALPHA = 0.05
Signal = float | None  # 1 right, 0 wrong, between for ties, None: the reply was unusable
Probe = Callable[[ChatModel], Iterator[Signal]]  # one signal per probe, asked lazily


@dataclass(frozen=True)
class JudgeCheck:
    judgement: str
    model: str
    right: float  # sum of the probes' signals (an unusable reply counts 0)
    items: int
    chance: float
    p_value: float  # probes not asked count as wrong
    asked: int  # the check stops once the outcome is settled either way

    @property
    def trusted(self) -> bool:
        return self.p_value < ALPHA

    def describe(self) -> str:
        verdict = "trusted" if self.trusted else "not above chance: not trusted to judge"
        stopped = (f", stopped after {self.asked}: the outcome was settled" if self.asked < self.items
                   else "")
        return (f"judge check: {self.model} right on {self.right:g} of {self.items} labelled "
                f"{self.judgement} probes (chance {self.chance:.2f}, p = {self.p_value:.3f}{stopped}), "
                f"{verdict} (generation.check_judges)")


def binomial_tail(successes: int, n: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(n, p)."""
    return min(1.0, sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(successes, n + 1)))


_CHECKS: dict[str, JudgeCheck] = {}
_SERVED: dict[str, tuple[float, str]] = {}  # base URL -> (when asked, what it lists)
_LOCK = threading.Lock()
SERVED_TTL_S = 60.0  # how long a long-lived process (the app) trusts what an endpoint listed


def _served(endpoint: Endpoint) -> str:
    """A fingerprint of the models the endpoint lists ("?" when it does not say), asked at most
    once a minute."""
    import httpx2  # late: only a configured endpoint is asked; a plain query never imports it

    known = _SERVED.get(endpoint.base_url)
    if known is not None and time.monotonic() - known[0] < SERVED_TTL_S:
        return known[1]
    try:
        ids = served_models(endpoint.base_url, endpoint.api_key, timeout_s=5.0)
        found = hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:12]
    except (httpx2.HTTPError, ValueError):
        found = "?"
    _SERVED[endpoint.base_url] = (time.monotonic(), found)
    return found


def p_above_chance(right: float, items: int, chance: float) -> float:
    """One-sided binomial p of `right` (ties counted in halves, rounded down) of `items`."""
    return round(binomial_tail(math.floor(right + 1e-9), items, chance), 4)


def needed(items: int, chance: float) -> int:
    """The fewest right answers of `items` that are above chance (items + 1: none are)."""
    return next((s for s in range(items + 1) if binomial_tail(s, items, chance) < ALPHA), items + 1)


def check_judge(chat: ChatModel, judgement: str, probe: Probe, chance: float, probe_set: str,
                items: int = 8) -> JudgeCheck | None:
    """The model's check for `judgement` (run once per model and probe set); None when there is
    nothing to check: a chat model other than the workbench's client, or checks switched off."""
    if not isinstance(chat, LLMClient) or not chat.settings.check_judges or not chat.endpoints:
        return None
    endpoint = chat.endpoints[0]
    with _LOCK:
        key = "|".join((endpoint.base_url, endpoint.model, _served(endpoint),
                        str(chat.settings.structured_replies), judgement, probe_set))
        found = _CHECKS.get(key) or _load(key)
        if found is None:
            found = _run(chat, endpoint.model, judgement, probe, chance, items)
            _save(key, found)
        _CHECKS[key] = found
    record_reply(f"judge_check.{judgement}", "ok" if found.trusted else "fallback",
                 "" if found.trusted else "not above chance")
    return found


def _run(chat: ChatModel, model: str, judgement: str, probe: Probe, chance: float, items: int
         ) -> JudgeCheck:
    need, right, asked = needed(items, chance), 0.0, 0
    with without_deadline(), counting(UsabilityTally()):  # probes are not the run's replies
        for signal in probe(chat):
            asked += 1
            right += signal or 0.0
            if right >= need or right + (items - asked) < need:  # settled: stop asking
                break
    return JudgeCheck(judgement, model, right, items, chance, p_above_chance(right, items, chance), asked)


def _path(key: str) -> Path:
    return cache_dir("judge_checks") / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.json"


def _load(key: str) -> JudgeCheck | None:
    try:
        data = json.loads(_path(key).read_text(encoding="utf-8"))
        return JudgeCheck(**data) if data.pop("key", None) == key else None
    except (OSError, ValueError, TypeError):
        return None  # absent or unreadable: check again


def _save(key: str, check: JudgeCheck) -> None:
    path = _path(key)
    temp = path.with_suffix(f".{os.getpid()}.tmp")
    temp.write_text(json.dumps({"key": key, **asdict(check)}), encoding="utf-8")
    os.replace(temp, path)


def forget_checks() -> None:
    """Drop the process's checks (the files stay): for tests that switch models under one URL."""
    with _LOCK:
        _CHECKS.clear()
        _SERVED.clear()
