"""GeneratedAnswer and Quote, now in rag.outputs.generated (below every stage); kept so old imports work."""

from rag.outputs.generated import (
    AnswerMode,
    GeneratedAnswer,
    Quote,
)

__all__ = [
    "AnswerMode",
    "GeneratedAnswer",
    "Quote",
]
