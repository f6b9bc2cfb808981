"""Follow-up rewriting: turn "what about Team?" into a standalone search query using the last
messages (Axiom: last 5; Vexora `QueryRewriter`: rewrite only when the query has unresolved
references, assistant turns cut to 500 chars, original kept on error or empty reply).

Offline: a pronoun / ellipsis heuristic (as Adaptive does for small models): the topic of the last
user message replaces the first pronoun, or fills the slot of "what about X?". LLM: the
condense-question prompt (LangChain CondenseQuestionChain, LlamaIndex CondensePlusContext).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.usability import record_reply
from rag.query.entities import extract_entities
from rag.settings.query import RewriteConfig
from rag.text import QUESTION_WORDS, content_words, words

_PRONOUN = re.compile(r"\b(it|its|they|them|their|this|that|these|those|the same|the above|"
                      r"the former|the latter|that one|this one)\b", re.I)
_ELLIPSIS = re.compile(r"^\s*(?:and|but|also)?\s*(?:what|how)\s+about\s+(?P<slot>.+?)\s*[?.!]*\s*$|"
                       r"^\s*and\s+(?:for\s+)?(?P<slot2>.+?)\s*[?.!]*\s*$", re.I)
_POSSESSIVE = {"its", "their"}
_FILLER = frozenset({"work", "works", "do", "does", "mean", "means", "get", "use", "happen",
                     "happens", "make", "tell", "explain", "please"})


@dataclass(frozen=True)
class Rewrite:
    original: str
    rewritten: str
    path: Literal["skipped", "offline", "llm", "fallback"]
    reason: str
    antecedent: str = ""  # the topic the offline heuristic resolved references to
    history_used: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.rewritten != self.original


def reference(query: str, history: Sequence[Message]) -> str | None:
    """Why `query` needs earlier messages to make sense, or None (then no rewrite is needed)."""
    if not any(m.role == "user" for m in history):
        return None  # Vexora skips the first user message
    if _ELLIPSIS.match(query):
        return "elliptical follow-up"
    match = _PRONOUN.search(query)
    if match:
        return f"refers back with {match.group(0)!r}"
    if len(words(query)) <= 3 and not extract_entities(query):
        return "too short to stand alone"
    return None


def topic_of(history: Sequence[Message]) -> str:
    """What the last user message was about: its first entity, else its content words."""
    for message in reversed(history):
        if message.role != "user":
            continue
        entities = extract_entities(message.content)
        if entities:
            return entities[0]
        content = [w for w in content_words(message.content)
                   if w not in QUESTION_WORDS and w not in _FILLER]
        if content:
            return " ".join(content[:4])
    return ""


def rewrite_offline(query: str, history: Sequence[Message]) -> tuple[str, str]:
    """(rewritten query, antecedent) by the pronoun / ellipsis heuristic."""
    topic = topic_of(history)
    if not topic:
        return query, ""
    ellipsis = _ELLIPSIS.match(query)
    slot = (ellipsis.group("slot") or ellipsis.group("slot2")) if ellipsis else ""
    previous = next((m.content for m in reversed(history) if m.role == "user"), "")
    if ellipsis and not _PRONOUN.fullmatch(slot):  # "what about it?" is a pronoun, below
        named = extract_entities(slot)
        slot = named[0] if len(named) == 1 else slot  # "the Free plan" -> "Free"
        if topic.lower() in previous.lower():  # same question, new subject
            return re.sub(re.escape(topic), slot, previous, count=1, flags=re.I), topic
        return f"{previous.rstrip(' ?.!')} {slot}".strip(), topic
    match = _PRONOUN.search(query)
    if match:
        filler = f"{topic}'s" if match.group(0).lower() in _POSSESSIVE else topic
        return query[: match.start()] + filler + query[match.end() :], topic
    return f"{query.rstrip(' ?.!')} {topic}".strip(), topic


REWRITE_PROMPT = """Given the conversation and a follow-up message, rewrite the follow-up as one
standalone search query that makes sense without the conversation. Keep names and numbers.
Reply with the query only.

Conversation:
{conversation}

Follow-up: {query}"""


def _conversation(history: Sequence[Message], cfg: RewriteConfig) -> str:
    lines = []
    for message in history:
        text = message.content
        if message.role == "assistant" and len(text) > cfg.max_assistant_chars:
            text = text[: cfg.max_assistant_chars] + "…"  # Vexora: topic context is enough
        lines.append(f"{message.role}: {text}")
    return "\n".join(lines)


def _clean(reply: str) -> str:
    text = reply.strip().splitlines()[0] if reply.strip() else ""
    text = re.sub(r"^(standalone |rewritten )?(search )?query\s*:\s*", "", text, flags=re.I)
    return text.strip().strip('"“”').strip()


def rewrite(query: str, history: Sequence[Message], cfg: RewriteConfig,
            chat: ChatModel | None = None) -> Rewrite:
    """A standalone query for `query` given `history` (oldest first)."""
    if not cfg.enabled:
        return Rewrite(query, query, "skipped", "rewriting disabled")
    recent = tuple(m for m in history if m.role in ("user", "assistant"))[-cfg.history_messages :]
    why = reference(query, recent)
    if why is None:
        reason = "first message: nothing to resolve" if not recent else "no reference to earlier messages"
        return Rewrite(query, query, "skipped", reason)
    if chat is None or not cfg.use_llm:
        rewritten, topic = rewrite_offline(query, recent)
        return Rewrite(query, rewritten, "offline", f"{why}; heuristic (no LLM)", topic, len(recent))
    prompt = REWRITE_PROMPT.format(conversation=_conversation(recent, cfg), query=query)
    try:
        rewritten = _clean(chat.chat([Message("user", prompt)], max_tokens=100).text)
    except LLMError as exc:
        rewritten, warning = "", f"rewrite LLM call failed ({exc.kind}): {exc}"
    else:
        warning = "rewrite LLM returned nothing usable"
    record_reply("understand.rewrite", "ok" if rewritten else "fallback", warning)
    if not rewritten:
        fallback, topic = rewrite_offline(query, recent)
        return Rewrite(query, fallback, "fallback", f"{why}; LLM failed, heuristic used", topic,
                       len(recent), (warning,))
    return Rewrite(query, rewritten, "llm", f"{why}; rewritten by the LLM", "", len(recent))
