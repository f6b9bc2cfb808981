"""The store's filter tree (rag.index.filters) as a Qdrant Edge filter."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import qdrant_edge as edge

from rag.index.filters import AtLeast, Condition, Filter, HasId, MatchAny


@lru_cache(maxsize=64)  # ~75 us to build; the privacy filter is the same on every query
def to_edge(qfilter: Filter | None) -> edge.Filter | None:
    """The same filter for Qdrant Edge (None stays None). Edge reads a filter without changing
    it, so one object serves every request that uses the same filter."""
    return None if qfilter is None else _filter(qfilter)


def _filter(qfilter: Filter) -> edge.Filter:
    def many(conditions: tuple[Condition, ...]) -> list[Any] | None:
        return [_condition(c) for c in conditions] or None

    return edge.Filter(
        must=many(qfilter.must), should=many(qfilter.should), must_not=many(qfilter.must_not)
    )


def _condition(condition: Condition) -> Any:
    if isinstance(condition, Filter):
        return _filter(condition)
    if isinstance(condition, HasId):
        return edge.HasIdCondition(set(condition.ids))
    if isinstance(condition, MatchAny):
        return edge.FieldCondition(condition.key, match=edge.MatchAny(list(condition.values)))
    if isinstance(condition, AtLeast):
        return edge.FieldCondition(condition.key, range=edge.RangeFloat(gte=condition.value))
    raise TypeError(f"not a filter condition: {condition!r}")
