"""Payload filters: a FilterConfig (+ time window) as one small filter tree, the one filter
semantics; each engine translates it (edge_filters.py for Qdrant Edge, server_client.py for a
Qdrant server), so neither engine's client is imported to build one."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from rag.privacy import normalize_user
from rag.settings.retrieval import FilterConfig

_NAMESPACE = uuid.NAMESPACE_URL.bytes


def point_id(chunk_id: str) -> str:
    """Qdrant ids are ints or UUIDs; a chunk id maps to a stable UUID (the id stays in the payload):
    uuid.uuid5(NAMESPACE_URL, chunk_id), spelled out because uuid.UUID costs ~10 us and a BM25
    list needs 100 ids per query (tests/rag/index/test_search_paths.py checks it equals uuid5)."""
    digest = bytearray(hashlib.sha1(_NAMESPACE + chunk_id.encode("utf-8")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass(frozen=True)
class MatchAny:
    """The payload field holds one of `values` (a list field: any of its items does)."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class AtLeast:
    """The payload number is >= `value`."""

    key: str
    value: float


@dataclass(frozen=True)
class HasId:
    """The point id is one of `ids`."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class Filter:
    """Every `must` holds, at least one `should` holds (when any are given), no `must_not` does."""

    must: tuple[Condition, ...] = ()
    should: tuple[Condition, ...] = ()
    must_not: tuple[Condition, ...] = ()


Condition = MatchAny | AtLeast | HasId | Filter


def build_filter(
    filters: FilterConfig | None,
    since: float | None = None,
    *,
    privacy: bool = True,
    hidden: Sequence[str] = (),
) -> Filter | None:
    """Every listed field must match one of its values; None when nothing would be excluded.

    A chunk is visible when it is public, or private and owned by `filters.owner`; with no owner
    only public chunks are visible. `privacy=False` (a collection without private chunks) drops
    that clause, which can exclude nothing there. `since` (epoch seconds) keeps chunks created at
    or after it. `hidden` are chunk ids a write has not committed (rag.index.journal).
    """
    filters = filters or FilterConfig()
    must: list[Condition] = []
    for key, values in (
        ("source", filters.sources),
        ("doc_type", filters.doc_types),
        ("level", filters.levels),
        ("tags", filters.tags),
    ):
        if values:
            must.append(MatchAny(key, tuple(values)))
    if privacy:
        visible: list[Condition] = [MatchAny("visibility", ("public",))]
        owner_name = normalize_user(filters.owner)
        if owner_name is not None:
            visible.append(MatchAny("owner", (owner_name,)))
        must.append(Filter(should=tuple(visible)))
    if since is not None:
        must.append(AtLeast("created_at", since))
    if hidden:
        return Filter(must=tuple(must), must_not=(HasId(tuple(point_id(c) for c in hidden)),))
    return Filter(must=tuple(must)) if must else None


def visibility_filter(visibility: str) -> Filter:
    """Points with this visibility ("private" counts whether the privacy clause is needed)."""
    return Filter(must=(MatchAny("visibility", (visibility,)),))


def filter_key(qfilter: Filter) -> str:
    """A stable string for caching results per filter."""
    return repr(qfilter)
