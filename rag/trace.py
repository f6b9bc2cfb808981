"""Trace: the ordered record of every stage a query went through. Pages render it, eval scores it.

JSON form (`Trace.to_json`, the format of `python -m rag query --json` and stored eval runs):

    {"query": str, "preset": str, "answer": str | null, "total_ms": float,
     "collection": str | null, "config": {…the full PipelineConfig…},
     "records": [{"stage": str, "status": "ok" | "skipped" | "failed" | "fallback" | "cache_hit"
                  | "blocked", "settings": {…the stage's config section…},
                  "inputs": {…a short summary of what it read…},
                  "output": {…its typed output's fields…} | null,
                  "wall_ms": float, "warnings": [str], "reason": str,
                  "llm_budget": {"budget_s", "used_s", "calls", "query_left_s"} | null}, …]}

`output` holds the fields of the class the stage's spec declares (rag.stages.StageSpec.output),
nested dataclasses as objects; `Trace.from_json` rebuilds those classes, so a loaded trace equals
the one that was written. Secret-looking keys are written as "***"; non-finite floats as null.
"""

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
from typing import Any, TypeVar

from pydantic import TypeAdapter

from rag.stages import STAGES, StageStatus

T = TypeVar("T")

# A stage output's field that the next stage reads but no trace keeps (an ingest's documents,
# chunks and vectors): `field(default=…, metadata=NOT_IN_TRACE)`; JSON leaves it out, and a
# trace read back from JSON has its default.
NOT_IN_TRACE: Mapping[str, bool] = MappingProxyType({"in_trace": False})

# Keys that must never reach a trace, a log or an export (secrets stay in the environment).
_SECRET_KEYS = ("api_key", "apikey", "authorization", "password", "secret", "token_value")


@dataclass(frozen=True)
class LLMBudgetUse:
    """An LLM stage's time budget (its share of generation.deadline_s, rag.llm.deadline)
    and what its calls used of it."""

    budget_s: float | None  # None: no deadline ran
    used_s: float
    calls: int
    query_left_s: float | None = None  # what was left of the query's deadline when it started

    def describe(self) -> str:
        """One line for a stage list: "LLM 3.2 of 6 s, 1 call"."""
        budget = f" of {self.budget_s:.3g} s" if self.budget_s is not None else " s, no deadline"
        calls = f"{self.calls} call" + ("" if self.calls == 1 else "s")
        return f"LLM {self.used_s:.1f}{budget}, {calls}"


@dataclass(frozen=True)
class StageRecord:
    """What one stage did: its settings, a summary of its inputs, its typed output (with every
    score), time and warnings."""

    stage: str
    status: StageStatus = "ok"
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    inputs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    output: object | None = None  # an instance of the stage spec's declared output class
    wall_ms: float = 0.0
    warnings: tuple[str, ...] = ()
    reason: str = ""  # why it was skipped / fell back / failed
    llm_budget: LLMBudgetUse | None = None  # LLM stages: budget and use


@dataclass
class Trace:
    """Ordered stage records for one query through one configuration."""

    query: str
    preset: str
    records: list[StageRecord] = field(default_factory=list)
    answer: str | None = None
    collection: str | None = None  # the collection searched, if any stage opened one
    config: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # full config
    notes: list[str] = field(default_factory=list)  # what the edge did before any stage ran

    def add(self, record: StageRecord) -> None:
        self.records.append(record)

    def output(self, kind: type[T], stage: str | None = None) -> T | None:
        """The last output of class `kind` (of stage `stage`, when given), or None if no such
        stage ran: `trace.output(RerankResult)`."""
        for record in reversed(self.records):
            if (stage is None or record.stage == stage) and isinstance(record.output, kind):
                return record.output
        return None

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
        edge = [f"input: {n}" for n in self.notes]
        return edge + [f"{r.stage}: {w}" for r in self.records for w in r.warnings]

    @property
    def status(self) -> StageStatus:
        """"failed" or "blocked" when a stage was, else "ok"."""
        for bad in ("failed", "blocked"):
            if any(r.status == bad for r in self.records):
                return bad
        return "ok"

    @property
    def error(self) -> str | None:
        """The failed stage and why ("retrieve: …"), or None; later stages say they skipped."""
        for record in self.records:
            if record.status == "failed":
                return f"{record.stage}: {record.reason}"
        return None

    @property
    def blocked(self) -> str | None:
        """The stage that refused the query and why ("guard: …"), or None."""
        for record in self.records:
            if record.status == "blocked":
                return f"{record.stage}: {record.reason}"
        return None

    def to_dict(self) -> dict[str, Any]:
        return jsonable(
            {
                "query": self.query,
                "preset": self.preset,
                "status": self.status,
                "error": self.error,  # at the top, where a script looks first
                "answer": self.answer,
                "total_ms": self.total_ms,
                "collection": self.collection,
                "config": self.config,
                "notes": self.notes,
                "records": self.records,
            }
        )

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], output_types: Mapping[str, type] | None = None
    ) -> Trace:
        """Rebuild a Trace from `to_dict` output, each stage's output as its declared class
        (`output_types`: stage -> class; default: the installed pipeline stages')."""
        if output_types is None:
            output_types = STAGES.output_types()
        records = [
            StageRecord(
                stage=r["stage"],
                status=r.get("status", "ok"),
                settings=MappingProxyType(dict(r.get("settings") or {})),
                inputs=MappingProxyType(dict(r.get("inputs") or {})),
                output=_load_output(r.get("output"), output_types.get(r["stage"])),
                wall_ms=float(r.get("wall_ms") or 0.0),
                warnings=tuple(r.get("warnings") or ()),
                reason=r.get("reason", ""),
                llm_budget=LLMBudgetUse(**r["llm_budget"]) if r.get("llm_budget") else None,
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
            notes=list(data.get("notes") or ()),
        )

    @classmethod
    def from_json(cls, text: str) -> Trace:
        return cls.from_dict(json.loads(text))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _load_output(value: Any, kind: type | None) -> object | None:
    """A stage output from its JSON form, as `kind` (plain JSON when the stage is unknown)."""
    if value is None or kind is None:
        return value
    if kind not in _ADAPTERS:
        _ADAPTERS[kind] = TypeAdapter(kind)
    return _ADAPTERS[kind].validate_python(value)


def _is_secret(key: str) -> bool:
    lowered = key.lower()
    return any(s in lowered for s in _SECRET_KEYS)


def jsonable(value: Any) -> Any:
    """Convert dataclasses, mappings, tuples, enums, paths and dates to plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.metadata.get("in_trace", True)}
    if isinstance(value, Mapping):
        return {
            str(k): ("***" if _is_secret(str(k)) else jsonable(v)) for k, v in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "model_dump"):  # pydantic models
        return jsonable(value.model_dump())
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value
