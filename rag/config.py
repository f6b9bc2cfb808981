"""Pipeline configuration: one typed pydantic section per stage; presets are YAML files.

A preset may say `extends: other` to start from another preset and override some fields.
Every error names the preset, the field and the rule it broke.
"""

from __future__ import annotations

import copy
import math
import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rag.abstain.settings import AbstainConfig
from rag.chunking.settings import ChunkingConfig
from rag.context.settings import ContextConfig
from rag.documents.settings import DocumentsConfig
from rag.embed.settings import EmbeddingConfig
from rag.grounding.settings import GroundingConfig
from rag.index.settings import IndexConfig
from rag.llm.settings import GenerationConfig
from rag.paths import PRESETS_DIR, data_dir
from rag.query.settings import QueryConfig
from rag.rerank.settings import RerankConfig
from rag.retrieve.settings import FusionConfig, PostprocessConfig, RetrievalConfig


class PipelineConfig(BaseModel):
    """A whole pipeline: the stage sections in the order a query meets them."""

    model_config = ConfigDict(extra="forbid")

    name: str = "custom"
    description: str = ""
    documents: DocumentsConfig = Field(default_factory=DocumentsConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    index: IndexConfig = Field(default_factory=IndexConfig)
    query: QueryConfig = Field(default_factory=QueryConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    fusion: FusionConfig = Field(default_factory=FusionConfig)
    postprocess: PostprocessConfig = Field(default_factory=PostprocessConfig)
    rerank: RerankConfig = Field(default_factory=RerankConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    grounding: GroundingConfig = Field(default_factory=GroundingConfig)
    abstain: AbstainConfig = Field(default_factory=AbstainConfig)

    @model_validator(mode="before")
    @classmethod
    def _finite_numbers(cls, raw: Any) -> Any:
        """NaN and infinity pass pydantic's bounds (every comparison with NaN is false) and then
        silently drop or keep everything; no setting means them, so they are refused by name."""
        if _all_finite(raw):  # the common case, without building every leaf's dotted path
            return raw
        bad = [f"{path} is {'NaN' if math.isnan(value) else 'infinite'}" for path, value in _leaves(raw)
               if isinstance(value, float) and not math.isfinite(value)]
        if bad:
            raise ValueError(f"{', '.join(bad)}: every setting must be a finite number")
        return raw


class PresetError(ValueError):
    """A preset that cannot be loaded; the message names the field and the rule."""


def _all_finite(raw: Any) -> bool:
    """No float leaf of nested dicts and lists is NaN or infinite (every config derivation
    checks this: a sweep derives one per grid point)."""
    if isinstance(raw, float):
        return math.isfinite(raw)
    if isinstance(raw, dict):
        return all(_all_finite(value) for value in raw.values())
    if isinstance(raw, (list, tuple)):
        return all(_all_finite(value) for value in raw)
    return True


def _leaves(raw: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, value) of every leaf of nested dicts and lists."""
    if isinstance(raw, dict):
        return [leaf for key, value in raw.items() for leaf in _leaves(value, f"{prefix}{key}.")]
    if isinstance(raw, (list, tuple)):
        return [leaf for i, value in enumerate(raw) for leaf in _leaves(value, f"{prefix}{i}.")]
    return [(prefix.rstrip("."), raw)]


def _format_errors(origin: str, error: ValidationError) -> str:
    lines = [f"preset {origin!r} is invalid:"]
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        message = item["msg"].removeprefix("Value error, ")
        lines.append(f"  {where}: {message}")
    return "\n".join(lines)


def user_presets_dir() -> Path:
    """Presets the user saved (e.g. a tuned configuration): <data dir>/presets/*.yaml."""
    return data_dir() / "presets"


def available_presets() -> list[str]:
    """Names of the bundled presets (rag/presets/*.yaml), then the user's saved ones."""
    bundled = sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))
    saved = sorted(p.stem for p in user_presets_dir().glob("*.yaml") if p.stem not in bundled)
    return bundled + saved


def _preset_path(name_or_path: str | Path) -> Path:
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.exists():
        return path
    for folder in (PRESETS_DIR, user_presets_dir()):
        candidate = folder / f"{name_or_path}.yaml"
        if candidate.exists():
            return candidate
    raise PresetError(
        f"no preset {str(name_or_path)!r}; presets: {', '.join(available_presets())}"
    )


def save_user_preset(config: PipelineConfig) -> Path:
    """Write `config` where every page's preset list finds it (a bundled name is refused)."""
    if (PRESETS_DIR / f"{config.name}.yaml").exists():
        raise PresetError(f"{config.name!r} is a bundled preset; save under another name")
    folder = user_presets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{config.name}.yaml"
    path.write_text(preset_yaml(config), encoding="utf-8")
    return path


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "params":
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _raw_preset(name_or_path: str | Path, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    path = _preset_path(name_or_path)
    data = path.read_bytes()
    try:
        raw = yaml.safe_load(data.decode("utf-8")) or {}
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PresetError(f"preset {str(path)!r}, line {line}: not UTF-8 (byte {data[exc.start]:#04x}); "
                          "re-save it as UTF-8") from None
    except yaml.YAMLError as exc:
        raise PresetError(f"preset {path.name!r} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise PresetError(f"preset {path.name!r} must be a mapping of sections")
    parent = raw.pop("extends", None)
    if parent is None:
        return raw
    if parent in seen:
        raise PresetError(f"preset {path.name!r}: 'extends' loops through {parent!r}")
    return _deep_merge(_raw_preset(parent, (*seen, str(parent))), raw)


def config_from_dict(raw: dict[str, Any], origin: str = "<dict>") -> PipelineConfig:
    try:
        return PipelineConfig.model_validate(raw)
    except ValidationError as exc:
        raise PresetError(_format_errors(origin, exc)) from None


# Dotted-field overrides applied to every preset load_preset returns: a YAML mapping such as
# `{embedding.backend: hashing}`. Tests set it to index without a model; kernels inherit it.
PRESET_OVERRIDES_ENV = "RAG_WORKBENCH_PRESET_OVERRIDES"


def env_overrides() -> dict[str, Any]:
    """The overrides in `RAG_WORKBENCH_PRESET_OVERRIDES` (empty when unset)."""
    text = os.environ.get(PRESET_OVERRIDES_ENV, "").strip()
    if not text:
        return {}
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PresetError(f"{PRESET_OVERRIDES_ENV} is not valid YAML: {exc}") from exc
    if not isinstance(value, dict):
        raise PresetError(
            f"{PRESET_OVERRIDES_ENV} must be a YAML mapping of dotted fields to values, "
            f"e.g. '{{embedding.backend: hashing}}'"
        )
    return {str(key): item for key, item in value.items()}


def load_preset(name_or_path: str | Path) -> PipelineConfig:
    """Load a bundled preset by name, or a YAML file by path (+ the environment's overrides)."""
    raw = _raw_preset(name_or_path)
    raw.setdefault("name", Path(str(name_or_path)).stem)
    config = config_from_dict(raw, origin=str(name_or_path))
    overrides = env_overrides()
    return with_overrides(config, overrides) if overrides else config


def preset_yaml(config: PipelineConfig) -> str:
    """The config as preset YAML (round-trips through load_preset)."""
    return yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False, allow_unicode=True)


def _parse_value(text: str) -> Any:
    """`--set` values are YAML scalars/lists: 60, 0.3, true, [bm25, dense], {bm25: 0.4}."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise PresetError(f"--set value {text!r} is not valid YAML ({problem}); "
                          "close its brackets or quote it") from None


def with_overrides(config: PipelineConfig, overrides: dict[str, Any]) -> PipelineConfig:
    """A new config with dotted-path fields replaced, e.g. {"fusion.k": 30}; validated again.

    The one way to derive a config from a preset: pages, the CLI (`--set`, parsed by
    parse_set_options), routers, sweeps and tuning all call it. Values are taken as given.
    Overrides inside stage sections re-validate only the sections they touch
    (`_section_overrides`); anything else, or a value one refuses, takes the whole-config path,
    whose errors name every field."""
    derived = _section_overrides(config, overrides)
    return derived if derived is not None else _whole_overrides(config, overrides)


def _whole_overrides(config: PipelineConfig, overrides: dict[str, Any]) -> PipelineConfig:
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
    _fit_chunking_params(raw, config, overrides)
    return config_from_dict(raw, origin=config.name)


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
        if not _all_finite(raw):
            return None
        try:
            update[section] = type(getattr(config, section)).model_validate(raw)
        except ValidationError:
            return None
    return config.model_copy(update=update)


def _fit_chunking_params(raw: dict[str, Any], config: PipelineConfig,
                         overrides: dict[str, Any]) -> None:
    """A new chunking strategy keeps only the old params it takes: `--set chunking.strategy=whole`
    on a recursive preset must not fail on `size`. Params set in the same call are kept as given
    (a wrong one is still an error)."""
    from rag.chunking.registry import kept_params  # late: loads every chunking strategy

    chunking = raw.get("chunking")
    if (not isinstance(chunking, dict) or chunking.get("strategy") == config.chunking.strategy
            or "chunking.params" in overrides):
        return
    explicit = {k.removeprefix("chunking.params.") for k in overrides
                if k.startswith("chunking.params.")}
    taken = kept_params(chunking["strategy"], chunking["params"])
    chunking["params"] = {k: v for k, v in chunking["params"].items() if k in explicit or k in taken}


def parse_set_options(items: list[str]) -> dict[str, Any]:
    """Turn CLI `--set key=value` items into an overrides dict."""
    overrides: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise PresetError(f"--set expects key=value, got {item!r}")
        overrides[key.strip()] = _parse_value(value)
    return overrides
