"""Query-understanding section (filled in by the query stages)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class QueryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
