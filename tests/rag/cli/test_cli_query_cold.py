"""A cold `python -m rag query` on the default (onnx) embedder imports no torch, no OpenAI SDK
(no endpoint is set), no fastembed (Qdrant's optional integration, hidden by rag.index) and no
document parsers: what a new process pays before it answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag.paths import SAMPLES_DIR

INGEST = """
import sys
from rag.config import load_preset
from rag.documents import parse_file
from rag.index import open_collection
open_collection("cold", create=True).add_documents(
    [parse_file(sys.argv[1])], load_preset("hybrid"), progress=False)
"""
QUERY = """
import sys
from rag.cli import main
code = main(["query", "How long do deleted notes stay in the trash?", "--collection", "cold"])
heavy = [m for m in ("torch", "sentence_transformers", "openai", "pypdf", "pptx", "docx", "bs4",
                    "fastembed") if m in sys.modules]
print("HEAVY", heavy, "CODE", code)
"""


@pytest.mark.slow  # two new processes, one real model
def test_a_cold_query_imports_nothing_heavy_and_answers(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(RAG_WORKBENCH_DATA=str(tmp_path), HF_HUB_OFFLINE="1")
    env.pop("RAG_WORKBENCH_PRESET_OVERRIDES", None)  # the real default embedder
    faq = str(SAMPLES_DIR / "lumen-notes-faq.txt")
    subprocess.run([sys.executable, "-c", INGEST, faq], env=env, check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, "-c", QUERY], env=env, check=True, capture_output=True, text=True
    )
    assert "30 days" in done.stdout
    assert "HEAVY [] CODE 0" in done.stdout
