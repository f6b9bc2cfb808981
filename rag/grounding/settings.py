"""Grounding section (filled in by the grounding checks)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GroundingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
