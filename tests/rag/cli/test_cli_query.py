"""`python -m rag query` answers like the app: an answer with [Source N] citations, sources by
document name and position, the stage table; model loading on its own line, once per process;
`--json` puts a failure at the top level and exits non-zero."""

from __future__ import annotations

import io
import json
import re
import uuid

import pytest

from rag.cli import main
from rag.index import open_collection
from rag.index.document_texts import DocumentTexts
from rag.paths import SAMPLES_DIR

QUESTION = "How long do deleted notes stay in the trash?"


@pytest.fixture
def collection(hashing_presets: None, capsys: pytest.CaptureFixture[str]) -> str:
    name = f"q-{uuid.uuid4().hex[:8]}"
    faq = SAMPLES_DIR / "lumen-notes-faq.txt"
    assert main(["ingest", str(faq), "--collection", name, "--preset", "hybrid"]) == 0
    capsys.readouterr()
    return name


def test_default_query_prints_a_cited_answer_named_sources_and_stages(
    collection: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the preset's abstention bar is a MiniLM cosine; these tests embed with the hashing backend
    assert main(["query", QUESTION, "--collection", collection,
                 "--set", "abstain.min_evidence=null"]) == 0
    out = capsys.readouterr().out
    answer = out.split("answer:\n", 1)[1].split("\n\n", 1)[0]
    assert "30 days" in answer and re.search(r"\[Source \d\]", answer)
    # sources and ranking by file name and character positions, not chunk hash ids
    assert re.search(r"\[Source 1\] lumen-notes-faq\.txt:\d+–\d+", out)
    assert re.search(r"^  1\. \d\.\d{4}  lumen-notes-faq\.txt:\d+–\d+", out, re.MULTILINE)
    for stage in ("retrieve", "select", "context", "generate", "ground"):
        assert re.search(rf"^  {stage} +ok ", out, re.MULTILINE)


def test_models_load_on_their_own_line_and_only_once_per_process(
    collection: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{QUESTION}\nHow do I export my notes?\n"))
    batch = ["--set", "embedding.batch_size=7"]  # a backend this process has not loaded yet
    assert main(["query", "-", "--collection", collection, *batch]) == 0
    out = capsys.readouterr().out
    first, second = out.split("query: ")[1:]
    model_lines = re.findall(r"^embedding model .*$", out, re.MULTILINE)
    assert model_lines[0].startswith("embedding model hashing: loaded in")
    assert model_lines[1] == "embedding model hashing: already loaded"
    assert "answer:" in first and "answer:" in second


def test_json_puts_the_error_at_the_top_and_exits_non_zero(
    collection: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # another chunking needs an index derived from the kept text, and this collection lost it
    DocumentTexts(open_collection(collection).directory).path.unlink()
    code = main(["query", QUESTION, "--collection", collection, "--json",
                 "--set", "chunking.params.size=300"])
    trace = json.loads(capsys.readouterr().out)
    assert code == 1
    assert list(trace)[:4] == ["query", "preset", "status", "error"]
    assert trace["status"] == "failed" and trace["error"].startswith("retrieve: ")
    later = [r for r in trace["records"] if r["stage"] in ("fuse", "generate")]
    assert all(r["status"] == "skipped" and r["reason"] == "retrieve failed" for r in later)
    # the message is said once: later stages do not repeat it
    assert sum("MissingDocumentTextError" in json.dumps(r) for r in trace["records"]) == 1
    assert "ingest those files again" in trace["error"]
