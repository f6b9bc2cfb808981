"""Presets that embed with the hashing backend instead of MiniLM, for tests of what a page or a
notebook shows and does — not of retrieval quality, which keeps the real model.

`RAG_WORKBENCH_PRESET_OVERRIDES` applies to every preset `load_preset` returns, in this process
and in the processes it starts (notebook kernels). Fixtures: tests/conftest.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import PRESET_OVERRIDES_ENV

HASHING_PRESETS = "{embedding.backend: hashing, generation.extractive_answer_model: false}"


def use_hashing_presets(patch: pytest.MonkeyPatch, data: Path | None = None) -> None:
    """Presets embed with the hashing backend (and `data`, when given, is the data folder)."""
    patch.setenv(PRESET_OVERRIDES_ENV, HASHING_PRESETS)
    if data is not None:
        patch.setenv("RAG_WORKBENCH_DATA", str(data))
