"""The integration suite against a real local model: llama-cpp-python's OpenAI-compatible server
on SmolLM2-135M-Instruct (requirements-llm.txt), started once on a free port for the session and
stopped after it. CI installs the extra, so there the suite runs; elsewhere it is skipped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag.llm.breaker import reset_breakers
from rag.llm.local_server import LocalLLMServer, llama_cpp_available


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLLMServer]:
    if not llama_cpp_available():
        pytest.skip("llama_cpp is not importable: pip install -r requirements-llm.txt "
                    "(the README's test command installs it)")
    log = tmp_path_factory.mktemp("llm") / "server.log"
    with LocalLLMServer(log=log) as server:
        yield server


@pytest.fixture
def llm_env(local_llm: LocalLLMServer, monkeypatch: pytest.MonkeyPatch) -> LocalLLMServer:
    """OPENAI_BASE_URL points at the local server for this test; breakers start closed."""
    monkeypatch.setenv("OPENAI_BASE_URL", local_llm.base_url)
    reset_breakers()
    return local_llm
