"""Query classification (Adaptive `query_classifier`): SUMMARY / COMPARISON / LIST / ANALYTICAL /
FACTUAL, each with retrieval hints (top_k, MMR, chain-of-thought, prompt template).

Offline: ordered keyword patterns, first match wins, FACTUAL when none does. LLM: one short call
naming the class; a failed call falls back to the keyword classifier and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.structured import choice_schema
from rag.llm.usability import record_reply

QueryClass = Literal["SUMMARY", "COMPARISON", "LIST", "ANALYTICAL", "FACTUAL"]
CLASSES: tuple[QueryClass, ...] = ("SUMMARY", "COMPARISON", "LIST", "ANALYTICAL", "FACTUAL")


@dataclass(frozen=True)
class RetrievalHints:
    """What the class suggests downstream; the template names match generation.template."""

    top_k: int
    use_mmr: bool  # diversify across documents
    use_cot: bool  # ask the generator to reason step by step
    template: str


# Adaptive: LIST -> top_k 15 + list template; COMPARISON -> several documents + comparison template;
# SUMMARY -> broader retrieval; FACTUAL -> precise retrieval (its "simple" route uses top_k 5).
HINTS: dict[QueryClass, RetrievalHints] = {
    "SUMMARY": RetrievalHints(20, True, False, "summary"),
    "COMPARISON": RetrievalHints(12, True, True, "comparison"),
    "LIST": RetrievalHints(15, False, False, "list"),
    "ANALYTICAL": RetrievalHints(10, False, True, "analytical"),
    "FACTUAL": RetrievalHints(5, False, False, "factual"),
}

# Checked in this order: a "summary of the differences" is a SUMMARY, "list the differences" a LIST.
_PATTERNS: tuple[tuple[QueryClass, str], ...] = (
    ("SUMMARY", r"\b(summar\w*|overview|tl;?dr|gist|recap|in a nutshell|main (points|ideas)|"
                r"key (points|takeaways)|outline|brief(ly)?)\b"),
    ("COMPARISON", r"\b(compar\w*|versus|vs\.?|differen\w*|differ|better|worse|pros and cons|"
                   r"similarit\w*|contrast\w*|trade-?offs?|which (one )?(is|should))\b"),
    ("LIST", r"\b(list|enumerate|which (are|platforms|formats|plans)|what are (all )?the|"
             r"name (all|the)|all (the )?\w+s\b|types of|kinds of|examples of|steps|every)\b"),
    ("ANALYTICAL", r"\b(why|how (does|is|are)|explain|analy[sz]\w*|impact|effect|cause|reason|"
                   r"implications?|evaluate|should i|what if)\b"),
)
_COMPILED = tuple((label, re.compile(pattern, re.I)) for label, pattern in _PATTERNS)


@dataclass(frozen=True)
class QueryClassification:
    label: QueryClass
    confidence: float
    path: Literal["rules", "llm", "fallback"]
    reason: str
    hints: RetrievalHints
    warnings: tuple[str, ...] = ()


def classify_rules(query: str) -> QueryClassification:
    """The keyword classifier: the first class whose pattern matches, else FACTUAL."""
    for label, pattern in _COMPILED:
        match = pattern.search(query)
        if match:
            return QueryClassification(label, 0.8, "rules", f"keyword {match.group(0)!r}",
                                       HINTS[label])
    return QueryClassification("FACTUAL", 0.5, "rules", "no class keyword: factual by default",
                               HINTS["FACTUAL"])


CLASSIFY_PROMPT = """Classify this search question into one class:
SUMMARY (wants a summary or overview), COMPARISON (compares things), LIST (wants several items),
ANALYTICAL (asks why/how, wants reasoning), FACTUAL (asks for one fact).

Question: \"\"\"{query}\"\"\"

Reply with the class name only."""


def classify(query: str, chat: ChatModel | None = None) -> QueryClassification:
    """The LLM's class when `chat` is given and answers with one; else the keyword class."""
    offline = classify_rules(query)
    if chat is None:
        return offline
    try:
        reply = chat.chat([Message("user", CLASSIFY_PROMPT.format(query=query[:2000]))],
                          max_tokens=16, schema=choice_schema("query_class", "class", CLASSES)).text
    except LLMError as exc:
        record_reply("understand.classify", "fallback", f"call failed ({exc.kind})")
        return _fallback(offline, f"classification LLM call failed ({exc.kind}): {exc}")
    found = [c for c in CLASSES if re.search(rf"\b{c}\b", reply.upper())]
    if not found:
        record_reply("understand.classify", "fallback", "names no class")
        return _fallback(offline, f"classification LLM reply names no class: {reply[:60]!r}")
    label = found[0]
    record_reply("understand.classify", "ok")
    return QueryClassification(label, 0.7, "llm", "the LLM chose it", HINTS[label])


def _fallback(offline: QueryClassification, warning: str) -> QueryClassification:
    return QueryClassification(offline.label, offline.confidence, "fallback",
                               f"{offline.reason} (LLM failed)", offline.hints, (warning,))
