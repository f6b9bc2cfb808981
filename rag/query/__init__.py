"""Query understanding before retrieval: guardrails (guard.py), intent routing (intent/),
classification, routing, follow-up rewriting, expansion, spelling and the semantic cache, run
together by `understand.understand`; `stage.py` plugs "guard" and "understand" into the pipeline."""

from __future__ import annotations

from rag.lazy_exports import lazy_exports

_EXPORTS = {  # what pages and eval read from this package, loaded on first use
    "EXEMPLARS": "rag.query.intent",
    "EXPANDERS": "rag.query.expand",
    "GuardVerdict": "rag.query.guard",
    "INTENTS": "rag.query.intent",
    "IntentEvaluation": "rag.query.intent.evaluate",
    "IntentResult": "rag.query.intent",
    "LEVELS": "rag.query.intelligence",
    "LEVEL_ORDER": "rag.query.intelligence",
    "SpellResult": "rag.query.spell",
    "THRESHOLD_GRID": "rag.query.intent.evaluate",
    "Understanding": "rag.query.understand",
    "apply_level": "rag.query.intelligence",
    "calibrate": "rag.query.intent.evaluate",
    "evaluate": "rag.query.intent.evaluate",
    "load_labeled": "rag.query.intent.evaluate",
    "semantic_cache": "rag.query.stage",
    "semantic_router": "rag.query.stage",
    "semantic_scores": "rag.query.intent.evaluate",
    "sweep": "rag.query.intent.evaluate",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(_EXPORTS)
