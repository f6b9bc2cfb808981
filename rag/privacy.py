"""Who is asking, as one normalised name, and the visibility scope a stored result belongs to.

A user name is compared case-insensitively everywhere (NFKC, case-folded, trimmed): "Alice",
" alice" and "ALICE" are one person, whose documents are written and searched under "alice". A
blank name is anonymous (public chunks only). The same function feeds the stored owner, the
search filter and every cache key, so the three can never disagree about who someone is.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any

ANONYMOUS = "anonymous"


def normalize_user(name: str | None) -> str | None:
    """The canonical form of a user name; None for no user (or a blank one)."""
    if name is None:
        return None
    canonical = unicodedata.normalize("NFKC", name).casefold().strip()
    return canonical or None


def scope_key(user: str | None) -> str:
    """The part of a cache key that says whose view a result is: `user:<name>` or `anonymous`.
    Results served from a cache must carry it, so no answer crosses from one scope to another."""
    canonical = normalize_user(user)
    return ANONYMOUS if canonical is None else f"user:{canonical}"


def access_key(visibility: str, owner: str | None, tags: tuple[str, ...] = ()) -> str:
    """A stored document's access as one comparable string: re-ingesting it with another key
    re-indexes it, so every point carries the owner and visibility it was last given."""
    return json.dumps([visibility, normalize_user(owner), sorted(tags)])


def visible_to(metadata: Mapping[str, Any], user: str | None) -> bool:
    """The visibility rule on a chunk's payload (rag.index.filters applies it inside Qdrant):
    public, or private and owned by `user`."""
    if metadata.get("visibility", "public") == "public":
        return True
    owner = normalize_user(user)
    return owner is not None and metadata.get("owner") == owner
