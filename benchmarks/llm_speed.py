"""Tokens per second of local GGUF models on this machine: each model served in turn by
llama-cpp-python's server, the same prompt and reply length, rounds alternating between the
models so that load from other jobs falls on all of them alike. Prompt reading and generation
are timed apart."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median

from rag.llm.local_server import LocalLLMServer

PROMPT = ("Here is a passage from a product handbook. " * 20
          + "\n\nWrite a long, detailed explanation of what a handbook is for.")


@dataclass
class ModelSpeed:
    model: str
    gguf_mb: float
    prompt_tokens_per_s: list[float] = field(default_factory=list)
    generated_tokens_per_s: list[float] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "median_prompt_tokens_per_s": round(median(self.prompt_tokens_per_s), 1),
                "median_generated_tokens_per_s": round(median(self.generated_tokens_per_s), 1)}


def one_round(base_url: str, alias: str, max_tokens: int) -> tuple[float, float]:
    """(prompt tokens/s, generated tokens/s): a one-token reply times the prompt reading (its
    usage counts the prompt); then a streamed reply of the same prompt, which the server has
    cached, times generation — one streamed chunk per token, as llama.cpp sends them (its
    streams carry no usage)."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=600)
    messages: list[openai.types.chat.ChatCompletionMessageParam] = [{"role": "user", "content": PROMPT}]
    started = time.perf_counter()
    probe = client.chat.completions.create(model=alias, messages=messages, max_tokens=1, temperature=0.0)
    prompt_s = time.perf_counter() - started
    if probe.usage is None:
        raise RuntimeError(f"{alias}: the server reported no usage")
    first: float | None = None
    tokens = 0
    for chunk in client.chat.completions.create(model=alias, messages=messages, max_tokens=max_tokens,
                                                temperature=0.0, stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            first = first or time.perf_counter()
            tokens += 1
    if first is None or tokens < 2:
        raise RuntimeError(f"{alias}: the server streamed {tokens} token(s)")
    return probe.usage.prompt_tokens / prompt_s, (tokens - 1) / (time.perf_counter() - first)


def measure(models: Sequence[Path | None], rounds: int, max_tokens: int) -> Iterator[ModelSpeed]:
    """One ModelSpeed per model (None: the bundled SmolLM2), `rounds` replies each."""
    speeds = [ModelSpeed(_alias(m), round((m or _bundled()).stat().st_size / 1e6, 1)) for m in models]
    for _ in range(rounds):
        for model, speed in zip(models, speeds, strict=True):
            with LocalLLMServer(model=model, alias=speed.model) as server:
                prompt_rate, generated_rate = one_round(server.base_url, speed.model, max_tokens)
            speed.prompt_tokens_per_s.append(round(prompt_rate, 1))
            speed.generated_tokens_per_s.append(round(generated_rate, 1))
    yield from speeds


def _alias(model: Path | None) -> str:
    return model.stem if model else "smollm2-135m-instruct"


def _bundled() -> Path:
    from rag.llm.local_server import bundled_model

    return bundled_model()
