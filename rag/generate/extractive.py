"""Offline extractive answerer: the answer is the context's best-supported whole sentences, copied
from the documents with [Source N] citations. Scores follow query-biased sentence extraction
(Tombros & Sanderson 1998): query-term coverage, plus a prior for the sentence's place in its
section (its first statement leads), one for how well its section matches the question (the
embedding cosine of the section's opening, rag.generate.section_prior, when a similarity is given)
and a small one for the block's retrieval rank.

The answer reads as an answer: the answering sentence (the best-scored one) comes first, then its
support — the sentences of the same document in the document's order, then those of other
sources in citation order; no sentence repeats another; and the answer stops at a cap in
sentences and characters (generation.extractive_sentences / extractive_max_chars, set per
preset). Sentences are whole (rag.generate.whole_sentences): a sentence a chunk boundary cut is
completed from the kept document text and still cited as that chunk's block; one that cannot be
completed is left out. Inline Markdown (**bold**, `code`) is kept, for the page to render.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from rag.context.screen import passage_findings
from rag.generate.answer_fit import contents_entry, restates_question
from rag.generate.answer_rank import SENTENCE_CHARS, AnswerSimilarity, answer_scores, asked_subject
from rag.generate.answer_rank import support as semantic_support
from rag.generate.section_prior import SECTION_CHARS, SectionSimilarity
from rag.generate.whole_sentences import DocumentTexts, SplitCache, Unit, block_units
from rag.outputs.context import BuiltContext
from rag.outputs.generated import Quote
from rag.text import content_words, ends_sentence, jaccard

RANK_PRIOR = 0.1  # weight of 1/rank: breaks ties toward better-ranked chunks, never outvotes coverage
# weight of 1/(1 + the sentence's place in its section), for a sentence that shares a word with
# the question: the first statement under a heading (or a question) is the section's answer to
# it, so where a sentence stands counts as much as which words it has (Edmundson 1969: the
# location feature beside the key-word one). A sentence the context holds deep in its section
# still wins when it covers clearly more of the question (docs/answers.md: the diagnosis)
LEAD_PRIOR = 1.0
# weight of the question-section cosine (0-1): which passage answers counts as much as which
# words a sentence has; 2 rather than 1 since cosines of MiniLM vectors spread over ~0.2-0.7,
# not 0-1 (docs/answers.md, "Third pass": 1, 2 and 3 measured on the calibration split)
SECTION_PRIOR = 2.0
# the answering sentence covers at least the best coverage in the context minus this: one content
# word of a three-word question may be missing, not half of them (issue 39: a compile-option
# sentence answered a concurrency question while the answering passage was Source 1)
COVERAGE_SLACK = 0.34
# with the answer model ranking the candidates (a question asking what something is or does), the
# slack is wider: the model tells the answer from a sentence sharing more words (on the real-PDF
# development sets, 0.5 put a correct sentence first most often; 0.34 and no limit did worse)
MODEL_COVERAGE_SLACK = 0.5
MIN_RELATIVE_COVERAGE = 0.5  # a sentence sharing one stray word ("notes") with the query stays out
REDUNDANT_AT = 0.6  # a sentence this Jaccard-similar to one already picked adds nothing
DEFAULT_MAX_CHARS = 600
# with support="section", a sentence of another section is support only for a question word the
# answering section lacks, and only when it covers at least as much of the question as the
# answering sentence and at least this share of it ("capital of Germany and France": the Berlin
# sentence joins the Paris one; a sentence sharing two stray words of six does not)
OTHER_SECTION_COVERAGE = 0.5
SupportScope = Literal["section", "any"]  # where support sentences may come from
# a sentence opening like this leans on the one before it (anaphora or a discourse connective)
_DEPENDENT_OPENER = re.compile(
    r"^(?:it|its|this|these|that|those|they|their|them|then|however|but|also|so|otherwise|"
    r"instead|therefore|thus|for example|for instance|in that case|in this case)\b", re.I)


@dataclass(frozen=True)
class ScoredSentence:
    unit: Unit
    coverage: float  # share of the query's content words it contains
    score: float
    cosine: float | None = None  # the question-sentence cosine of the answer model, when read

    @property
    def text(self) -> str:
        return self.unit.text

    @property
    def n(self) -> int:
        return self.unit.n


@dataclass(frozen=True)
class ExtractiveAnswer:
    """The answer text with citations, its sentences as quotes, and a note (why it is short)."""

    text: str
    quotes: tuple[Quote, ...]
    note: str = ""
    # the answering sentence's semantic support on 0-1 (rag.generate.answer_rank.support); None
    # when no model read it
    support: float | None = None


def score_sentences(query: str, context: BuiltContext, documents: DocumentTexts | None = None,
                    similarity: SectionSimilarity | None = None) -> list[ScoredSentence]:
    """Every whole statement sentence of every block with its score, best first; a sentence two
    blocks share (a parent and its child) is scored once, for the better-ranked block. With a
    `similarity`, each sentence also gets SECTION_PRIOR times its section's match."""
    query_words = set(content_words(query))
    scored: list[ScoredSentence] = []
    seen: set[object] = set()
    cache: SplitCache = {}
    for block in sorted(context.blocks, key=lambda b: (b.rank, b.n)):
        # a hit deep in a section also offers the section's opening (its first statements)
        for unit in block_units(block, documents, cache, openings=True):
            text_key = " ".join(unit.text.lower().split())
            span_key = (unit.doc_id, unit.start, unit.end) if unit.located else text_key
            if span_key in seen or text_key in seen:
                continue  # no sentence repeats another
            seen.update((span_key, text_key))
            if contents_entry(unit.text) or restates_question(query, unit.text):
                continue  # echoes the question or lists where an answer is: never the answer
            if unit.completed and passage_findings(unit.text):
                continue  # text from outside the screened blocks is screened like a passage
            words = set(content_words(unit.text))
            coverage = len(words & query_words) / len(query_words) if query_words else 0.0
            prior = RANK_PRIOR / max(block.rank, 1) + (LEAD_PRIOR / (1 + unit.lead) if coverage else 0.0)
            scored.append(ScoredSentence(unit, coverage, coverage + prior))
    if similarity is not None and scored:
        scored = _with_section_prior(query, scored, context, documents, similarity)
    return sorted(scored, key=lambda s: (-s.score, s.unit.n, s.unit.position))


def _section_text(unit: Unit, context: BuiltContext, documents: DocumentTexts | None) -> str:
    """The opening of the sentence's section: from the document when the unit is located in it,
    else from its block's text."""
    if unit.located and documents is not None:
        source = documents.document_text(unit.doc_id) or ""
    else:
        block = context.block(unit.n)
        source = block.text if block is not None else ""
    return source[unit.section_start : unit.section_end][:SECTION_CHARS] or unit.text


def _with_section_prior(query: str, scored: list[ScoredSentence], context: BuiltContext,
                        documents: DocumentTexts | None,
                        similarity: SectionSimilarity) -> list[ScoredSentence]:
    """Each sentence's score plus SECTION_PRIOR x its section's similarity to the query (each
    section embedded once)."""
    texts = {_section_key(s.unit): _section_text(s.unit, context, documents) for s in scored}
    keys = list(texts)
    match = dict(zip(keys, similarity(query, [texts[k] for k in keys]), strict=True))
    return [replace(s, score=s.score + SECTION_PRIOR * match[_section_key(s.unit)]) for s in scored]


def _section_key(unit: Unit) -> tuple[str, int]:
    """A section is named by its document and start; unlocated (block-text) offsets by block."""
    return (unit.doc_id, unit.section_start) if unit.located else (f"[{unit.n}]", unit.section_start)


def _redundant(candidate: ScoredSentence, picked: list[ScoredSentence]) -> bool:
    words = set(content_words(candidate.text))
    return any(jaccard(words, set(content_words(p.text))) >= REDUNDANT_AT for p in picked)


def _query_words(texts: list[str], query_words: set[str]) -> set[str]:
    return {w for t in texts for w in content_words(t)} & query_words


def _continues(candidate: ScoredSentence, head: ScoredSentence) -> bool:
    """The sentence right after the answering one in its document, leaning on it ("It …",
    "This …", "However, …"): without it the answer would lose what it refers back to."""
    return (candidate.unit.located and candidate.unit.doc_id == head.unit.doc_id
            and candidate.unit.position == head.unit.position + 1
            and bool(_DEPENDENT_OPENER.match(candidate.text)))


def pick_sentences(query: str, context: BuiltContext, k: int, max_chars: int = DEFAULT_MAX_CHARS,
                   documents: DocumentTexts | None = None,
                   similarity: SectionSimilarity | None = None,
                   support: SupportScope = "section",
                   answer_model: AnswerSimilarity | None = None) -> tuple[list[ScoredSentence], str]:
    """The answering sentence (best score) and up to `k - 1` supporting ones, within `max_chars`
    (the answering sentence always stands). Support is a sentence that covers at least half as
    much of the query as the best one and a query word the answer does not cover yet (greedy
    coverage, in the spirit of maximal marginal relevance: Carbonell & Goldstein 1998), or the
    sentence right after the answering one when it refers back to it. With `support="section"`
    support comes from the answering sentence's own section (the pick is re-made within it):
    sentences of other passages mostly answer other questions and dilute the reply
    (docs/answers.md, "Third pass"); another section's sentence joins only for a question word
    the answering section lacks (OTHER_SECTION_COVERAGE). "any" takes support from the whole
    context. A note when no sentence shares a word with the query: the top block's first
    sentence stands in. For a question asking what something is or does ("What is X?", "What
    does X do?", rag.generate.answer_rank.asked_subject) the answer model and the answer-type cue
    re-rank the candidates before the pick; every other question keeps the key-word order with
    its section and lead priors: re-ranking them all moved FAQ-style answers off the section's
    first statement, which answers there (docs/answers.md, "Issue 39, third round")."""
    reranked = answer_model is not None and asked_subject(query) is not None
    ranked = _best_supported_first(_answer_ranked(query, _reading_as_sentences(
        score_sentences(query, context, documents, similarity)), answer_model if reranked else None),
        MODEL_COVERAGE_SLACK if reranked else COVERAGE_SLACK)
    query_words = set(content_words(query))
    picked = _pick(ranked, query_words, k, max_chars)
    if picked and support == "section":
        everywhere, head = ranked, picked[0]
        ranked = [s for s in ranked if _same_section(s.unit, head.unit)]
        picked = _pick(ranked, query_words, k, max_chars)
        # another source still answers a part of the question the answering section says nothing
        # about (OTHER_SECTION_COVERAGE)
        open_words = query_words - _query_words([s.text for s in ranked], query_words)
        if open_words:
            floor = max(head.coverage, OTHER_SECTION_COVERAGE)
            picked = _pick(everywhere, open_words, k, max_chars, picked, floor)
    if picked:
        ordered = in_answer_order(picked)
        follow = next((s for s in ranked if _continues(s, picked[0]) and s not in picked), None)
        if (follow is not None and len(picked) < k and not _redundant(follow, picked)
                and _length(picked) + _cost(follow) <= max_chars):
            ordered.insert(1, follow)  # right after the sentence it refers back to
        note = (f"the answering sentence alone is {_cost(picked[0])} characters, over the cap "
                f"of {max_chars}" if _cost(picked[0]) > max_chars else "")
        return ordered, note
    if not ranked:
        return [], "no whole sentence in the context" if context.blocks else ""
    first = min(ranked, key=lambda s: (_rank(context, s.n), s.unit.position))
    return [first], "no sentence shares a word with the question: quoting the best-ranked source"


def _answer_ranked(query: str, ranked: list[ScoredSentence],
                   answer_model: AnswerSimilarity | None) -> list[ScoredSentence]:
    """The candidates the answer model read, by its score (rag.generate.answer_rank), then the
    rest in key-word order; unchanged without a model."""
    if answer_model is None or not ranked:
        return ranked
    found = answer_scores(query, [s.text for s in ranked], answer_model)
    read = [replace(s, score=score, cosine=cosine)
            for s, score, cosine in zip(ranked, found.score, found.cosine, strict=True)
            if score is not None]
    return sorted(read, key=lambda s: -s.score) + ranked[len(read):]


def _best_supported_first(ranked: list[ScoredSentence],
                          slack: float = COVERAGE_SLACK) -> list[ScoredSentence]:
    """The answering sentence comes from those covering nearly as much of the question as the
    best one does (COVERAGE_SLACK): the priors (place in section, section match, rank) choose
    among near-equals, but never put a section's first sentence sharing two words of the
    question above a sentence elsewhere in the context that holds all of it."""
    best = max((s.coverage for s in ranked), default=0.0)
    head = next((s for s in ranked if s.coverage >= best - slack), None)
    if head is None or head is ranked[0]:
        return ranked
    return [head, *(s for s in ranked if s is not head)]


def _reading_as_sentences(ranked: list[ScoredSentence]) -> list[ScoredSentence]:
    """The sentences that read as sentences (Unit.reads_as_sentence), when one of them shares a
    word with the question (or none does); else all: a sentence the document starts with a
    lower-case name is quoted only when nothing that reads as a sentence answers."""
    readable = [s for s in ranked if s.unit.reads_as_sentence]
    answers = any(s.coverage for s in readable) or not any(s.coverage for s in ranked)
    return readable if readable and answers else ranked


def _pick(ranked: list[ScoredSentence], query_words: set[str], k: int, max_chars: int,
          start: list[ScoredSentence] | None = None, floor: float = 0.0) -> list[ScoredSentence]:
    """The greedy pick: the best sentence, then support (see pick_sentences); or support added to
    `start`, each covering at least `floor` of the query."""
    floor = max(floor, MIN_RELATIVE_COVERAGE * max((s.coverage for s in ranked), default=0.0))
    picked: list[ScoredSentence] = list(start or [])
    used = _length(picked)
    for candidate in ranked:
        if len(picked) == k:
            break
        if candidate in picked:
            continue
        if candidate.coverage == 0 or candidate.coverage < floor or _redundant(candidate, picked):
            continue
        if picked and not (_query_words([candidate.text], query_words)
                           - _query_words([p.text for p in picked], query_words)):
            continue  # says nothing about the question the answer has not said
        if picked and used + _cost(candidate) > max_chars:
            continue  # a shorter one further down may still fit
        picked.append(candidate)
        used += _cost(candidate)
    return picked


def _cost(sentence: ScoredSentence) -> int:
    """What the sentence adds to the answer's text: the quote, its citation and a space."""
    return len(_closed(sentence.text)) + len(f" [Source {sentence.n}]") + 1


def _length(picked: list[ScoredSentence]) -> int:
    return sum(map(_cost, picked))


def _same_section(unit: Unit, head: Unit) -> bool:
    return _section_key(unit) == _section_key(head) and unit.doc_id == head.doc_id


def in_answer_order(picked: list[ScoredSentence]) -> list[ScoredSentence]:
    """The answering sentence first; then the support from its own document in the document's
    order, then the rest grouped by source (citation order) and in document order within one."""
    if not picked:
        return []
    head, rest = picked[0], picked[1:]
    same = sorted((s for s in rest if s.unit.doc_id == head.unit.doc_id), key=lambda s: s.unit.start)
    first_n: dict[str, int] = {}
    for s in sorted(rest, key=lambda s: s.unit.n):
        first_n.setdefault(s.unit.doc_id, s.unit.n)
    others = sorted((s for s in rest if s.unit.doc_id != head.unit.doc_id),
                    key=lambda s: (first_n[s.unit.doc_id], s.unit.start))
    return [head, *same, *others]


def _rank(context: BuiltContext, n: int) -> int:
    block = context.block(n)
    return block.rank if block else 1_000_000


def extractive_answer(query: str, context: BuiltContext, k: int = 3,
                      max_chars: int = DEFAULT_MAX_CHARS,
                      documents: DocumentTexts | None = None,
                      similarity: SectionSimilarity | None = None,
                      support: SupportScope = "section",
                      answer_model: AnswerSimilarity | None = None) -> ExtractiveAnswer:
    """The answer: whole sentences with citations, in answer order, within the caps."""
    picked, note = pick_sentences(query, context, k, max_chars, documents, similarity, support,
                                  answer_model)
    text = " ".join(f"{_closed(s.text)} [Source {s.n}]" for s in picked)
    quotes = tuple(Quote(_closed(s.text), s.n, s.unit.doc_id, s.unit.start, s.unit.end,
                         s.unit.completed, s.unit.located) for s in picked)
    return ExtractiveAnswer(text, quotes, note, _support(query, picked, answer_model))


def _support(query: str, picked: list[ScoredSentence], answer_model: AnswerSimilarity | None) -> float | None:
    """The answering sentence's semantic support: its cosine from the re-ranking, or the model
    reads it alone (a question that was not re-ranked); None without a model."""
    if not picked or answer_model is None:
        return None
    cosine = picked[0].cosine
    if cosine is None:
        cosine = float(answer_model(query, [picked[0].text[:SENTENCE_CHARS]])[0])
    return semantic_support(cosine)


def _closed(sentence: str) -> str:
    """A full stop after a whole list item the document leaves open, so the answer still splits
    into the sentences it was built from."""
    return sentence if ends_sentence(sentence) else f"{sentence}."
