"""Generation section (filled in by the generation stage)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GenerationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
