"""A local OpenAI-compatible server for the query tests: hashed bag-of-words embeddings (texts
with the same words get cosine 1.0) and scripted chat replies, plus a client for it.

Scripted behaviours answer requests in order, embeddings included: embed a text once first
(the embedder's disk cache then serves it) so that a script reaches the chat call."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from fake_openai import FakeOpenAI

from rag.embed import get_embedder
from rag.embed.embedder import TextEmbedder
from rag.llm.client import LLMClient, endpoints_from
from rag.settings.embedding import EmbeddingConfig
from rag.settings.generation import GenerationConfig


@contextmanager
def local_server(model: str) -> Iterator[tuple[FakeOpenAI, TextEmbedder]]:
    """The server, and an embedder that uses it. `model` must be unique per test module: loaded
    embedding backends are shared process-wide by model name."""
    with FakeOpenAI() as server:
        saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.base_url, "sk-test"
        try:
            yield server, get_embedder(EmbeddingConfig(backend="openai", model=model))
        finally:
            for key, value in saved.items():
                os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def chat_client(server: FakeOpenAI, timeout_s: float = 5.0) -> LLMClient:
    """An LLM client for the server: no retries, so one scripted failure is one failed call."""
    settings = GenerationConfig(timeout_s=timeout_s, retries=0, breaker_failures=1000)
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"}
    return LLMClient(settings, endpoints_from(settings, env))
