"""A collection's manifest: its documents (content hash, chunk ids) and the config it was built with."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rag.embed.variant import concrete
from rag.privacy import access_key
from rag.settings.embedding import LEGACY_ONNX_VARIANT

if TYPE_CHECKING:
    from rag.settings.pipeline import PipelineConfig

PUBLIC = access_key("public", None)  # the access of entries written before access was recorded


# The fields that change what is stored in the index; everything else (fusion, rerank, batch
# size, the cache switch, the collection name) may differ between ingest and query.
_EMBEDDING_FIELDS = (
    "backend",
    "model",
    "model_path",
    "normalize",
    "query_prefix",
    "passage_prefix",
)
_INDEX_FIELDS = ("sparse_backend", "tokenizer", "k1", "b")


class IncompatibleConfigError(ValueError):
    """The query config would read an index built with different chunking/embedding/index settings."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def index_settings(config: PipelineConfig) -> dict[str, Any]:
    """The index-affecting sections of `config`: chunking, embedding (model side), index.
    onnx_variant `auto` is recorded as the graph it picks on this CPU (rag/embed/variant.py)."""
    embedding = concrete(config.embedding).model_dump(mode="json")
    index = config.index.model_dump(mode="json")
    embedding_settings = {k: embedding[k] for k in _EMBEDDING_FIELDS}
    if _onnx_variant_matters(embedding):
        # recorded only where it picks the graph, and not for the graph onnx collections were
        # built with before it existed, so their settings (and hash) stay what they were
        embedding_settings["onnx_variant"] = embedding["onnx_variant"]
    return {
        "documents": {"redact_pii": config.documents.redact_pii},
        "chunking": config.chunking.model_dump(mode="json"),
        "embedding": embedding_settings,
        "index": {k: index[k] for k in _INDEX_FIELDS},
    }


def _onnx_variant_matters(embedding: Mapping[str, Any]) -> bool:
    return (
        embedding["backend"] == "onnx"
        and not embedding["model_path"]
        and embedding["onnx_variant"] != LEGACY_ONNX_VARIANT
    )


def settings_hash(settings: Mapping[str, Any]) -> str:
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def settings_diff(built: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """Readable lines: `embedding.model: 'a' (collection) vs 'b' (config)`."""
    old, new = _flatten(built), _flatten(wanted)
    return [
        f"{key}: {old.get(key)!r} (collection) vs {new.get(key)!r} (config)"
        for key in sorted(set(old) | set(new))
        if old.get(key) != new.get(key)
    ]


def _embedder(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The embedding settings with the onnx graph spelled out (recorded only when not legacy)."""
    embedding = dict(settings.get("embedding") or {})
    if embedding and embedding.get("backend") == "onnx" and not embedding.get("model_path"):
        embedding.setdefault("onnx_variant", LEGACY_ONNX_VARIANT)
    return embedding


def _describe(embedding: Mapping[str, Any]) -> str:
    variant = embedding.get("onnx_variant")
    name = embedding.get("model_path") or embedding.get("model")
    return f"{embedding.get('backend')} {name}" + (f" ({variant})" if variant else "")


def embedding_mismatch(built: Mapping[str, Any], wanted: Mapping[str, Any]) -> str:
    """Why vectors from another embedder cannot be searched, and the override that fixes it
    ("" when both embed alike). Cosine between two models' vectors means nothing, so this is
    an error, never a silent mix."""
    old, new = _embedder(built), _embedder(wanted)
    changed = [
        k for k in ("backend", "model", "model_path", "onnx_variant") if old.get(k) != new.get(k)
    ]
    if not old or not changed:
        return ""
    fix = " ".join(f"--set embedding.{k}={old.get(k)}" for k in changed if old.get(k) is not None)
    return (
        f"its vectors were made by {_describe(old)}; a query embedded by {_describe(new)}"
        f" would be compared in another vector space (query with {fix})\n"
    )


@dataclass(frozen=True)
class DocumentEntry:
    doc_id: str
    source: str
    title: str
    content_hash: str
    chunk_ids: tuple[str, ...]
    added_at: str
    access: str = PUBLIC  # rag.privacy.access_key: owner, visibility, tags


@dataclass(frozen=True)
class Manifest:
    """Documents keyed by source; settings are empty until the first ingest fixes them."""

    name: str
    created_at: str
    updated_at: str
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    config_hash: str = ""
    dim: int = 0
    sparse_avgdl: float = 0.0  # frozen at the first ingest (qdrant sparse vectors, see vectors.py)
    documents: Mapping[str, DocumentEntry] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def new(cls, name: str) -> Manifest:
        stamp = now_iso()
        return cls(name=name, created_at=stamp, updated_at=stamp)

    @property
    def chunk_count(self) -> int:
        return sum(len(d.chunk_ids) for d in self.documents.values())

    @cached_property
    def chunk_ids(self) -> frozenset[str]:
        """Every listed chunk: search returns these and nothing else (rag.index.journal)."""
        return frozenset(c for d in self.documents.values() for c in d.chunk_ids)

    def with_documents(self, documents: Mapping[str, DocumentEntry]) -> Manifest:
        return replace(self, documents=MappingProxyType(dict(documents)), updated_at=now_iso())

    def to_json(self) -> str:
        raw: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        raw["settings"] = dict(self.settings)
        raw["documents"] = {s: asdict(d) for s, d in self.documents.items()}
        return json.dumps(raw, indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        raw = json.loads(text)
        raw.pop("has_private", None)  # older manifests: privacy is now read from the points
        documents = {
            source: DocumentEntry(**{**entry, "chunk_ids": tuple(entry["chunk_ids"])})
            for source, entry in raw.pop("documents", {}).items()
        }
        return cls(
            **{**raw, "settings": MappingProxyType(raw.get("settings", {}))},
            documents=MappingProxyType(documents),
        )

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # one per process: no two share it
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(path)  # atomic: a crash never leaves half a manifest

    @classmethod
    def load(cls, path: Path) -> Manifest:
        return cls.from_json(path.read_text(encoding="utf-8"))


def describe_settings(settings: Mapping[str, Any]) -> str:
    """A collection's index settings as text: "recursive, size 512, overlap 50 · embedding
    all-MiniLM-L6-v2 (sentence-transformers)". Nested and list parameters are left out."""
    chunking = settings.get("chunking") or {}
    if not chunking:
        return "no documents yet"
    params = chunking.get("params") or {}
    shown = [
        f"{k.replace('_', ' ')} {v}"
        for k, v in params.items()
        if not isinstance(v, Mapping | list | tuple)
    ]
    text = ", ".join([str(chunking.get("strategy", "?")), *shown])
    embedding = settings.get("embedding") or {}
    if embedding:
        backend = embedding.get("backend")
        model = "" if backend == "hashing" else (embedding.get("model_path") or embedding.get("model"))
        text += f" · embedding {model} ({backend})" if model else f" · embedding {backend}"
    return text
