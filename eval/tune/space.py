"""A tuning space: dotted config fields (as `with_overrides` takes them), each with its choices
or a numeric range, read from YAML:

    objective: ndcg@10            # optional; the metric selection maximizes
    settings:
      fusion.method: {choices: [rrf, weighted_rrf, relative_score]}
      fusion.k: {low: 1, high: 200, log: true, int: true}
      fusion.alpha: {low: 0.0, high: 1.0}
      postprocess.threshold: {choices: [null, 0.2, 0.3]}

Settings that change the candidate lists (chunking, embedding, query understanding — anything
`rag.pipeline.head_key` covers, depth excepted) are allowed: each distinct value gets its own
collection and head run, and the tuner says so. A space whose settings are all choices is a grid.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from rag.config import PipelineConfig, PresetError, with_overrides
from rag.pipeline import TAIL_SECTIONS


class SpaceError(ValueError):
    """A space that cannot be used; the message names the setting and what is wrong."""


@dataclass(frozen=True)
class Setting:
    """One dotted config field: a list of choices, or a range [low, high] (log-scaled, integer)."""

    key: str
    choices: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    log: bool = False
    integer: bool = False

    @property
    def is_range(self) -> bool:
        return not self.choices

    @property
    def changes_lists(self) -> bool:
        """True when the field is read before fusion (a new head run, maybe a new index)."""
        section = self.key.split(".", 1)[0]
        return section not in TAIL_SECTIONS and self.key not in ("retrieval.depth",
                                                                 "retrieval.top_k")

    def extremes(self) -> tuple[Any, ...]:
        """Values that bound the setting (its choices, or both ends of its range)."""
        return self.choices if self.choices else (self.low, self.high)


@dataclass(frozen=True)
class Space:
    settings: tuple[Setting, ...]
    objective: str = "ndcg@10"

    def grid_size(self) -> int | None:
        """Number of grid points, or None when a setting is a continuous range."""
        if any(s.is_range for s in self.settings):
            return None
        return math.prod(len(s.choices) for s in self.settings)

    def grid(self) -> list[dict[str, Any]]:
        """Every combination of choices, in YAML order (only for spaces without ranges)."""
        if self.grid_size() is None:
            raise SpaceError("a space with ranges has no grid; search it with trials")
        keys = [s.key for s in self.settings]
        return [dict(zip(keys, combo, strict=True))
                for combo in itertools.product(*(s.choices for s in self.settings))]

    def max_depth(self, base: PipelineConfig) -> int:
        """The deepest retrieval depth any point asks for: heads are searched that deep once."""
        for s in self.settings:
            if s.key == "retrieval.depth":
                return int(max(v for v in s.extremes() if v is not None))
        return base.retrieval.depth

    def list_changing(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.settings if s.changes_lists)

    def as_json(self) -> dict[str, Any]:
        def one(s: Setting) -> dict[str, Any]:
            if s.choices:
                return {"choices": list(s.choices)}
            return {"low": s.low, "high": s.high, "log": s.log, "int": s.integer}

        return {"objective": self.objective, "settings": {s.key: one(s) for s in self.settings}}


def _setting(key: str, spec: Any) -> Setting:
    if isinstance(spec, list):
        spec = {"choices": spec}
    if not isinstance(spec, dict):
        raise SpaceError(f"setting {key!r}: give {{choices: [...]}} or {{low: x, high: y}}, "
                         f"got {spec!r}")
    unknown = sorted(set(spec) - {"choices", "low", "high", "log", "int"})
    if unknown:
        raise SpaceError(f"setting {key!r}: unknown option(s) {', '.join(unknown)}; "
                         "valid: choices, low, high, log, int")
    if "choices" in spec:
        choices = spec["choices"]
        if not isinstance(choices, list) or not choices:
            raise SpaceError(f"setting {key!r}: choices must be a non-empty list")
        if set(spec) - {"choices"}:
            raise SpaceError(f"setting {key!r}: give either choices or low/high, not both")
        return Setting(key, tuple(choices))
    if "low" not in spec or "high" not in spec:
        raise SpaceError(f"setting {key!r}: a range needs both low and high")
    low, high = spec["low"], spec["high"]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (low, high)):
        raise SpaceError(f"setting {key!r}: low and high must be numbers")
    if low >= high:
        raise SpaceError(f"setting {key!r}: low ({low}) must be below high ({high})")
    log = bool(spec.get("log", False))
    if log and low <= 0:
        raise SpaceError(f"setting {key!r}: a log range needs low > 0")
    integer = bool(spec.get("int", isinstance(low, int) and isinstance(high, int)))
    return Setting(key, (), float(low), float(high), log, integer)


def parse_space(raw: Mapping[str, Any], base: PipelineConfig | None = None) -> Space:
    """A Space from its YAML mapping; with `base`, every value is checked against the config
    (an unknown field or a value the field refuses fails here, not halfway through a search)."""
    unknown = sorted(set(raw) - {"settings", "objective"})
    if unknown:
        raise SpaceError(f"unknown top-level key(s) {', '.join(unknown)}; valid: settings, "
                         "objective")
    body = raw.get("settings")
    if not isinstance(body, dict) or not body:
        raise SpaceError("a space needs `settings:`, a mapping of dotted config fields")
    space = Space(tuple(_setting(str(k), v) for k, v in body.items()),
                  str(raw.get("objective", "ndcg@10")))
    if base is not None:
        for s in space.settings:
            for value in s.extremes():
                value = int(value) if s.integer and value is not None else value
                try:
                    with_overrides(base, {s.key: value})
                except PresetError as exc:
                    raise SpaceError(f"setting {s.key!r} = {value!r}: {exc}") from None
    return space


def load_space(path: Path, base: PipelineConfig | None = None) -> Space:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SpaceError(f"cannot read space {path}: {exc}") from None
    if not isinstance(raw, dict):
        raise SpaceError(f"space {path} must be a YAML mapping with `settings:`")
    try:
        return parse_space(raw, base)
    except SpaceError as exc:
        raise SpaceError(f"space {path}: {exc}") from None


def point_key(point: Mapping[str, Any]) -> str:
    """A canonical text for a point (memo keys, stability counts)."""
    return json.dumps(point, sort_keys=True, default=str)
