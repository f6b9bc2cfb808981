"""Parsed text cached by the file's content hash (and its format), so re-ingesting an unchanged
file never parses it again. Stored as JSON (never pickle: the cache folder must not be a way to
run code); a corrupt or old entry is a miss and is rewritten."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rag.documents.parsers.base import ParsedText
from rag.paths import cache_dir
from rag.records.document import PageSpan

# Bump when a parser's output changes, so old entries are not served.
PARSER_VERSION = 2  # 2: heading_spans in extra (issue 36)


def _path(content_hash: str, extension: str, root: Path | None) -> Path:
    folder = root or cache_dir("parsed")
    return folder / f"{content_hash}{extension}.v{PARSER_VERSION}.json"


def load_parsed(content_hash: str, extension: str, root: Path | None = None) -> ParsedText | None:
    """The cached parse of these bytes, or None (absent, unreadable or not in this shape)."""
    try:
        raw = json.loads(_path(content_hash, extension, root).read_text(encoding="utf-8"))
        modified = datetime.fromisoformat(raw["modified"]) if raw["modified"] else None
        extra = {k: tuple(v) if isinstance(v, list) else v for k, v in raw["extra"].items()}
        pages = tuple(PageSpan(*span) for span in raw["pages"])
        extra_map = MappingProxyType(extra)
        return ParsedText(raw["text"], raw["title"], pages, raw["encoding"], modified, extra_map)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store_parsed(content_hash: str, extension: str, parsed: ParsedText, root: Path | None = None) -> None:
    """Write atomically (temp file + rename): a killed ingest never leaves half an entry."""
    path = _path(content_hash, extension, root)
    raw: dict[str, Any] = {
        "text": parsed.text, "title": parsed.title, "encoding": parsed.encoding,
        "pages": [[p.page, p.start, p.end] for p in parsed.pages],
        "modified": parsed.modified.isoformat() if parsed.modified else None,
        "extra": dict(parsed.extra),
    }
    try:
        handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(raw, out, ensure_ascii=False, default=str)
        os.replace(temp, path)
    except OSError:
        pass  # a cache that cannot be written costs a re-parse next time, nothing else
