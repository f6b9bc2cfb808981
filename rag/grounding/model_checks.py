"""Model-based support checks for the sentences the lexical score leaves ambiguous: embedding
similarity to the best context sentence (offline), and LLM verification (Axiom layer 2)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from rag.context.base import ContextBlock
from rag.context.text import split_sentences
from rag.generate.base import ChatModel, LLMError, Message
from rag.generate.fence import data_rule, fence


class SentenceEmbedder(Protocol):
    """The part of rag.embed's Embedder the check needs."""

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...


def default_embedder() -> SentenceEmbedder:
    """The project's default embedder (all-MiniLM-L6-v2 via rag.embed, cached on disk)."""
    from rag.embed import get_embedder
    from rag.embed.settings import EmbeddingConfig

    return get_embedder(EmbeddingConfig())


def embedding_scores(
    claims: Sequence[str], blocks: Sequence[ContextBlock], embedder: SentenceEmbedder
) -> list[float]:
    """For each claim, the highest cosine with any single context sentence (Reimers & Gurevych
    2019 sentence embeddings; vectors are L2-normalized, so the dot product is the cosine)."""
    passages = [s.text for b in blocks for s in split_sentences(b.text)]
    if not claims or not passages:
        return [0.0] * len(claims)
    vectors = embedder.embed_documents([*claims, *passages])
    vectors = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    sims = vectors[: len(claims)] @ vectors[len(claims) :].T
    return [float(v) for v in sims.max(axis=1)]


VERIFY_PROMPT = """Sources:
{sources}
{rule}

For each numbered claim below, decide whether the sources support it.
Reply with exactly one line per claim, in the form `<number>: YES <score>` or `<number>: NO <score>`,
where score is your confidence from 0 to 1 that the claim is supported.

Claims:
{claims}"""

_VERDICT = re.compile(r"^\s*(\d+)\s*[:.)-]\s*(YES|NO)\b[^\d]*([01](?:\.\d+)?)?", re.I | re.M)


def parse_verdicts(reply: str, count: int) -> dict[int, float]:
    """Claim number (1-based) -> support score; YES without a score counts 1, NO counts 0."""
    found: dict[int, float] = {}
    for number, verdict, score in _VERDICT.findall(reply):
        index = int(number)
        if 1 <= index <= count:
            value = float(score) if score else (1.0 if verdict.upper() == "YES" else 0.0)
            # a NO with a high "confidence" means confident it is unsupported
            found[index] = value if verdict.upper() == "YES" or not score else min(value, 1 - value)
    return found


def llm_scores(claims: Sequence[str], context_text: str, chat: ChatModel) -> tuple[list[float | None], str]:
    """One batched verification call; (score per claim or None when unparsed, warning)."""
    if not claims:
        return [], ""
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1))
    try:
        reply = chat.chat([Message("user", VERIFY_PROMPT.format(
            sources=fence(context_text, "sources"), rule=data_rule("sources"), claims=numbered))]).text
    except LLMError as exc:
        return [None] * len(claims), f"LLM verification failed ({exc.kind}): left ambiguous"
    parsed = parse_verdicts(reply, len(claims))
    missing = len(claims) - len(parsed)
    warning = f"LLM verification: {missing} claim(s) not parsed" if missing else ""
    return [parsed.get(i) for i in range(1, len(claims) + 1)], warning
