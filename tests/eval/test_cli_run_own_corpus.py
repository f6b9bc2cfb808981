"""`python -m eval run` on a user's own documents: a folder of files with a QA file whose spans
are the labels, and an existing collection built with `rag ingest` — retrieval metrics and
answer metrics for both (hashing embedder: what is tested is the wiring, not the quality)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from eval.cli import main as eval_main
from rag.cli import main as rag_main
from rag.paths import PROJECT_ROOT, SAMPLES_DIR

FILES = ("lumen-notes-faq.txt", "lumen-notes-handbook.md")


@pytest.fixture
def own(tmp_path: Path, hashing_presets: None) -> tuple[Path, Path]:
    """A folder with two of the samples and the bundled QA rows that only name those two."""
    docs = tmp_path / "my-docs"
    docs.mkdir()
    for name in FILES:
        shutil.copy(SAMPLES_DIR / name, docs / name)
    rows = [json.loads(line) for line in
            (PROJECT_ROOT / "datasets" / "qa_samples.jsonl").read_text().splitlines()]
    mine = [r for r in rows if {s["doc"] for s in r.get("spans", [])} <= set(FILES)][:4]
    assert len(mine) == 4
    qa = tmp_path / "my-qa.jsonl"
    qa.write_text("".join(json.dumps(r) + "\n" for r in mine))
    return docs, qa


def _report(out: Path) -> dict:
    return json.loads(out.read_text())


def test_a_folder_of_documents_with_a_qa_file_is_scored_and_answered(
    own: tuple[Path, Path], tmp_path: Path
) -> None:
    docs, qa = own
    out = tmp_path / "r.json"
    code = eval_main(["run", "--dataset", str(docs), "--preset", "hybrid", "--mode", "full",
                      "--answers", str(qa), "--out", str(out), "--resamples", "50", "--no-store"])
    assert code == 0
    report = _report(out)
    (run,) = report["runs"]
    assert run["n_queries"] == 4 and run["failed"] == 0 and run["metrics"]["recall@10"] > 0
    rouge = report["answer_metrics"]["hybrid"]["rouge_l"]
    declined = report["abstention"]["hybrid"]["counts"].get("declined_answerable", 0)
    assert rouge["n"] + rouge["failed"] == 4 - declined
    # offline, every answer (given or withheld) was written by the extractive answerer
    sources = report["answer_sources"]["hybrid"]
    assert sources["answered"] == ({"extractive": 4 - declined} if declined < 4 else {})
    assert set(sources["by_question"].values()) == {"extractive"}


def test_an_existing_collection_is_scored_with_the_presets_own_settings(
    own: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, qa = own
    name = f"own-{uuid.uuid4().hex[:8]}"
    assert rag_main(["ingest", str(docs), "--collection", name, "--preset", "hybrid"]) == 0
    capsys.readouterr()
    out = tmp_path / "c.json"
    # chunks of another size than the collection's first ingest: that index is derived, once
    code = eval_main(["run", "--collection", name, "--preset", "bm25", "--mode", "full",
                      "--set", "chunking.params.size=300",
                      "--set", "abstain.enabled=false",  # its bar is calibrated for MiniLM
                      "--answers", str(qa), "--out", str(out), "--resamples", "50", "--no-store"])
    said = capsys.readouterr()
    assert code == 0, said.err
    assert said.out.count(f"index {name}.ix-") == 1 and "2 documents indexed" in said.out
    report = _report(out)
    (run,) = report["runs"]
    assert run["failed"] == 0 and run["metrics"]["recall@10"] > 0  # file names matched the labels
    figures = report["answer_metrics"]["bm25"]
    assert figures["grounded_share"]["n"] == 4
    # reference passages come from the documents' kept text: context recall can be computed
    assert figures["context_recall"]["failed"] == 0


def test_own_documents_without_labels_or_with_unknown_documents_say_what_to_do(
    own: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, qa = own
    out = tmp_path / "x.json"
    assert eval_main(["run", "--dataset", str(docs), "--preset", "bm25", "--out", str(out)]) == 2
    assert "add --answers QA_FILE" in capsys.readouterr().err
    (docs / FILES[1]).unlink()
    assert eval_main(["run", "--dataset", str(docs), "--preset", "bm25", "--answers", str(qa),
                      "--out", str(out)]) == 2
    assert "names documents not in" in capsys.readouterr().err
