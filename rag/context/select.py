"""LLM sentence selection: compression as a choice, not a copy. The excerpt's sentences are
numbered and the model names the ones needed, so what reaches the context is the excerpt's own
text by construction — a small model asked to copy paraphrases and invents (the `llm`
compressor then has to drop its reply), but picking numbers leaves it nothing to invent. With
structured replies the pick is constrained to the excerpt's sentence numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rag.context.compress import COMPRESSORS, compress_each, offline_instead
from rag.llm.base import ChatModel, Message
from rag.llm.fence import data_rule, fence
from rag.llm.structured import ReplySchema, json_object, object_schema
from rag.llm.usability import record_reply
from rag.outputs.context import ContextBlock, StepReport
from rag.text import split_sentences

SELECT_PROMPT = """Question: {question}

Excerpt, one numbered sentence per line:
{sentences}
{rule}

Which sentences are directly needed to answer the question? Reply with their numbers, for
example "2, 5", or NONE if nothing in the excerpt helps. Add [Partial] if the excerpt answers only
part of the question, [Conflicting] if it contradicts itself."""

COVERAGE_MARKERS = {"full": (), "partial": ("[Partial]",), "conflicting": ("[Conflicting]",)}


def selection_schema(count: int) -> ReplySchema:
    return object_schema("sentence_selection", {
        "sentences": {"type": "array", "items": {"enum": list(range(1, count + 1))}, "maxItems": count},
        "coverage": {"enum": [*COVERAGE_MARKERS, "none"]},
    })


def parse_selection(reply: str, count: int) -> tuple[list[int], tuple[str, ...]]:
    """(sentence numbers to keep, in excerpt order — empty: nothing helps; markers). Reads the
    structured reply or numbers in text; ValueError when the reply names neither."""
    data = json_object(reply)
    if data is not None and isinstance(data.get("sentences"), list):
        if data.get("coverage") == "none":
            return [], ()
        numbers = [n for n in data["sentences"] if isinstance(n, int)]
        markers = COVERAGE_MARKERS.get(str(data.get("coverage")), ())
    else:
        numbers = [int(n) for n in re.findall(r"(?<![\d.])\d{1,3}(?![\d.])", reply)]
        markers = tuple(m for m in ("[Partial]", "[Conflicting]") if m.lower() in reply.lower())
        if not numbers and not re.search(r"\bnone\b", reply, re.I):
            raise ValueError(f"no sentence number and no NONE in {reply[:60]!r}")
    return sorted({n for n in numbers if 1 <= n <= count}), markers


@COMPRESSORS.register("llm_select")
def llm_selection(
    query: str, blocks: Sequence[ContextBlock], chat: ChatModel | None = None
) -> tuple[list[ContextBlock], StepReport]:
    """One call per block: the model picks the block's needed sentences by number."""
    return compress_each(query, blocks, chat, "llm_select", _select_block)


def _select_block(query: str, block: ContextBlock, chat: ChatModel, query_words: set[str]
                  ) -> tuple[ContextBlock | None, str]:
    sentences = [s.text for s in split_sentences(block.text)]
    if len(sentences) < 2:
        return block, ""  # nothing to choose between: no call
    numbered = "\n".join(f"{i}. {' '.join(s.split())}" for i, s in enumerate(sentences, 1))
    prompt = SELECT_PROMPT.format(question=query, sentences=fence(numbered, "excerpt"),
                                  rule=data_rule("excerpt"))
    reply = chat.chat([Message("user", prompt)], max_tokens=16 + 4 * len(sentences),
                      schema=selection_schema(len(sentences))).text
    try:
        chosen, markers = parse_selection(reply, len(sentences))
    except ValueError as exc:
        record_reply("context.compress", "fallback", "no sentence numbers")
        return offline_instead(block, query_words), f"LLM selection unusable ({exc}): filtered offline"
    record_reply("context.compress", "ok")
    if not chosen:
        return None, ""
    text = " ".join(sentences[i - 1] for i in chosen)
    verbatim = block.verbatim and len(chosen) == len(sentences)
    return replace(block, text=text, markers=markers, verbatim=verbatim), ""
