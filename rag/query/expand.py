"""Query expansion: extra search queries that retrieval runs and fusion merges.

- multi_query: EchoMind `generate_queries` — classify the intent (factual / procedural /
  exploratory / temporal), ask for 2 alternatives with an intent prompt; original + variants ≤ 4.
  Offline: one keyword-only variant (stopwords dropped), which helps BM25 on wordy questions.
- hyde: Gao et al. 2022 (HyDE) — a hypothetical answer passage searched by the dense retriever
  only; 002 uses it for short abstract queries (< 5 words).
- step_back: Zheng et al. 2023 — a more general question retrieved alongside the original.
- rag_fusion: Raudaschl 2023 — several generated queries, fused with RRF by the retrieval stage.
HyDE, step-back and RAG-Fusion need a generator: offline they are skipped with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rag.generate.base import ChatModel, LLMError, Message
from rag.generate.cleanup import without_repeats
from rag.generate.structured import ReplySchema, json_object, object_schema
from rag.generate.usability import record_reply
from rag.query.settings import ExpandConfig
from rag.query.text import content_words, words
from rag.registry import Registry
from rag.retrieve.base import SearchQuery

EchoIntent = Literal["factual", "procedural", "exploratory", "temporal"]
NO_LLM = "needs an LLM to write text (set OPENAI_BASE_URL)"


@dataclass(frozen=True)
class Expansion:
    """The extra queries one method produced (never the original), and how."""

    method: str
    queries: tuple[SearchQuery, ...]
    path: Literal["offline", "llm", "skipped", "fallback"]
    reason: str
    warnings: tuple[str, ...] = ()


Expander = Callable[[str, ExpandConfig, ChatModel | None], Expansion]
EXPANDERS: Registry[Expander] = Registry("query expansion")

_ECHO_INTENTS: tuple[tuple[EchoIntent, str], ...] = (
    ("procedural", r"\b(how (do|can|to|should)|steps?|install|set ?up|configure|enable|create)\b"),
    ("temporal", r"\b(when|before|after|since|latest|recent|how long|date|history)\b"),
    ("exploratory", r"\b(why|explain|overview|what are the (ways|options)|ideas|explore)\b"),
)
_INTENT_PROMPTS: dict[EchoIntent, str] = {
    "factual": "Keep the same fact in focus; vary the wording and use likely synonyms.",
    "procedural": "Phrase them as how-to / step-by-step searches for the same task.",
    "exploratory": "Cover different angles of the topic a good answer should touch.",
    "temporal": "Keep the time constraint explicit (dates, before/after, recency).",
}


def echo_intent(query: str) -> EchoIntent:
    """EchoMind's four query intents, by keyword (its LLM call, made deterministic)."""
    for intent, pattern in _ECHO_INTENTS:
        if re.search(pattern, query, re.I):
            return intent
    return "factual"


def query_list_schema(limit: int) -> ReplySchema:
    return object_schema("search_queries", {"queries": {
        "type": "array", "items": {"type": "string", "maxLength": 200}, "minItems": 1, "maxItems": limit}})


def _lines(reply: str, original: str, limit: int) -> list[str]:
    """Distinct, non-empty queries of an LLM list reply (a structured one's "queries", else its
    lines), numbering and quotes stripped."""
    seen = {" ".join(words(original))}
    out: list[str] = []
    data = json_object(reply)
    listed = data.get("queries") if data is not None else None
    lines = [str(q) for q in listed] if isinstance(listed, list) else reply.splitlines()
    for line in lines:
        text = re.sub(r"^\s*(?:[-*•]|\d+[.)]|q\d+:)\s*", "", line).strip().strip('"“”').strip()
        key = " ".join(words(text))
        if text and key and key not in seen:
            seen.add(key)
            out.append(text)
    return out[:limit]


def _ask(chat: ChatModel, prompt: str, max_tokens: int, schema: ReplySchema | None = None) -> str:
    return chat.chat([Message("user", prompt)], max_tokens=max_tokens, schema=schema).text


def _llm_list(method: str, label: str, query: str, chat: ChatModel, prompt: str, limit: int,
              retrievers: tuple[str, ...] | None = None) -> Expansion:
    try:
        texts = _lines(_ask(chat, prompt, 300, query_list_schema(limit)), query, limit)
    except LLMError as exc:
        record_reply(f"expand.{method}", "fallback", f"call failed ({exc.kind})")
        return Expansion(method, (), "fallback", "LLM call failed: no extra queries",
                         (f"{method} LLM call failed ({exc.kind}): {exc}",))
    if not texts:
        record_reply(f"expand.{method}", "fallback", "no usable query")
        return Expansion(method, (), "fallback", "LLM reply held no usable query",
                         (f"{method}: empty or duplicate reply",))
    record_reply(f"expand.{method}", "ok")
    queries = tuple(SearchQuery(t, f"{label}{i + 1}" if limit > 1 else label, retrievers)
                    for i, t in enumerate(texts))
    return Expansion(method, queries, "llm", f"{len(queries)} generated by the LLM")


@EXPANDERS.register("multi_query")
def multi_query(query: str, cfg: ExpandConfig, chat: ChatModel | None) -> Expansion:
    intent = echo_intent(query) if cfg.intent_aware else "factual"
    limit = min(3, cfg.max_queries - 1)  # EchoMind: the original + up to 3 variants
    if limit < 1:
        return Expansion("multi_query", (), "skipped", "max_queries is 1: no room for variants")
    if chat is None:
        keywords = " ".join(content_words(query))
        if not keywords or keywords == " ".join(words(query)):
            return Expansion("multi_query", (), "skipped",
                             f"offline keyword variant equals the query; LLM variants {NO_LLM}")
        return Expansion("multi_query", (SearchQuery(keywords, "mq1"),), "offline",
                         f"offline keyword variant (intent {intent}); LLM variants {NO_LLM}")
    prompt = (f"Write {limit} alternative search queries for the question below, one per line, "
              f"nothing else. {_INTENT_PROMPTS[intent]}\n\nQuestion: {query}")
    result = _llm_list("multi_query", "mq", query, chat, prompt, limit)
    return Expansion(result.method, result.queries, result.path,
                     f"intent {intent}: {result.reason}", result.warnings)


@EXPANDERS.register("hyde")
def hyde(query: str, cfg: ExpandConfig, chat: ChatModel | None) -> Expansion:
    n_words = len(words(query))
    if n_words >= cfg.hyde_max_words:
        return Expansion("hyde", (), "skipped",
                         f"{n_words} words: 002 uses HyDE only under {cfg.hyde_max_words}")
    if chat is None:
        return Expansion("hyde", (), "skipped", f"HyDE {NO_LLM}")
    prompt = ("Write one short paragraph (3 sentences) that would answer this question in a "
              f"product handbook. Plain text only.\n\nQuestion: {query}")
    try:
        reply = " ".join(_ask(chat, prompt, 200).split())
    except LLMError as exc:
        record_reply("expand.hyde", "fallback", f"call failed ({exc.kind})")
        return Expansion("hyde", (), "fallback", "LLM call failed: no hypothetical document",
                         (f"hyde LLM call failed ({exc.kind}): {exc}",))
    passage, repeats = without_repeats(reply)
    if not passage:
        record_reply("expand.hyde", "fallback", "empty reply")
        return Expansion("hyde", (), "fallback", "empty hypothetical document", ("hyde: empty reply",))
    record_reply("expand.hyde", "repaired" if repeats else "ok", "repeated sentences removed")
    repaired = f" ({repeats} repetition(s) removed)" if repeats else ""  # a repair, not a fallback
    return Expansion("hyde", (SearchQuery(passage, "hyde", ("dense",)),), "llm",
                     f"hypothetical answer{repaired}, searched by the dense retriever only")


@EXPANDERS.register("step_back")
def step_back(query: str, cfg: ExpandConfig, chat: ChatModel | None) -> Expansion:
    if chat is None:
        return Expansion("step_back", (), "skipped", f"step-back {NO_LLM}")
    prompt = ("Rewrite the question as a more general step-back question about the underlying "
              f"concept or policy. Reply with the question only.\n\nQuestion: {query}")
    return _llm_list("step_back", "stepback", query, chat, prompt, 1)


@EXPANDERS.register("rag_fusion")
def rag_fusion(query: str, cfg: ExpandConfig, chat: ChatModel | None) -> Expansion:
    if chat is None:
        return Expansion("rag_fusion", (), "skipped", f"RAG-Fusion {NO_LLM}")
    n = cfg.max_queries
    prompt = (f"Generate {n} different search queries related to the question, one per line, "
              f"nothing else.\n\nQuestion: {query}")
    return _llm_list("rag_fusion", "fusion", query, chat, prompt, n)


def expand(query: str, cfg: ExpandConfig, chat: ChatModel | None = None) -> tuple[Expansion, ...]:
    """Every configured method's expansion, in the configured order."""
    return tuple(EXPANDERS.get(method)(query, cfg, chat) for method in cfg.methods)
