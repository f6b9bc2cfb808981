"""Check an answer against its context, sentence by sentence (Axiom's two layers): the lexical
score decides the clear cases (>= 0.8 supported, < 0.3 unsupported); the band in between goes to
an embedding check offline or LLM verification when an endpoint exists. Then citations (Vexora's
output guardrail) and confidence = relevance × grounding with a sufficiency check (Adaptive)."""

from __future__ import annotations

import re
from dataclasses import replace

from rag.context.prompts import INSUFFICIENT
from rag.generate.answer_fit import AnswerFit, answer_fit
from rag.generate.cleanup import cited_numbers
from rag.grounding.lexical import best_span, overlap
from rag.grounding.model_checks import (
    SUPPORT_PROBE,
    SentenceEmbedder,
    embedding_scores,
    llm_scores,
    support_probe,
)
from rag.llm.base import ChatModel
from rag.llm.judge_check import check_judge
from rag.outputs.context import BuiltContext
from rag.outputs.grounding import ConfidenceLevel, GroundingReport, SentenceCheck, Sufficiency, Verdict
from rag.settings.grounding import GroundingConfig
from rag.text import Sentence, content_words, numbers, split_sentences

_LEADING_CITATIONS = re.compile(r"^(?:\[Source \d+\]\s*)+\.?\s*")


def answer_sentences(text: str) -> list[Sentence]:
    """Answer sentences; citations placed after the full stop ("… France. [Source 1]") belong
    to the sentence before them."""
    merged: list[Sentence] = []
    for sentence in split_sentences(text):
        lead = _LEADING_CITATIONS.match(sentence.text)
        if merged and lead:
            last = merged[-1]
            cut = sentence.start + len(lead.group(0).rstrip())
            merged[-1] = Sentence(text[last.start : cut], last.start, cut)
            rest = sentence.text[lead.end() :]
            if rest:
                start = sentence.start + lead.end()
                merged.append(Sentence(rest, start, start + len(rest)))
        else:
            merged.append(sentence)
    return merged


def _needs_check(text: str) -> bool:
    return bool(content_words(text)) and INSUFFICIENT.rstrip(".") not in text


def _first_pass(
    index: int, sentence: Sentence, context: BuiltContext, settings: GroundingConfig, context_text: str
) -> SentenceCheck:
    cited = cited_numbers(sentence.text)
    if not _needs_check(sentence.text):
        return SentenceCheck(
            index, sentence.text, sentence.start, sentence.end, cited, 1.0, 1.0, "not_checked", "none"
        )
    w, t = settings.word_weight, settings.trigram_weight
    lexical = overlap(sentence.text, context_text).score(w, t)
    span = best_span(sentence.text, context.blocks, w, t)
    # numbers must appear in the block that supports the sentence best, not just anywhere
    block = context.block(span.n) if span is not None else None
    evidence = block.text if block is not None else context_text
    novel = sorted(numbers(sentence.text) - numbers(evidence)) if settings.check_numbers else []
    if novel:
        where = f"[Source {span.n}]" if block is not None and span is not None else "the context"
        note = f"states {', '.join(novel)}, which {where} does not mention"
        return SentenceCheck(
            index,
            sentence.text,
            sentence.start,
            sentence.end,
            cited,
            lexical,
            0.0,
            "unsupported",
            "lexical",
            span,
            note=note,
        )
    verdict: Verdict
    if lexical >= settings.grounded_at:
        verdict = "supported"
    elif lexical < settings.ungrounded_below:
        verdict = "unsupported"
    else:
        verdict = "ambiguous"
    return SentenceCheck(
        index, sentence.text, sentence.start, sentence.end, cited, lexical, lexical, verdict, "lexical", span
    )


def _citation(check: SentenceCheck, context: BuiltContext, settings: GroundingConfig) -> SentenceCheck:
    """Every [Source N] must exist, and a cited block must support the sentence lexically."""
    if check.verdict == "not_checked":
        return check
    if not check.cited:
        problem = "no [Source N] citation" if settings.require_citations else ""
        return replace(check, citation_ok=None, citation_problem=problem)
    missing = [n for n in check.cited if context.block(n) is None]
    if missing:
        listed = ", ".join(f"[Source {n}]" for n in missing)
        return replace(check, citation_ok=False, citation_problem=f"cites {listed}, which does not exist")
    w, t = settings.word_weight, settings.trigram_weight
    cited_blocks = [b for n in check.cited if (b := context.block(n)) is not None]  # all exist: see above
    best_cited = best_span(check.text, cited_blocks, w, t)
    if best_cited is not None and best_cited.lexical >= settings.ungrounded_below:
        return replace(check, citation_ok=True)
    support = check.support
    better = ""
    if support is not None and support.n not in check.cited:
        better = f" (best support: [Source {support.n}])"
    cited = "".join(f"[Source {n}]" for n in check.cited)
    return replace(check, citation_ok=False, citation_problem=f"{cited} does not support it{better}")


def sufficiency(query: str, context: BuiltContext) -> Sufficiency:
    """Adaptive coverage score: share of the query's content words found anywhere in the context."""
    query_words = list(dict.fromkeys(content_words(query)))
    found = set(content_words(" ".join(b.text for b in context.blocks)))
    missing = tuple(w for w in query_words if w not in found)
    coverage = 1 - len(missing) / len(query_words) if query_words else 0.0
    conflicts = any("[Conflicting]" in b.markers for b in context.blocks)
    return Sufficiency(coverage, coverage >= 0.5 and not conflicts, conflicts, missing)


def relevance(query: str, context: BuiltContext) -> float:
    """Query coverage of the best single block: scale-free, unlike raw retrieval scores."""
    query_words = set(content_words(query))
    if not query_words or not context.blocks:
        return 0.0
    return max(len(query_words & set(content_words(b.text))) / len(query_words) for b in context.blocks)


def check_answer(
    query: str,
    answer: str,
    context: BuiltContext,
    settings: GroundingConfig,
    *,
    embedder: SentenceEmbedder | None = None,
    chat: ChatModel | None = None,
    support: float | None = None,
) -> GroundingReport:
    """The grounding report for `answer`; `support` (an extractive answer's semantic support,
    rag.generate.answer_rank) caps its confidence. Ambiguous sentences go to the LLM when `chat` is given
    (model_check auto/llm), else to the embedding check (auto/embedding) when `embedder` is given."""
    context_text = "\n".join(b.text for b in context.blocks)
    checks = [
        _first_pass(i, s, context, settings, context_text) for i, s in enumerate(answer_sentences(answer))
    ]
    ran = ["lexical"]
    warnings: list[str] = []
    ambiguous = [c for c in checks if c.verdict == "ambiguous"]
    use_llm = chat is not None and settings.model_check in ("auto", "llm")
    judge = (check_judge(chat, "support", support_probe, 0.5, SUPPORT_PROBE)
             if use_llm and ambiguous and chat is not None else None)
    if judge is not None and not judge.trusted:  # the embedding check instead, where there is one
        use_llm = False
        warnings.append(f"{judge.describe()}: LLM verification not used")
    use_embedding = embedder is not None and not use_llm and (
        settings.model_check in ("auto", "embedding") or judge is not None)
    if ambiguous and use_llm and chat is not None:
        scores, warning = llm_scores([c.text for c in ambiguous], context.render(), chat)
        warnings += [warning] if warning else []
        ran.append("llm")
        decided = {
            c.index: replace(
                c, llm=s, score=s, method="llm", verdict="supported" if s >= 0.5 else "unsupported"
            )
            for c, s in zip(ambiguous, scores, strict=True)
            if s is not None
        }
        checks = [decided.get(c.index, c) for c in checks]
    elif ambiguous and use_embedding and embedder is not None:
        scores_e = embedding_scores([c.text for c in ambiguous], context.blocks, embedder)
        ran.append("embedding")
        decided = {
            c.index: replace(
                c,
                embedding=s,
                score=s,
                method="embedding",
                verdict="supported" if s >= settings.embedding_threshold else "unsupported",
            )
            for c, s in zip(ambiguous, scores_e, strict=True)
        }
        checks = [decided.get(c.index, c) for c in checks]
    elif ambiguous and settings.model_check != "none":
        warnings.append(f"{len(ambiguous)} sentence(s) left ambiguous: no model check available")
    checks = [_citation(c, context, settings) for c in checks]
    return _report(query, context, settings, checks, ran, warnings, answer_fit(query, answer),
                   support)


def _report(
    query: str,
    context: BuiltContext,
    settings: GroundingConfig,
    checks: list[SentenceCheck],
    ran: list[str],
    warnings: list[str],
    fit: AnswerFit | None = None,
    support: float | None = None,
) -> GroundingReport:
    judged = [c for c in checks if c.verdict != "not_checked"]
    supported = sum(c.verdict == "supported" for c in judged)
    share = supported / len(judged) if judged else 1.0
    rel = relevance(query, context)
    # the context may cover the question while the answer quotes the wrong line of it: the
    # answer's own fit caps the relevance confidence is built on
    # answer's own fit caps the relevance confidence is built on, and so does the answer model's
    # reading of the answering sentence: a sentence about something else shares words, not meaning
    confidence = min(rel, fit.score if fit is not None else 1.0,
                     support if support is not None else 1.0) * share
    level: ConfidenceLevel = "high" if confidence >= 0.7 else "medium" if confidence >= 0.4 else "low"
    problems = tuple(f"sentence {c.index + 1}: {c.citation_problem}" for c in checks if c.citation_problem)
    return GroundingReport(
        sentences=tuple(checks),
        grounded_share=share,
        is_grounded=share >= settings.answer_grounded_at,
        relevance=rel,
        sufficiency=sufficiency(query, context),
        confidence=confidence,
        confidence_level=level,
        citation_problems=problems,
        checks=tuple(ran),
        warnings=tuple(warnings),
        answer_fit=fit.score if fit is not None else 1.0,
        answer_fit_reason=fit.reason if fit is not None else "",
        answer_support=support,
    )
