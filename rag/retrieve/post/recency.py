"""Recency steps from EchoMind: a hard time window (24h / 48h / 1w) and exponential time decay.

A chunk's date is its metadata `created_at` (ISO text, datetime or epoch seconds), else
`modified`; naive times count as UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from rag.records.chunk import Chunk
from rag.records.hits import Candidate
from rag.retrieve.post.base import POST_STEPS, PostContext, PostStep, StepResult, rescale, result
from rag.settings.retrieval import PostprocessConfig

DATE_KEYS = ("created_at", "modified")


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        moment = datetime.fromtimestamp(float(value), tz=UTC)
    elif isinstance(value, str) and value.strip():
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def chunk_date(chunk: Chunk) -> datetime | None:
    """When the chunk's document was created, if its metadata says so in a readable form."""
    for key in DATE_KEYS:
        moment = _as_datetime(chunk.metadata.get(key))
        if moment is not None:
            return moment
    return None


def _now(ctx: PostContext) -> datetime:
    now = ctx.now or datetime.now(UTC)
    return now if now.tzinfo else now.replace(tzinfo=UTC)


def time_window(candidates: tuple[Candidate, ...], hours: float, now: datetime) -> StepResult:
    """Keep chunks created within the last `hours`; undated chunks cannot prove it and are dropped
    (EchoMind's _filter_hits_by_context_window)."""
    cutoff = now - timedelta(hours=hours)
    kept, decisions = [], {}
    for cand in candidates:
        created = chunk_date(cand.chunk)
        if created is None:
            decisions[cand.chunk_id] = "dropped: no created_at"
        elif created < cutoff:
            decisions[cand.chunk_id] = f"dropped: created {created.isoformat()}, before the window"
        else:
            decisions[cand.chunk_id] = f"kept: created {created.isoformat()}"
            kept.append(cand)
    return result("time_window", candidates, tuple(kept), decisions)


def decay_factor(age_days: float, half_life_days: float, floor: float = 0.0) -> float:
    """2^(-age / half-life), never below `floor`; future dates count as age 0.
    (EchoMind writes exp(-age / h), whose half-life is h·ln 2; here h is the half-life itself.)"""
    return max(floor, 0.5 ** (max(age_days, 0.0) / half_life_days))


def time_decay(
    candidates: tuple[Candidate, ...], half_life_days: float, now: datetime, floor: float = 0.0
) -> StepResult:
    """Multiply each score by its age's decay factor; undated chunks keep their score."""
    factors: dict[str, float] = {}
    notes: dict[str, str] = {}
    decisions: dict[str, str] = {}
    for cand in candidates:
        created = chunk_date(cand.chunk)
        if created is None:
            decisions[cand.chunk_id] = "no created_at: unchanged"
            continue
        age = (now - created).total_seconds() / 86_400
        factor = decay_factor(age, half_life_days, floor)
        factors[cand.chunk_id] = factor
        notes[cand.chunk_id] = f"time decay: {age:.1f} days old ×{factor:.3f}"
        decisions[cand.chunk_id] = f"age {age:.1f} d: ×{factor:.4f}"
    decayed = rescale(candidates, "time_decay", factors, notes)
    return result("time_decay", candidates, decayed, decisions)


def _window(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, ctx: PostContext
) -> StepResult:
    return time_window(candidates, config.time_window_hours or 0.0, _now(ctx))


def _decay(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, ctx: PostContext
) -> StepResult:
    half_life = config.time_decay_half_life_days or 1.0
    return time_decay(candidates, half_life, _now(ctx), config.time_decay_floor)


def _off_when_unset(field: str) -> Callable[[PostprocessConfig], str | None]:
    def off(config: PostprocessConfig) -> str | None:
        return f"postprocess.{field} is not set" if getattr(config, field) is None else None

    return off


POST_STEPS.add(
    "time_window", PostStep("time_window", _window, _off_when_unset("time_window_hours"))
)
POST_STEPS.add(
    "time_decay", PostStep("time_decay", _decay, _off_when_unset("time_decay_half_life_days"))
)
