"""Model-based support checks for the sentences the lexical score leaves ambiguous: embedding
similarity to the best context sentence (offline), and LLM verification (Axiom layer 2)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Protocol

import numpy as np

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.fence import data_rule, fence
from rag.llm.judge_probes import SUPPORT_PROBES
from rag.llm.structured import as_lines, numbered_schema
from rag.llm.usability import record_reply
from rag.outputs.context import ContextBlock
from rag.text import split_sentences


class SentenceEmbedder(Protocol):
    """The part of rag.embed's Embedder the check needs."""

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...


def default_embedder() -> SentenceEmbedder:
    """The project's default embedder (all-MiniLM-L6-v2 via rag.embed, cached on disk)."""
    from rag.embed import get_embedder
    from rag.settings.embedding import EmbeddingConfig

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

_VERDICT = re.compile(
    r"^\W*(?:claim\s*)?(\d+)\W*?[:.)\-]\W*(YES|NO|SUPPORTED|UNSUPPORTED|TRUE|FALSE)\b([^\n]*)",
    re.I | re.M)
_SCORE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
_SUPPORTED = frozenset({"YES", "SUPPORTED", "TRUE"})


def read_verdicts(reply: str, count: int) -> tuple[dict[int, float], int]:
    """(claim number (1-based) -> support score, how many confidences were outside 0–1 and
    ignored). YES without a usable confidence counts 1, NO counts 0; a repeated claim number
    keeps its first verdict."""
    found: dict[int, float] = {}
    out_of_range = 0
    for number, verdict, rest in _VERDICT.findall(as_lines(reply)):
        index = int(number)
        if not 1 <= index <= count or index in found:
            continue
        supported = verdict.upper() in _SUPPORTED
        score = _SCORE.search(rest)
        value = float(score.group(0)) if score else None
        if value is not None and value > 1:
            out_of_range += 1
            value = None
        if value is None:
            found[index] = 1.0 if supported else 0.0
        else:  # a NO with a high "confidence" means confident it is unsupported
            found[index] = value if supported else min(value, 1 - value)
    return found, out_of_range


def parse_verdicts(reply: str, count: int) -> dict[int, float]:
    """Claim number (1-based) -> support score (see read_verdicts)."""
    return read_verdicts(reply, count)[0]


SUPPORT_PROBE = "support-v1"


def support_signal(chat: ChatModel, claim: str, context: str, supported: bool) -> float | None:
    """1 when the model's verdict on the claim matches its label, 0 when not, None unparsed."""
    score = llm_scores([claim], context, chat)[0][0]
    return None if score is None else float((score >= 0.5) == supported)


def support_probe(chat: ChatModel) -> Iterator[float | None]:
    """The judge check's probe for LLM grounding (rag.llm.judge_check)."""
    for probe in SUPPORT_PROBES:
        yield support_signal(chat, probe.claim, probe.context, probe.supported)


def llm_scores(claims: Sequence[str], context_text: str, chat: ChatModel) -> tuple[list[float | None], str]:
    """One batched verification call; (score per claim or None when unparsed, warning)."""
    if not claims:
        return [], ""
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1))
    try:
        reply = chat.chat([Message("user", VERIFY_PROMPT.format(
            sources=fence(context_text, "sources"), rule=data_rule("sources"), claims=numbered))],
            schema=numbered_schema("verdicts", len(claims), ("YES", "NO"))).text
    except LLMError as exc:
        record_reply("ground.verdicts", "fallback", f"call failed ({exc.kind})")
        return [None] * len(claims), f"LLM verification failed ({exc.kind}): left ambiguous"
    parsed, out_of_range = read_verdicts(reply, len(claims))
    missing = len(claims) - len(parsed)
    notes = [f"{missing} claim(s) not parsed, left ambiguous"] if missing else []
    notes += [f"{out_of_range} confidence(s) outside 0-1 ignored (verdict used)"] if out_of_range else []
    if missing:
        record_reply("ground.verdicts", "fallback", "claims without a verdict")
    else:
        record_reply("ground.verdicts", "repaired" if out_of_range else "ok", "confidence outside 0-1")
    return [parsed.get(i) for i in range(1, len(claims) + 1)], (
        f"LLM verification: {'; '.join(notes)}" if notes else "")
