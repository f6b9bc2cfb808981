"""Context compression (EchoMind): keep only the sentences that answer the question, marking
[Partial] / [Conflicting] excerpts. Offline: query-overlap sentence filtering; online: the LLM."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.fence import data_rule, fence
from rag.llm.judge_probes import RELEVANCE_PROBES
from rag.llm.usability import record_reply
from rag.outputs.context import ContextBlock, StepReport, context_step
from rag.registry import Registry
from rag.text import content_words, split_sentences

Compressor = Callable[[str, Sequence[ContextBlock], ChatModel | None], tuple[list[ContextBlock], StepReport]]
COMPRESSORS: Registry[Compressor] = Registry("context compression")

MARKERS = ("[Partial]", "[Conflicting]")
LLM_COMPRESSORS = frozenset({"llm", "llm_select"})  # the ones a judge check guards
_MARKER = re.compile(r"^\s*\[(Partial|Conflicting)\]\s*:?\s*", re.I)

COMPRESS_PROMPT = """Question: {question}

Excerpt:
{excerpt}
{rule}

Copy, verbatim, only the sentences of the excerpt that are directly needed to answer the question.
Start with "[Partial]: " if the excerpt answers only part of the question, and with
"[Conflicting]: " if it contradicts itself or common facts stated elsewhere. If nothing in the
excerpt helps, reply exactly NONE."""


@COMPRESSORS.register("none")
def no_compression(
    query: str, blocks: Sequence[ContextBlock], chat: ChatModel | None = None
) -> tuple[list[ContextBlock], StepReport]:
    return list(blocks), context_step("compress:none", len(blocks), len(blocks))


def _filter_block(query_words: set[str], block: ContextBlock) -> ContextBlock | None:
    sentences = split_sentences(block.text)
    kept = [s for s in sentences if query_words & set(content_words(s.text))]
    if not kept:
        return None
    covered = query_words & set(content_words(" ".join(s.text for s in kept)))
    partial = ("[Partial]",) if len(covered) < len(query_words) / 2 else ()
    text = " ".join(s.text for s in kept)
    return replace(block, text=text, verbatim=block.verbatim and len(kept) == len(sentences), markers=partial)


@COMPRESSORS.register("sentence_filter")
def sentence_filter(
    query: str, blocks: Sequence[ContextBlock], chat: ChatModel | None = None
) -> tuple[list[ContextBlock], StepReport]:
    """Offline: keep sentences sharing a content word with the query; [Partial] when the kept
    sentences cover under half of the query's content words. Blocks with nothing kept are dropped."""
    query_words = set(content_words(query))
    if not query_words:
        return list(blocks), context_step(
            "compress:sentence_filter",
            len(blocks),
            len(blocks),
            warnings=("query has no content words: not compressed",),
        )
    out = [b for b in (_filter_block(query_words, b) for b in blocks) if b is not None]
    if blocks and not out:  # never compress the context away entirely
        return list(blocks), context_step(
            "compress:sentence_filter",
            len(blocks),
            len(blocks),
            warnings=("no sentence shares a word with the query: kept the blocks uncompressed",),
        )
    before = sum(len(b.text) for b in blocks)
    after = sum(len(b.text) for b in out)
    detail = f"{before} → {after} characters; {len(blocks) - len(out)} block(s) dropped"
    return out, context_step("compress:sentence_filter", len(blocks), len(out), detail)


def parse_compressed(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The LLM's reply as (text, markers), or None for NONE / nothing."""
    markers: list[str] = []
    body = text.strip()
    while (match := _MARKER.match(body)) is not None:
        markers.append(f"[{match.group(1).capitalize()}]")
        body = body[match.end() :]
    body = _MARKER.sub("", body).strip()
    if not body or body.upper().rstrip(".") == "NONE":
        return None
    return body, tuple(dict.fromkeys(markers))


BlockCompressor = Callable[[str, ContextBlock, ChatModel, set[str]], tuple[ContextBlock | None, str]]


def compress_each(query: str, blocks: Sequence[ContextBlock], chat: ChatModel | None, name: str,
                  compress_block: BlockCompressor) -> tuple[list[ContextBlock], StepReport]:
    """One LLM call per block through `compress_block` (None: judged irrelevant); a failed call
    filters that block offline, no endpoint filters all, and the step's warnings say so."""
    if chat is None:
        offline, step = sentence_filter(query, blocks, None)
        return offline, replace(
            step,
            step=f"compress:{name}",
            status="fallback",
            warnings=("no LLM endpoint: used offline sentence filtering", *step.warnings),
        )
    out: list[ContextBlock] = []
    warnings: list[str] = []
    query_words = set(content_words(query))
    for block in blocks:
        try:
            compressed, warning = compress_block(query, block, chat, query_words)
        except LLMError as exc:
            record_reply("context.compress", "fallback", f"call failed ({exc.kind})")
            warnings.append(f"block {block.chunk_id}: LLM {exc.kind}, filtered offline")
            compressed, warning = offline_instead(block, query_words), ""
        if warning:
            warnings.append(f"block {block.chunk_id}: {warning}")
        if compressed is not None:
            out.append(compressed)
    if blocks and not out:  # never compress the context away entirely
        warnings.append("the LLM judged every block irrelevant (NONE): kept them uncompressed")
        out = list(blocks)
    detail = f"{len(blocks) - len(out)} block(s) judged irrelevant (NONE)"
    return out, context_step(f"compress:{name}", len(blocks), len(out), detail, tuple(warnings))


def compression_signal(compressor: Compressor, question: str, relevant: str, irrelevant: str,
                       chat: ChatModel) -> float | None:
    """How right a compressor was on two passages: half for keeping the relevant one, half for
    dropping the other; None when a reply was unusable (that block was filtered offline)."""
    blocks = [ContextBlock(text, f"probe{i}", f"probe{i}", 0, len(text), 1.0, i + 1)
              for i, text in enumerate((relevant, irrelevant))]
    kept, step = compressor(question, blocks, chat)
    if any("filtered offline" in w for w in step.warnings):
        return None
    ids = {b.chunk_id for b in kept}
    return 0.5 * ("probe0" in ids) + 0.5 * ("probe1" not in ids)


def compression_probe(compressor: Compressor) -> Callable[[ChatModel], Iterator[float | None]]:
    """The judge check's probe for an LLM compressor (rag.llm.judge_check)."""
    def probe(chat: ChatModel) -> Iterator[float | None]:
        for p in RELEVANCE_PROBES:
            yield compression_signal(compressor, p.question, p.relevant, p.irrelevant, chat)
    return probe


def offline_instead(block: ContextBlock, query_words: set[str]) -> ContextBlock | None:
    """The block filtered offline, for a reply that could not be used."""
    return _filter_block(query_words, block) if query_words else block


@COMPRESSORS.register("llm")
def llm_compression(
    query: str, blocks: Sequence[ContextBlock], chat: ChatModel | None = None
) -> tuple[list[ContextBlock], StepReport]:
    """EchoMind's compress(question, chunk): the model copies the sentences needed."""
    return compress_each(query, blocks, chat, "llm", _copy_block)


def _copy_block(query: str, block: ContextBlock, chat: ChatModel, query_words: set[str]
                ) -> tuple[ContextBlock | None, str]:
    prompt = COMPRESS_PROMPT.format(question=query, excerpt=fence(block.text, "excerpt"),
                                    rule=data_rule("excerpt"))
    return _compressed_block(block, chat.chat([Message("user", prompt)]).text, query_words)


def copied_sentences(body: str, block_text: str) -> tuple[list[str], int]:
    """(sentences of `body` that occur verbatim in `block_text`, whitespace aside; how many
    sentences `body` has). What the model wrote itself never reaches the context."""
    source = " ".join(block_text.split())
    sentences = [" ".join(s.text.split()) for s in split_sentences(body)]
    return [s for s in sentences if s and s in source], len(sentences)


def _compressed_block(block: ContextBlock, reply: str, query_words: set[str]
                      ) -> tuple[ContextBlock | None, str]:
    """The block as the LLM compressed it (None: judged irrelevant), and a warning when the
    reply had to be repaired or replaced by the offline filter."""
    parsed = parse_compressed(reply)
    if parsed is None:
        record_reply("context.compress", "ok")
        return None, ""
    body, markers = parsed
    copied, total = copied_sentences(body, block.text)
    if not copied:
        record_reply("context.compress", "fallback", "nothing copied from the excerpt")
        return offline_instead(block, query_words), (
            f"LLM reply not copied from the excerpt ({body[:60]!r}): filtered offline")
    text = " ".join(dict.fromkeys(copied))  # a small model repeats itself
    if len(copied) < total or text != " ".join(copied):
        record_reply("context.compress", "repaired", "kept only sentences copied verbatim")
        warning = (f"kept {len(dict.fromkeys(copied))} of {total} sentence(s) of the LLM reply: "
                   "the rest were not in the excerpt or repeated")
    else:
        record_reply("context.compress", "ok")
        warning = ""
    verbatim = block.verbatim and text == " ".join(block.text.split())
    return replace(block, text=text, markers=markers, verbatim=verbatim), warning
