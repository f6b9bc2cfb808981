"""Judging a test set in the app: pooled passages, judgments on disk, export as QA JSONL."""
