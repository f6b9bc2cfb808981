"""Shared helpers for index tests: real Documents from text, a cheap real embedder config."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from types import MappingProxyType
from typing import Any

from rag.config import PipelineConfig
from rag.documents.base import DocType, Document, DocumentMetadata

# Real short passages (paraphrased from Debian/Python documentation topics).
PASSAGES = [
    "APT downloads packages from the archive and resolves their dependencies automatically.",
    "dpkg installs a single Debian package file; it does not fetch missing dependencies.",
    "The sources.list file tells APT which mirrors and suites to download packages from.",
    "systemd starts services at boot and restarts them when they fail.",
    "journalctl shows the logs that systemd services write to the journal.",
    "A cron job runs a command on a schedule, such as every night at midnight.",
    "SSH keys let you log in to a remote server without typing a password.",
    "The firewall drops incoming packets unless a rule allows the port.",
    "Python virtual environments keep each project's packages separate.",
    "pip installs Python packages from the package index into the active environment.",
    "A symbolic link points to another file; deleting the target breaks the link.",
    "File permissions decide who may read, write or execute a file.",
    "The kernel loads modules for hardware drivers when a device appears.",
    "Swap space on disk extends memory when RAM runs out, but it is much slower.",
    "rsync copies only the changed parts of files, which makes backups fast.",
    "tar bundles many files into one archive; gzip then compresses the archive.",
    "Locales set the language, date format and character encoding of programs.",
    "The hostname identifies a machine on the network.",
    "DNS resolves host names to IP addresses using name servers.",
    "A package's changelog lists what changed in each uploaded version.",
]


def make_doc(
    source: str,
    text: str,
    *,
    doc_type: DocType = "USER",
    modified: datetime | None = None,
    tags: tuple[str, ...] = (),
) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    extra: dict[str, Any] = {"tags": list(tags)} if tags else {}
    meta = DocumentMetadata(
        source=source,
        title=source.rsplit("/", 1)[-1],
        content_hash=digest,
        format="txt",
        modified=modified,
        doc_type=doc_type,
        extra=MappingProxyType(extra),
    )
    return Document(doc_id=f"{source}#{digest[:12]}", text=text, metadata=meta)


def passage_docs() -> list[Document]:
    return [make_doc(f"docs/p{i:02d}.txt", text) for i, text in enumerate(PASSAGES)]


def index_config(sparse_backend: str = "bm25s", **index: Any) -> PipelineConfig:
    """fastembed's int8 MiniLM (loads in < 1 s, no torch) and one chunk per short passage."""
    return PipelineConfig.model_validate(
        {
            "chunking": {"strategy": "recursive", "params": {"size": 400, "overlap": 0}},
            "embedding": {"backend": "fastembed"},
            "index": {"sparse_backend": sparse_backend, **index},
        }
    )


def unique_name(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"
