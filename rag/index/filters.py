"""Payload filters: a FilterConfig (+ time window) as a Qdrant filter, the one filter semantics."""

from __future__ import annotations

from collections.abc import Sequence

from qdrant_client import models

from rag.privacy import normalize_user
from rag.retrieve.settings import FilterConfig


def _any_of(key: str, values: list[str]) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))


def build_filter(
    filters: FilterConfig | None,
    since: float | None = None,
    *,
    privacy: bool = True,
    hidden: Sequence[str] = (),
) -> models.Filter | None:
    """Every listed field must match one of its values; None when nothing would be excluded.

    A chunk is visible when it is public, or private and owned by `filters.owner`; with no owner
    only public chunks are visible. `privacy=False` (a collection without private chunks) drops
    that clause, which can exclude nothing there. `since` (epoch seconds) keeps chunks created at
    or after it. `hidden` are chunk ids a write has not committed (rag.index.journal).
    """
    filters = filters or FilterConfig()
    must: list[models.Condition] = []
    for key, values in (
        ("source", filters.sources),
        ("doc_type", filters.doc_types),
        ("level", filters.levels),
        ("tags", filters.tags),
    ):
        if values:
            must.append(_any_of(key, values))
    if privacy:
        visible: list[models.Condition] = [_any_of("visibility", ["public"])]
        owner_name = normalize_user(filters.owner)
        if owner_name is not None:
            owner = models.MatchValue(value=owner_name)
            visible.append(models.FieldCondition(key="owner", match=owner))
        must.append(models.Filter(should=visible))
    if since is not None:
        must.append(models.FieldCondition(key="created_at", range=models.Range(gte=since)))
    if hidden:
        from rag.index.points import point_id  # late: keeps this module light

        ids: list[models.ExtendedPointId] = [point_id(c) for c in hidden]
        return models.Filter(must=must or None, must_not=[models.HasIdCondition(has_id=ids)])
    return models.Filter(must=must) if must else None


def visibility_filter(visibility: str) -> models.Filter:
    """Points with this visibility ("private" counts whether the privacy clause is needed)."""
    return models.Filter(must=[_any_of("visibility", [visibility])])


def filter_key(qfilter: models.Filter) -> str:
    """A stable string for caching results per filter."""
    return qfilter.model_dump_json(exclude_none=True)
