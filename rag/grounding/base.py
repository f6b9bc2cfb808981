"""The grounding report types, now in rag.outputs.grounding (below every stage); kept so old imports work."""

from rag.outputs.grounding import (
    ConfidenceLevel,
    GroundingReport,
    Method,
    SentenceCheck,
    Span,
    Sufficiency,
    Verdict,
)

__all__ = [
    "ConfidenceLevel",
    "GroundingReport",
    "Method",
    "SentenceCheck",
    "Span",
    "Sufficiency",
    "Verdict",
]
