"""Intent routing (Axiom's three layers): rules, semantic exemplars, LLM fallback."""

from rag.query.intent.exemplars import CANNED_REPLIES, EXEMPLARS, INTENTS, NEEDS_RETRIEVAL
from rag.query.intent.router import IntentResult, route_intent
from rag.query.intent.rules import RuleHit, hard_rules
from rag.query.intent.semantic import SemanticRouter, SemanticScores

__all__ = [
    "CANNED_REPLIES", "EXEMPLARS", "INTENTS", "NEEDS_RETRIEVAL", "IntentResult", "RuleHit",
    "SemanticRouter", "SemanticScores", "hard_rules", "route_intent",
]
