"""Presets: YAML files of pipeline settings (rag/settings/), loaded, derived and saved here.

A preset may say `extends: other` to start from another preset and override some fields.
Every error names the preset, the field and the rule it broke. This is the edge where a config
enters the app (pages, eval, CLI): besides the sections' own rules it checks the names a
section picks against their registries (chunking strategy and params, reranker, normalizer,
policy), which the stages check again when they are built. rag/'s stage packages never import
this module; they read their own section from rag.settings.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import yaml

from rag.chunking.registry import kept_params, strategy_settings
from rag.paths import PRESETS_DIR, data_dir
from rag.rerank.policies import NORMALIZERS, POLICIES
from rag.rerank.scorers import SCORERS
from rag.settings.overrides import PresetError, apply_overrides, validate_config
from rag.settings.pipeline import PipelineConfig

__all__ = [
    "PRESET_OVERRIDES_ENV", "PipelineConfig", "PresetError", "available_presets", "check_names",
    "config_from_dict", "env_overrides", "load_preset", "parse_set_options", "preset_yaml",
    "save_user_preset", "user_presets_dir", "with_overrides",
]  # fmt: skip


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


def check_names(config: PipelineConfig, origin: str = "<dict>",
                sections: frozenset[str] | None = None) -> PipelineConfig:
    """`config` if every registry name its sections pick exists (all sections, or `sections`),
    else a PresetError naming the field and the valid names, as a refused field reads."""
    problems: list[str] = []

    def check(section: str, field: str, lookup: Any, name: Any) -> None:
        if sections is None or section in sections:
            try:
                lookup(name)
            except ValueError as exc:
                problems.append(f"  {section}{field}: {exc}")

    check("chunking", "", lambda c: strategy_settings(c.strategy, c.params), config.chunking)
    check("rerank", "", SCORERS.get, config.rerank.method)
    if config.rerank.normalization != "auto":
        check("rerank", "", NORMALIZERS.get, config.rerank.normalization)
    check("rerank", "", POLICIES.get, config.rerank.policy)
    if problems:
        raise PresetError("\n".join([f"preset {origin!r} is invalid:", *problems]))
    return config


def config_from_dict(raw: dict[str, Any], origin: str = "<dict>") -> PipelineConfig:
    """`raw` as a checked PipelineConfig (the sections' rules, then the registry names)."""
    return check_names(validate_config(raw, origin), origin)


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
    parse_set_options), routers, sweeps and tuning all call it. Values are taken as given; the
    sections they touch are checked again (rag.settings.overrides, then check_names)."""
    derived = apply_overrides(config, overrides, _fit_chunking_params)
    touched = frozenset(dotted.partition(".")[0] for dotted in overrides)
    return check_names(derived, config.name, touched)


def _fit_chunking_params(raw: dict[str, Any], config: PipelineConfig,
                         overrides: dict[str, Any]) -> None:
    """A new chunking strategy keeps only the old params it takes: `--set chunking.strategy=whole`
    on a recursive preset must not fail on `size`. Params set in the same call are kept as given
    (a wrong one is still an error)."""
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
