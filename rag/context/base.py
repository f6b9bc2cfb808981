"""The context stage's output types, now in rag.outputs.context (below every stage); kept so
old imports work."""

from rag.outputs.context import (
    BlockOrigin,
    BuiltContext,
    ChunkLookup,
    ChunkTable,
    ContextBlock,
    FlaggedPolicy,
    HeldBack,
    TokenBudget,
    context_step,
)

__all__ = [
    "BlockOrigin",
    "BuiltContext",
    "ChunkLookup",
    "ChunkTable",
    "ContextBlock",
    "FlaggedPolicy",
    "HeldBack",
    "TokenBudget",
    "context_step",
]
