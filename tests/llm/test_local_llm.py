"""`python -m rag llm serve` and the streaming answer from the real local model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from rag.config import load_preset, with_overrides
from rag.generate.stage import GenerateOutput
from rag.llm.local_server import LocalLLMServer, connected_llm, free_port, served_models
from rag.pipeline import run_query
from rag.streaming import StreamingRun

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_serve_prints_the_base_url_and_stops_its_server(local_llm: LocalLLMServer, stop: int) -> None:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "rag", "llm", "serve", "--port", str(port)],
                               cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(3)]
        assert lines[1].strip() == f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1"
        assert served_models(f"http://127.0.0.1:{port}/v1") == ("smollm2-135m-instruct",)
        process.send_signal(stop)
        assert process.wait(timeout=30) == 0
        with pytest.raises(httpx2.HTTPError):  # the server went with it
            served_models(f"http://127.0.0.1:{port}/v1", timeout_s=2)
    finally:
        process.kill()


def test_status_names_the_served_model(llm_env: LocalLLMServer) -> None:
    found = connected_llm(timeout_s=30)  # the server answers one request at a time
    assert found.model == "smollm2-135m-instruct" and found.base_url == llm_env.base_url
    shown = subprocess.run([sys.executable, "-m", "rag", "llm", "status"], cwd=ROOT, text=True,
                           capture_output=True, env={**os.environ}, timeout=60)
    assert shown.returncode == 0 and "smollm2-135m-instruct" in shown.stdout


def test_answers_stream_token_by_token_from_the_local_model(
    llm_env: LocalLLMServer, hashing_presets: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.documents import ingest_paths
    from rag.index import open_collection

    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    config = with_overrides(load_preset("hybrid"), {
        "index.collection": "llm_stream", "generation.enabled": True, "context.enabled": True,
        "generation.max_tokens": 64, "generation.retries": 0, "abstain.enabled": False,
        # the deadline now holds while llama.cpp only pings: on a loaded machine the first
        # token can take longer than the default 30 s, and this test is about streaming
        "generation.deadline_s": 300})
    collection = open_collection("llm_stream", create=True)
    collection.add_documents(ingest_paths([ROOT / "datasets" / "samples" / "lumen-notes-faq.txt"]).documents,
                             config, progress=False)
    run = StreamingRun(lambda: run_query("How long do deleted notes stay in the Trash?", config,
                                         collection))
    assert run.sources() is not None  # sources first, then the tokens
    tokens = list(run.tokens())
    answer = run.trace().output(GenerateOutput)
    assert answer is not None and answer.answer.mode == "llm", answer.answer.attempts
    assert len(tokens) > 3  # streamed piece by piece, not in one block
    assert "".join(tokens).strip()


def test_bench_llm_speed_times_prompt_reading_and_generation(tmp_path: Path) -> None:
    import json

    from benchmarks.cli import main as bench_main

    out = tmp_path / "speed.json"
    assert bench_main(["llm-speed", "--llm-rounds", "1", "--out", str(out)]) == 0
    (model,) = json.loads(out.read_text(encoding="utf-8"))["models"]
    assert model["model"] == "smollm2-135m-instruct" and model["gguf_mb"] > 50
    assert model["median_prompt_tokens_per_s"] > 0 and model["median_generated_tokens_per_s"] > 0
