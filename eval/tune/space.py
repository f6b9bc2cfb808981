"""A tuning space: dotted config fields (as `with_overrides` takes them), each with its choices
or a numeric range, read from YAML:

    objective: ndcg@10            # optional; the metric selection maximizes
    settings:
      fusion.method: {choices: [rrf, weighted_rrf, relative_score]}
      fusion.k: {low: 1, high: 200, log: true, int: true}
      fusion.alpha: {low: 0.0, high: 1.0}
      postprocess.threshold: {choices: [null, 0.2, 0.3]}
      fusion.k: {low: 1, high: 200, when: {fusion.method: [rrf, weighted_rrf]}}

`when` makes a setting conditional on an earlier one: it is searched (and part of the point)
only when that setting takes one of the listed values, so a point names no setting its method
ignores and fold choices compare like with like.

Settings that change the candidate lists (chunking, embedding, query understanding — anything
`rag.pipeline.head_key` covers, depth excepted) are allowed: each distinct value gets its own
collection and head run, and the tuner says so. A space whose settings are all choices is a grid.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from rag.config import PipelineConfig, PresetError, with_overrides
from rag.pipeline import TAIL_SECTIONS

SPACES_DIR = Path(__file__).resolve().parents[1] / "spaces"  # example spaces shipped


def shipped_spaces() -> dict[str, Path]:
    """Name -> path of the example spaces in eval/spaces/."""
    return {p.stem: p for p in sorted(SPACES_DIR.glob("*.yaml"))}


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
    when: tuple[str, tuple[Any, ...]] | None = None  # (earlier setting, values it is active for)

    def active(self, point: Mapping[str, Any]) -> bool:
        """Whether the setting applies, given the values already chosen for earlier settings."""
        if self.when is None:
            return True
        key, values = self.when
        return key in point and point[key] in values

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
        points: dict[str, dict[str, Any]] = {}
        for combo in itertools.product(*(s.choices for s in self.settings)):
            point: dict[str, Any] = {}
            for setting, value in zip(self.settings, combo, strict=True):
                if setting.active(point):
                    point[setting.key] = value
            points.setdefault(point_key(point), point)  # inactive settings collapse points
        return list(points.values())

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

        def conditional(s: Setting) -> dict[str, Any]:
            return {} if s.when is None else {"when": {s.when[0]: list(s.when[1])}}

        return {"objective": self.objective, "settings": {s.key: {**one(s), **conditional(s)}
                                                    for s in self.settings}}


def _condition(key: str, when: Any, earlier: Sequence[str]) -> tuple[str, tuple[Any, ...]]:
    if not isinstance(when, dict) or len(when) != 1:
        raise SpaceError(f"setting {key!r}: `when` names one earlier setting and its values, "
                         "e.g. {fusion.method: [rrf]}")
    (other, values), = when.items()
    if other not in earlier:
        raise SpaceError(f"setting {key!r}: `when` refers to {other!r}, which is not an earlier "
                         f"setting (earlier: {', '.join(earlier) or 'none'})")
    return str(other), tuple(values if isinstance(values, list) else [values])


def _setting(key: str, spec: Any, earlier: Sequence[str]) -> Setting:
    if isinstance(spec, list):
        spec = {"choices": spec}
    if not isinstance(spec, dict):
        raise SpaceError(f"setting {key!r}: give {{choices: [...]}} or {{low: x, high: y}}, "
                         f"got {spec!r}")
    unknown = sorted(set(spec) - {"choices", "low", "high", "log", "int", "when"})
    if unknown:
        raise SpaceError(f"setting {key!r}: unknown option(s) {', '.join(unknown)}; "
                         "valid: choices, low, high, log, int, when")
    when = _condition(key, spec.pop("when"), earlier) if "when" in spec else None
    return replace(_values(key, spec), when=when)


def _values(key: str, spec: dict[str, Any]) -> Setting:
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
    keys = [str(k) for k in body]
    space = Space(tuple(_setting(k, dict(v) if isinstance(v, dict) else v, keys[:i])
                        for i, (k, v) in enumerate(zip(keys, body.values(), strict=True))),
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


_DEPTHS = {"choices": [20, 50, 100]}
# What each fusion method reads (as in eval/spaces/fusion.yaml, for one method).
_METHOD_SETTINGS: dict[str, dict[str, Any]] = {
    "rrf": {"fusion.k": {"low": 1, "high": 200, "log": True}},
    "weighted_rrf": {"fusion.k": {"low": 1, "high": 200, "log": True}},
    "relative_score": {"fusion.alpha": {"low": 0.0, "high": 1.0}},
    "convex": {"fusion.alpha": {"low": 0.0, "high": 1.0},
               "fusion.normalization": {"choices": ["minmax", "zscore"]}},
    "dbsf": {},
}


def preset_fusion_space(base: PipelineConfig) -> Space:
    """The space `eval tune` searches when none is given: the parameters the preset's own fusion
    method reads (RRF k, the weights of all lists but the first, alpha, normalization) and
    retrieval.depth; every one is read after retrieval, so each query is searched once."""
    method = base.fusion.method
    retrievers = base.retrieval.retrievers
    if len(retrievers) < 2 or method not in _METHOD_SETTINGS:
        raise SpaceError(
            f"preset {base.name!r} fuses nothing to tune (fusion.method {method!r}, retrievers "
            f"{', '.join(retrievers)}); give --space, e.g. eval/spaces/threshold.yaml")
    settings: dict[str, Any] = {"fusion.method": {"choices": [method]},
                                **_METHOD_SETTINGS[method]}
    if method == "weighted_rrf":  # the first list keeps its weight: only the ratio matters
        for name in retrievers[1:]:
            settings[f"fusion.weights.{name}"] = {"low": 0.05, "high": 0.95}
    return parse_space({"settings": {**settings, "retrieval.depth": _DEPTHS}}, base)


def point_key(point: Mapping[str, Any]) -> str:
    """A canonical text for a point (memo keys, stability counts)."""
    return json.dumps(point, sort_keys=True, default=str)
