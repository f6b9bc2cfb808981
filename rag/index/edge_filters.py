"""qdrant-client filter models as Qdrant Edge filters: filters.py stays the one filter semantics
(the server reads its models as they are), and the embedded engine gets the same conditions."""

from __future__ import annotations

from typing import Any

import qdrant_edge as edge
from qdrant_client import models


class UnsupportedFilterError(ValueError):
    """A condition the store never builds (rag.index.filters) and Edge is not taught to read."""


def to_edge(qfilter: models.Filter | None) -> edge.Filter | None:
    """The same filter for Qdrant Edge (None stays None)."""
    return None if qfilter is None else _filter(qfilter)


def _filter(qfilter: models.Filter) -> edge.Filter:
    def many(conditions: Any) -> list[Any] | None:
        if conditions is None:
            return None
        items = conditions if isinstance(conditions, list) else [conditions]
        return [_condition(c) for c in items]

    if qfilter.min_should is not None:
        raise UnsupportedFilterError("min_should is not used by the store")
    return edge.Filter(
        must=many(qfilter.must), should=many(qfilter.should), must_not=many(qfilter.must_not)
    )


def _condition(condition: Any) -> Any:
    if isinstance(condition, models.Filter):
        return _filter(condition)
    if isinstance(condition, models.HasIdCondition):
        return edge.HasIdCondition({str(i) for i in condition.has_id})
    if isinstance(condition, models.FieldCondition):
        if condition.match is not None:
            return edge.FieldCondition(condition.key, match=_match(condition.match))
        if isinstance(condition.range, models.Range):
            r = condition.range
            return edge.FieldCondition(
                condition.key, range=edge.RangeFloat(gte=r.gte, gt=r.gt, lte=r.lte, lt=r.lt)
            )
    raise UnsupportedFilterError(f"no Edge translation for {type(condition).__name__}: {condition}")


def _match(match: Any) -> Any:
    if isinstance(match, models.MatchAny):
        return edge.MatchAny([v for v in match.any])  # type: ignore[arg-type]
    if isinstance(match, models.MatchValue):
        return edge.MatchValue(match.value)
    if isinstance(match, models.MatchExcept):
        return edge.MatchExcept([v for v in match.except_])  # type: ignore[arg-type]
    raise UnsupportedFilterError(f"no Edge translation for {type(match).__name__}")
