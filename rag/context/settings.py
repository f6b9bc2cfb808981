"""Context-building section (filled in by the context stages)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ContextConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
