"""Payload filters: a FilterConfig (+ time window) as a Qdrant filter, the one filter semantics."""

from __future__ import annotations

from qdrant_client import models

from rag.retrieve.settings import FilterConfig


def _any_of(key: str, values: list[str]) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))


def build_filter(
    filters: FilterConfig | None, since: float | None = None, *, privacy: bool = True
) -> models.Filter | None:
    """Every listed field must match one of its values; None when nothing would be excluded.

    A chunk is visible when it is public, or private and owned by `filters.owner`; with no owner
    only public chunks are visible. `privacy=False` (a collection without private chunks) drops
    that clause, which can exclude nothing there. `since` (epoch seconds) keeps chunks created at
    or after it.
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
        if filters.owner is not None:
            owner = models.MatchValue(value=filters.owner)
            visible.append(models.FieldCondition(key="owner", match=owner))
        must.append(models.Filter(should=visible))
    if since is not None:
        must.append(models.FieldCondition(key="created_at", range=models.Range(gte=since)))
    return models.Filter(must=must) if must else None


def filter_key(qfilter: models.Filter) -> str:
    """A stable string for caching results per filter."""
    return qfilter.model_dump_json(exclude_none=True)
