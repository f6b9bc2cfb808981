"""Trace: the ordered record of every stage a query went through. Pages render it, eval scores it."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

StageStatus = Literal["ok", "skipped", "failed", "fallback", "cache_hit", "blocked"]

# Keys that must never reach a trace, a log or an export (secrets stay in the environment).
_SECRET_KEYS = ("api_key", "apikey", "authorization", "password", "secret", "token_value")


@dataclass(frozen=True)
class StageRecord:
    """What one stage did: its settings, inputs, outputs (with every score), time and warnings."""

    stage: str
    status: StageStatus = "ok"
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    inputs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    outputs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    wall_ms: float = 0.0
    warnings: tuple[str, ...] = ()
    reason: str = ""  # why it was skipped / fell back / failed


@dataclass
class Trace:
    """Ordered stage records for one query through one configuration."""

    query: str
    preset: str
    records: list[StageRecord] = field(default_factory=list)
    answer: str | None = None
    collection: str | None = None  # the collection searched, if any stage opened one
    config: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # full config

    def add(self, record: StageRecord) -> None:
        self.records.append(record)

    def stage(self, name: str) -> StageRecord | None:
        """The last record of stage `name`, if it ran (or was recorded as skipped)."""
        for record in reversed(self.records):
            if record.stage == name:
                return record
        return None

    @property
    def total_ms(self) -> float:
        return sum(r.wall_ms for r in self.records)

    @property
    def warnings(self) -> list[str]:
        return [f"{r.stage}: {w}" for r in self.records for w in r.warnings]

    @property
    def status(self) -> StageStatus:
        """"failed" or "blocked" when a stage was, else "ok"."""
        for bad in ("failed", "blocked"):
            if any(r.status == bad for r in self.records):
                return bad  # type: ignore[return-value]
        return "ok"

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(
            {
                "query": self.query,
                "preset": self.preset,
                "answer": self.answer,
                "total_ms": self.total_ms,
                "collection": self.collection,
                "config": self.config,
                "records": self.records,
            }
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trace:
        """Rebuild a Trace from `to_dict` output; stage inputs/outputs stay plain JSON values
        (rag.retrieve.base.as_candidates turns exported candidates back into Candidates)."""
        records = [
            StageRecord(
                stage=r["stage"],
                status=r.get("status", "ok"),
                settings=MappingProxyType(dict(r.get("settings") or {})),
                inputs=MappingProxyType(dict(r.get("inputs") or {})),
                outputs=MappingProxyType(dict(r.get("outputs") or {})),
                wall_ms=float(r.get("wall_ms") or 0.0),
                warnings=tuple(r.get("warnings") or ()),
                reason=r.get("reason", ""),
            )
            for r in data.get("records", [])
        ]
        return cls(
            query=data["query"],
            preset=data["preset"],
            records=records,
            answer=data.get("answer"),
            collection=data.get("collection"),
            config=MappingProxyType(dict(data.get("config") or {})),
        )

    @classmethod
    def from_json(cls, text: str) -> Trace:
        return cls.from_dict(json.loads(text))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def _is_secret(key: str) -> bool:
    lowered = key.lower()
    return any(s in lowered for s in _SECRET_KEYS)


def _jsonable(value: Any) -> Any:
    """Convert dataclasses, mappings, tuples, enums, paths and dates to plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {
            str(k): ("***" if _is_secret(str(k)) else _jsonable(v)) for k, v in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "model_dump"):  # pydantic models
        return _jsonable(value.model_dump())
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value
