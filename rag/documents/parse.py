"""One file to one Document: pick the parser by extension, hash, id, detect the type; or DocumentError."""

from __future__ import annotations

import errno
import hashlib
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

from rag.documents.archive import check_archive
from rag.documents.doctype import detect_doc_type
from rag.documents.errors import DocumentError
from rag.documents.parse_cache import load_parsed, store_parsed
from rag.documents.parsers import PARSERS
from rag.documents.structure import EMPHASIS_LEVEL
from rag.records.document import Document, DocumentMetadata
from rag.settings.documents import DocumentsConfig

SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(PARSERS.names())
_FORMAT_OF = {".htm": "html", ".markdown": "md"}
_SLUG_CHARS = re.compile(r"[^a-z0-9]+")


def human_size(size: int) -> str:
    """Sizes as people say them: 100 MB, 12 KB, 0 bytes."""
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} bytes"


def check_size(size: int, config: DocumentsConfig) -> None:
    """Refuse empty and oversized files before their bytes are read."""
    if size == 0:
        raise DocumentError("file is empty (0 bytes)", "export or upload it again")
    if size > config.max_bytes:
        raise DocumentError(
            f"file is {human_size(size)}, limit {human_size(config.max_bytes)}",
            "raise documents max_bytes or split the file",
        )


def make_doc_id(name: str, content_hash: str) -> str:
    """Readable and stable across machines: slug of the file name + hash of (name, content)."""
    base = Path(name).name
    slug = _SLUG_CHARS.sub("-", Path(base).stem.lower()).strip("-")[:40] or "doc"
    digest = hashlib.sha256(f"{base}\0{content_hash}".encode()).hexdigest()[:10]
    return f"{slug}-{digest}"


def parse_bytes(
    name: str,
    data: bytes,
    config: DocumentsConfig | None = None,
    modified: datetime | None = None,
    source: str | None = None,
) -> Document:
    """Parse an upload (or a file already read); `source` defaults to `name`."""
    config = config or DocumentsConfig()
    extension = Path(name).suffix.lower()
    if extension not in PARSERS:
        shown = f"'{extension}'" if extension else "(no extension)"
        raise DocumentError(
            f"unsupported file type {shown}",
            f"convert it to one of {', '.join(SUPPORTED_EXTENSIONS)}",
        )
    check_size(len(data), config)
    content_hash = hashlib.sha256(data).hexdigest()
    parsed = load_parsed(content_hash, extension)
    if parsed is None:
        check_archive(data, config)
        parsed = PARSERS.get(extension)(data, name)
        if parsed.text.strip():
            store_parsed(content_hash, extension, parsed)
    if not parsed.text.strip():
        raise DocumentError("no text found in the file", "check that it is not blank")
    # the document's own headings, without bold body text (pdf_layout's level 9: emphasis)
    marked = [parsed.text[span[0]:span[1]] for span in parsed.extra.get("heading_spans", ())
              if span[2] < EMPHASIS_LEVEL]
    detected = detect_doc_type(parsed.text, config, marked)
    metadata = DocumentMetadata(
        source=source or name,
        title=parsed.title or Path(name).stem,
        content_hash=content_hash,
        format=_FORMAT_OF.get(extension, extension.lstrip(".")),
        modified=modified or parsed.modified,
        pages=parsed.pages,
        doc_type=detected.doc_type,
        doc_type_reason=detected.reason,
        encoding=parsed.encoding,
        extra=MappingProxyType({**parsed.extra, "pii_density": detected.pii_density}),
    )
    return Document(make_doc_id(name, content_hash), parsed.text, metadata)


def parse_file(path: Path | str, config: DocumentsConfig | None = None) -> Document:
    """Parse a file on disk; its size is checked before it is read; mtime becomes `modified`."""
    config = config or DocumentsConfig()
    path = Path(path)
    try:
        stat = path.stat()
        check_size(stat.st_size, config)  # DocumentError passes through; it is not an OSError
        data = path.read_bytes()
    except FileNotFoundError:
        if path.is_symlink():
            raise DocumentError(f"broken symbolic link: its target {os.readlink(path)!r} does not exist",
                                "fix or remove the link") from None
        raise DocumentError("file not found", "check the path") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DocumentError("symbolic link loop: the link leads back to itself",
                                "fix or remove the link") from None
        if path.is_dir():
            raise DocumentError(f"symbolic link to a folder already walked ({path.resolve()}): a loop",
                                "fix or remove the link; the folder's files are ingested once") from None
        raise DocumentError(f"cannot read the file ({exc.strerror})", "check its permissions") from None
    modified = datetime.fromtimestamp(stat.st_mtime, tz=UTC)
    return parse_bytes(path.name, data, config, modified=modified, source=str(path))
