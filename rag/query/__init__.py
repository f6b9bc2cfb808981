"""Query understanding before retrieval: guardrails (guard.py), intent routing (intent/),
classification, routing, follow-up rewriting, expansion, spelling and the semantic cache, run
together by `understand.understand`; `stage.py` plugs "guard" and "understand" into the pipeline."""
