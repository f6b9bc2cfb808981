"""Test-wide settings for tests/ and benchmarks/tests/: never touch a model hub, never phone home,
keep state in a temp folder."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["RAGAS_DO_NOT_TRACK"] = "true"
# One data folder per test process: pytest-xdist workers inherit the controller's environment,
# and an embedded Qdrant folder admits one process at a time.
if "PYTEST_XDIST_WORKER" in os.environ or "RAG_WORKBENCH_DATA" not in os.environ:
    os.environ["RAG_WORKBENCH_DATA"] = tempfile.mkdtemp(prefix="rag-workbench-test-")
    atexit.register(shutil.rmtree, os.environ["RAG_WORKBENCH_DATA"], ignore_errors=True)
# ONNX builds are made once per machine for the tests (shared by the workers and by the LLM
# suite's session; keyed by model, onnxruntime and recipe versions, built under a lock)
os.environ.setdefault("RAG_WORKBENCH_MODELS",
                      os.path.join(tempfile.gettempdir(), "rag-workbench-test-models"))
os.environ.pop("OPENAI_API_KEY", None)
os.environ.pop("OPENAI_BASE_URL", None)
# tests run on the embedded store; a server given in QDRANT_URL is kept for the parity suite
# (tests/rag/index/test_store_parity.py), which compares it with Edge call by call
os.environ.setdefault("RAG_WORKBENCH_PARITY_QDRANT_URL", os.environ.pop("QDRANT_URL", ""))

# the test helpers (fake_openai, hashing_presets, …) import by their file names
sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))

from hashing_presets import use_hashing_presets
from shared_imports import SharedImportScheduling

from rag.config import PRESET_OVERRIDES_ENV

os.environ.pop(PRESET_OVERRIDES_ENV, None)  # quality tests must never run on the hashing backend


# Hypothesis: the same examples on every run, so CI is reproducible (failures found locally
# with random search are kept as explicit examples in the tests).
settings.register_profile("workbench", derandomize=True, deadline=None)
settings.load_profile("workbench")


def pytest_configure(config) -> None:  # type: ignore[no-untyped-def]
    config.addinivalue_line("markers", "slow: loads a real model or builds a larger corpus")
    config.addinivalue_line("markers", "browser: drives the running app in headless chromium")


def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    if config.getvalue("dist") == "loadfile":
        return SharedImportScheduling(config, log)
    return None


@pytest.fixture
def hashing_presets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every preset loaded during the test embeds with the hashing backend (no model load)."""
    use_hashing_presets(monkeypatch)
