"""Deriving a config from another by dotted-field overrides, and validating raw dicts, with
errors that name every field. No registry lookups here: rag.config adds those (and the
chunking-params refit) for presets; rag/ internals that derive configs from settings already
checked (a manifest's, an intelligence level's) call these directly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from rag.settings.pipeline import PipelineConfig, all_finite


class PresetError(ValueError):
    """A preset that cannot be loaded; the message names the field and the rule."""


RawFit = Callable[[dict[str, Any], PipelineConfig, dict[str, Any]], None]


def _format_errors(origin: str, error: ValidationError) -> str:
    lines = [f"preset {origin!r} is invalid:"]
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        message = item["msg"].removeprefix("Value error, ")
        lines.append(f"  {where}: {message}")
    return "\n".join(lines)


def validate_config(raw: dict[str, Any], origin: str = "<dict>") -> PipelineConfig:
    """`raw` as a PipelineConfig; a PresetError naming every refused field otherwise."""
    try:
        return PipelineConfig.model_validate(raw)
    except ValidationError as exc:
        raise PresetError(_format_errors(origin, exc)) from None


def apply_overrides(config: PipelineConfig, overrides: dict[str, Any],
                    fit: RawFit | None = None) -> PipelineConfig:
    """A new config with dotted-path fields replaced, e.g. {"fusion.k": 30}; validated again.

    rag.config.with_overrides (pages, the CLI, routers, sweeps, tuning) is this plus the
    registry-name checks and `fit` (refitting chunking params to a new strategy). Values are
    taken as given. Overrides inside stage sections re-validate only the sections they touch
    (`_section_overrides`); anything else, or a value one refuses, takes the whole-config path,
    whose errors name every field."""
    derived = _section_overrides(config, overrides)
    return derived if derived is not None else _whole_overrides(config, overrides, fit)


def _whole_overrides(config: PipelineConfig, overrides: dict[str, Any],
                     fit: RawFit | None = None) -> PipelineConfig:
    """with_overrides by dumping, editing and validating the whole config."""
    raw = config.model_dump(mode="json")
    for dotted, value in overrides.items():
        node = raw
        parts = dotted.split(".")
        for part in parts[:-1]:
            if not isinstance(node, dict) or part not in node:
                raise PresetError(f"unknown config field {dotted!r}")
            node = node[part]
        if not isinstance(node, dict):
            raise PresetError(f"unknown config field {dotted!r}")
        node[parts[-1]] = value
    if fit is not None:
        fit(raw, config, overrides)
    return validate_config(raw, origin=config.name)


def _only_finite_check() -> bool:
    """True while PipelineConfig's one whole-config rule is _finite_numbers (no field or other
    model validator reads across sections): then validating each changed section, plus the
    finite check on it, is validating the whole config."""
    decorators = PipelineConfig.__pydantic_decorators__
    return (set(decorators.model_validators) == {"_finite_numbers"}
            and not decorators.field_validators and not decorators.validators
            and not decorators.root_validators)


_SECTIONS_ALONE = _only_finite_check()
_NOT_ALONE = {"chunking"}  # a new strategy refits its params (_fit_chunking_params): whole path


def _section_overrides(config: PipelineConfig, overrides: dict[str, Any]) -> PipelineConfig | None:
    """with_overrides re-validating only the touched sections (a sweep derives a config per grid
    point; dumping and validating all fourteen sections was ~0.4 ms of each). The untouched
    sections are the config's own, already valid, objects. None when the overrides leave the
    stage sections, touch chunking, or a changed section is refused: the caller then takes the
    whole-config path, which raises with every field named."""
    if not _SECTIONS_ALONE or not overrides:
        return None
    raws: dict[str, dict[str, Any]] = {}
    for dotted, value in overrides.items():
        section, _, rest = dotted.partition(".")
        if (not rest or section in _NOT_ALONE or section not in PipelineConfig.model_fields
                or not isinstance(getattr(config, section), BaseModel)):
            return None
        if section not in raws:
            raws[section] = getattr(config, section).model_dump(mode="json")
        node: Any = raws[section]
        parts = rest.split(".")
        for part in parts[:-1]:
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        if not isinstance(node, dict):
            return None
        node[parts[-1]] = value
    update = {}
    for section, raw in raws.items():
        if not all_finite(raw):
            return None
        try:
            update[section] = type(getattr(config, section)).model_validate(raw)
        except ValidationError:
            return None
    return config.model_copy(update=update)
