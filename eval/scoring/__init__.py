"""Scoring: ranking metrics (trec_eval definitions), bootstrap CIs and paired tests, answer
metrics (ragas), and two runs compared query by query."""
