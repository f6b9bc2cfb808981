"""Abstain section: when the pipeline declines to answer, and the wording it declines with.

Each rule is one reason a RAG answer should not be given; a rule whose bar is None is off. The
seeds' own mechanisms map onto the rules (see the presets' comments): EchoMind's no-RAG fallback
is `on_no_context`, Axiom's off-topic intent is `on_out_of_scope` and its relevance threshold
`min_evidence`, Axiom's hallucination retry ending ungrounded is `on_ungrounded`, Adaptive's
confidence (relevance × grounding) is `min_confidence`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RelevanceMethod = Literal["auto", "offline", "llm"]

DEFAULT_MESSAGE = "I can't find this in the indexed documents."


class AbstainConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    message: str = Field(DEFAULT_MESSAGE, min_length=1)  # what the user sees instead of an answer
    # Weak retrieval evidence: the best cosine between the question and a passage the answer is
    # written from (the preset's embedder) below this bar. Calibrate it: python -m eval
    # calibrate-abstention (the scale is the embedder's: MiniLM cosines differ from bge's).
    min_evidence: float | None = Field(None, ge=-1, le=1)
    # ... except for an extractive answer whose answering sentence the answer model reads as an
    # answer at least this well (its support, rag.generate.answer_rank): a short question scores
    # low against a whole passage even when one of its sentences answers it (issue 39). 0.8: on the
    # Debian calibration split (the split min_evidence is fitted on, with unanswerable questions)
    # 0.7 let 4 of 154 weak-evidence unanswerable questions through for 3 of 8 answerable ones,
    # 0.8 none for 2 (docs/answers.md); the real-PDF development sets, without unanswerable
    # questions, had suggested 0.7
    evidence_support: float | None = Field(0.8, ge=0, le=1)
    # The answer does not answer the question: answer relevance (see rag.abstain.relevance)
    # below this bar, or, for the extractive answerer, no picked sentence shares a word with it.
    min_answer_relevance: float | None = Field(None, ge=0, le=1)
    on_no_relevant_sentence: bool = True
    min_confidence: float | None = Field(None, ge=0, le=1)  # Adaptive: relevance × grounded share
    on_ungrounded: bool = True  # the grounding check still fails after its retries
    on_no_context: bool = True  # the context stage found nothing relevant (no-RAG fallback)
    on_out_of_scope: bool = True  # the intent router called the question off-topic
    on_llm_declined: bool = True  # the LLM said the sources do not answer the question
    # Answer relevance: offline = embedding cosine of question and answer mixed with term overlap;
    # llm = ragas answer relevancy (questions the answer would answer, Es et al. 2023); auto = llm
    # when an endpoint is configured.
    relevance_method: RelevanceMethod = "auto"
    embedding_weight: float = Field(0.5, ge=0, le=1)  # offline: weight of the cosine vs overlap
    llm_questions: int = Field(3, ge=1, le=10)  # ragas: questions generated per answer
