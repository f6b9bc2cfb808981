"""`python -m rag query` end to end: ingest real files into a real collection, query it, parse
the printed trace."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from rag.cli import main
from rag.pipeline import STAGE_ORDER
from rag.retrieve.stage import SelectOutput
from rag.trace import Trace

DOCS = {
    "fusion.txt": "Reciprocal rank fusion merges ranked lists by summing one over k plus rank.",
    "bm25.txt": "BM25 weighs term frequency against document length and inverse document frequency",
    "qdrant.txt": "Qdrant keeps dense vectors and payloads, and filters points by payload fields.",
}


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A collection built with `python -m rag ingest` and the preset file that built it."""
    folder = tmp_path_factory.mktemp("cli-docs")
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    preset = folder / "hybrid-fastembed.yaml"  # fastembed's int8 MiniLM: real, and quick to load
    preset.write_text("extends: hybrid\nembedding:\n  backend: fastembed\n", encoding="utf-8")
    name = f"cli-{uuid.uuid4().hex[:8]}"
    assert main(["ingest", str(folder), "--collection", name, "--preset", str(preset)]) == 0
    return name, preset


@pytest.mark.slow
def test_query_json_is_the_full_trace(
    ingested: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, preset = ingested
    capsys.readouterr()
    code = main([
        "query", "how are ranked lists merged", "--collection", name, "--preset", str(preset),
        "--set", "retrieval.top_k=2", "--json",
    ])  # fmt: skip
    printed = capsys.readouterr().out
    trace = json.loads(printed)
    assert code == 0
    assert [r["stage"] for r in trace["records"]] == list(STAGE_ORDER)
    assert trace["collection"] == name
    selected = Trace.from_json(printed).output(SelectOutput)  # typed again, as it ran
    assert selected is not None
    top = selected.candidates
    assert len(top) == 2
    assert top[0].chunk.metadata["source"].endswith("fusion.txt")
    assert set(top[0].hits) <= {"bm25", "dense"} and top[0].contributions


@pytest.mark.slow
def test_query_table_and_errors(
    ingested: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    name, preset = ingested
    capsys.readouterr()
    assert main(["query", "payload filters", "--collection", name, "--preset", str(preset)]) == 0
    table = capsys.readouterr().out
    assert "select" in table and "qdrant" in table.lower()
    assert main(["query", "x", "--collection", "no-such-collection"]) == 2
    assert "no collection 'no-such-collection'" in capsys.readouterr().err
    assert main(["query", "   ", "--collection", name]) == 2
    assert main(["query", "x", "--collection", name, "--set", "fusion.k=0"]) == 2
