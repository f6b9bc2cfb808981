"""Pipeline stage "verify": Adaptive's Self-RAG chunk verification (Asai et al. 2023, the ISREL
judgement "is this passage relevant to the question?"), then "filter low-quality chunks".

Offline (lexical): the share of the query's content words a chunk contains, a word counting when
the chunk has it or a word sharing its first five letters (install / installation). LLM: one
0–10 grade per chunk from the chat model; a failed call grades that chunk lexically and says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.client import make_client
from rag.llm.fence import data_rule, fence
from rag.llm.judge_check import check_judge
from rag.llm.judge_probes import RELEVANCE_PROBES
from rag.llm.structured import GRADES_0_10, choice_schema
from rag.llm.usability import record_reply
from rag.records.hits import Candidate
from rag.settings.enrich import VerifyConfig
from rag.settings.llm import LLMEndpoint
from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageResult, StageSpec
from rag.text import content_words

_STEM = 5  # letters two words must share to count as the same word


def _stem(word: str) -> str:
    return word[:_STEM]


def lexical_relevance(query: str, passage: str) -> float:
    """Share of the query's distinct content words found in the passage (0 when it has none)."""
    wanted = set(content_words(query))
    if not wanted:
        return 0.0
    have = set(content_words(passage))
    stems = {_stem(w) for w in have}
    found = sum(1 for w in wanted if w in have or (len(w) >= _STEM and _stem(w) in stems))
    return found / len(wanted)


GRADE_PROMPT = """Question: {question}

Passage:
{passage}
{rule}

Is the passage relevant to the question, with information that helps answer it? Reply with one
number from 0 (irrelevant) to 10 (answers it directly), nothing else."""


@dataclass(frozen=True)
class Verdict:
    chunk_id: str
    score: float  # 0..1
    kept: bool
    path: Literal["lexical", "llm", "fallback"]
    reason: str


@dataclass(frozen=True)
class Verification:
    verdicts: tuple[Verdict, ...]
    kept: tuple[Candidate, ...]
    method: Literal["lexical", "llm"]
    warnings: tuple[str, ...] = ()

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return self.kept


GRADE_SCHEMA = choice_schema("relevance_grade", "grade", GRADES_0_10)
_IRRELEVANT = re.compile(r"\b(?:irrelevant|not relevant|no relevance)\b", re.I)


def llm_relevance(chat: ChatModel, query: str, passage: str, max_chars: int) -> tuple[float, bool]:
    """(the chat model's 0–10 grade as 0..1, whether it was given in words instead of a number);
    raises LLMError or ValueError when unusable."""
    prompt = GRADE_PROMPT.format(question=query[:1000], passage=fence(passage[:max_chars], "passage"),
                                 rule=data_rule("passage"))
    reply = chat.chat([Message("user", prompt)], max_tokens=12, schema=GRADE_SCHEMA).text
    match = re.search(r"\d+(?:\.\d+)?", reply)
    if match is None and _IRRELEVANT.search(reply):
        return 0.0, True  # "The passage is irrelevant"
    if match is None:
        raise ValueError(f"no grade in {reply[:40]!r}")
    grade = float(match.group(0))
    if grade > 10:  # not a 0–10 grade: a year, a count, a section number
        raise ValueError(f"grade {grade:g} is outside 0-10 in {reply[:40]!r}")
    return grade / 10.0, False


def _grade(query: str, cand: Candidate, cfg: VerifyConfig, chat: ChatModel | None
           ) -> tuple[float, Literal["lexical", "llm", "fallback"], str]:
    if chat is None:
        return lexical_relevance(query, cand.chunk.text), "lexical", ""
    try:
        grade, in_words = llm_relevance(chat, query, cand.chunk.text, cfg.max_passage_chars)
    except (LLMError, ValueError) as exc:  # graded lexically instead; the trace says so
        why = f"call failed ({exc.kind})" if isinstance(exc, LLMError) else "no 0-10 grade"
        record_reply("verify.grade", "fallback", why)
        return lexical_relevance(query, cand.chunk.text), "fallback", f"LLM grade failed: {exc}"
    record_reply("verify.grade", "repaired" if in_words else "ok", "'irrelevant' read as 0")
    return grade, "llm", "graded 'irrelevant' in words: 0" if in_words else ""


def verify_chunks(query: str, candidates: Sequence[Candidate], cfg: VerifyConfig,
                  chat: ChatModel | None = None) -> Verification:
    """Grade every candidate, keep those at/above the threshold (at least `min_keep` best)."""
    graded = [(cand, *_grade(query, cand, cfg, chat)) for cand in candidates]
    best_first = sorted(range(len(graded)), key=lambda i: -graded[i][1])
    rescued = set(best_first[: cfg.min_keep])
    verdicts, kept, warnings = [], [], []
    for i, (cand, score, path, problem) in enumerate(graded):
        passed = score >= cfg.threshold
        keep = passed or i in rescued
        why = (f"relevance {score:.2f} {'≥' if passed else '<'} {cfg.threshold}"
               + ("" if passed or not keep else f"; kept: min_keep {cfg.min_keep}"))
        verdicts.append(Verdict(cand.chunk_id, score, keep, path, why))
        if problem:
            warnings.append(f"{cand.chunk_id}: {problem}")
        if keep:
            kept.append(replace(cand, stage_scores=MappingProxyType(
                {**cand.stage_scores, "self_rag": score})))
    method: Literal["lexical", "llm"] = "llm" if chat is not None else "lexical"
    return Verification(tuple(verdicts), tuple(kept), method, tuple(warnings))


def verify_chat(method: str, llm: LLMEndpoint) -> tuple[ChatModel | None, str]:
    """The grader: the LLM for "llm"/"auto" when an endpoint exists; a note when "llm" lacks one."""
    if method == "lexical":
        return None, ""
    chat, _ = make_client(llm)
    if chat is None and method == "llm":
        return None, "verify.method is 'llm' but no LLM endpoint is configured: graded lexically"
    judge = check_judge(chat, "relevance", relevance_probe, 0.5, RELEVANCE_PROBE) if chat else None
    if judge is not None and not judge.trusted:
        return None, f"{judge.describe()}: graded lexically"
    return chat, ""


RELEVANCE_PROBE = "relevance-v1"


def relevance_pair_signal(chat: ChatModel, question: str, relevant: str, irrelevant: str
                          ) -> float | None:
    """1 when the model grades the relevant passage above the irrelevant one (0.5 on a tie), 0
    below it, None when a grade was unusable; each grade is counted as a `verify.grade` reply."""
    grades = []
    for passage in (relevant, irrelevant):
        try:
            grades.append(llm_relevance(chat, question, passage, 800)[0])
        except (LLMError, ValueError) as exc:
            record_reply("verify.grade", "fallback", type(exc).__name__)
            return None
        record_reply("verify.grade", "ok")
    return 1.0 if grades[0] > grades[1] else 0.5 if grades[0] == grades[1] else 0.0


def relevance_probe(chat: ChatModel) -> Iterator[float | None]:
    """The judge check's probe for Self-RAG grades (rag.llm.judge_check)."""
    for probe in RELEVANCE_PROBES:
        yield relevance_pair_signal(chat, probe.question, probe.relevant, probe.irrelevant)


def run_verify(state: PipelineState, env: StageEnv) -> StageResult:
    cfg = env.config.context.verify
    chat, note = verify_chat(cfg.method, env.shared.llm)
    query = state.queries[0].text if state.queries else state.query
    found = verify_chunks(query, state.candidates, cfg, chat)
    dropped = len(state.candidates) - len(found.kept)
    warnings = ((note,) if note else ()) + found.warnings
    return StageResult(replace(state, candidates=found.kept), found,
                       {"candidates": len(state.candidates), "query": query},
                       "fallback" if warnings else "ok", warnings,
                       f"{dropped} of {len(state.candidates)} chunk(s) failed verification")


def _off(config: PipelineConfig) -> str | None:
    return None if config.context.verify.enabled else "context.verify.enabled is false"


STAGES.add("verify", StageSpec("verify", run_verify, Verification, _off, settings=lambda c: c.context.verify))
