"""How often an LLM's replies were usable, per parser. Every place that parses a chat reply
records one outcome per reply: `ok` (parsed as asked), `repaired` (parsed after a fix the trace
names: a score clamped into range, repeated or cut-off text removed) or `fallback` (unusable or
the call failed: the stage used its offline form, and its trace says why).

Outcomes go to the tally opened with `counting()` in this context (eval's LLM runs open one);
with none open, recording does nothing. A run in another thread (the Answer page's streaming
worker) is not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["ok", "repaired", "fallback"]
OUTCOMES: tuple[Outcome, ...] = ("ok", "repaired", "fallback")


@dataclass
class ParserTally:
    """Outcomes of one parser, and the reasons it repaired or fell back (most common first)."""

    counts: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)

    @property
    def replies(self) -> int:
        return sum(self.counts.values())

    @property
    def usable_share(self) -> float:
        """ok + repaired over every reply (0 when there was none)."""
        return (self.counts["ok"] + self.counts["repaired"]) / self.replies if self.replies else 0.0

    def as_json(self) -> dict[str, Any]:
        return {**{o: self.counts[o] for o in OUTCOMES}, "replies": self.replies,
                "usable_share": round(self.usable_share, 4),
                "reasons": dict(self.reasons.most_common(5))}


@dataclass
class UsabilityTally:
    parsers: dict[str, ParserTally] = field(default_factory=dict)

    def record(self, parser: str, outcome: Outcome, reason: str = "") -> None:
        tally = self.parsers.setdefault(parser, ParserTally())
        tally.counts[outcome] += 1
        if reason and outcome != "ok":
            tally.reasons[reason[:80]] += 1

    def merge(self, other: UsabilityTally) -> None:
        for name, tally in other.parsers.items():
            mine = self.parsers.setdefault(name, ParserTally())
            mine.counts.update(tally.counts)
            mine.reasons.update(tally.reasons)

    def as_json(self) -> dict[str, dict[str, Any]]:
        return {name: self.parsers[name].as_json() for name in sorted(self.parsers)}


_CURRENT: ContextVar[UsabilityTally | None] = ContextVar("rag_llm_usability", default=None)


def record_reply(parser: str, outcome: Outcome, reason: str = "") -> None:
    """Count one reply of `parser` (e.g. "rerank.grades") in the open tally, if any."""
    tally = _CURRENT.get()
    if tally is not None:
        tally.record(parser, outcome, reason)


@contextmanager
def counting(tally: UsabilityTally | None = None) -> Iterator[UsabilityTally]:
    """Count every reply parsed inside the block into `tally` (a new one by default)."""
    tally = tally if tally is not None else UsabilityTally()
    token = _CURRENT.set(tally)
    try:
        yield tally
    finally:
        _CURRENT.reset(token)
