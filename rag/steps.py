"""StepReport: the one shape every sub-step of a stage reports in (post-retrieval steps,
context steps): what went in and out, what was removed and why, and whether it fell back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

StepStatus = Literal["ok", "skipped", "fallback"]


@dataclass(frozen=True)
class StepReport:
    """What one sub-step did: per-item decisions, what it removed, counts in and out, why."""

    step: str
    status: StepStatus = "ok"
    reason: str = ""  # what it did, or why it was skipped / fell back
    decisions: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    removed: tuple[str, ...] = ()  # ids of what it dropped (chunk ids)
    n_in: int = 0
    n_out: int = 0
    warnings: tuple[str, ...] = ()
