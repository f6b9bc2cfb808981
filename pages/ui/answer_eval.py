"""The Evaluate page's answer section: answer a QA set's questions with presets and score the
answers with eval.scoring.answers (ragas offline; its LLM metrics when an endpoint is configured)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd
import streamlit as st

from eval.data.evalsets import EvalSet
from eval.data.qa import QASet, load_qa_file
from eval.scoring.answers import (
    DEFAULT_ANSWER_METRICS,
    LLM_METRICS,
    answer_metrics,
    answer_sources,
    answered,
    qa_answer_samples,
    ragas_judge,
)
from eval.scoring.metrics import MetricScores
from rag.config import PresetError, load_preset

ANSWER_RESULTS = "eval_answer_results"  # session key of the last answer runs
ENDPOINT_ENV, KEY_ENV = "OPENAI_BASE_URL", "OPENAI_API_KEY"


@dataclass(frozen=True)
class AnswerRun:
    """One preset's answers on the set, scored: metric -> per-question values and failures."""

    label: str
    scores: Mapping[str, MetricScores]
    declined: int = 0  # questions the abstain stage declined: not scored (eval run --answers too)
    written_by: Mapping[str, int] = field(default_factory=dict)  # given answers: llm / extractive


def metric_options(endpoint: str | None) -> list[str]:
    """Every answer metric, LLM ones only when an endpoint is configured."""
    return [*DEFAULT_ANSWER_METRICS, *(LLM_METRICS if endpoint else ())]


def first_questions(qa: QASet, n: int) -> QASet:
    """The first `n` questions by id (the order EvalSet.limit keeps)."""
    keep = sorted(qa.items, key=lambda item: item.qid)[:n]
    return replace(qa, items=tuple(keep))


def score_presets(
    qa: QASet,
    presets: Sequence[str],
    metrics: Sequence[str],
    judge_model: str = "",
    embedding_model: str = "",
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[AnswerRun, ...]:
    """Answer every question with each preset's full pipeline, then score the answers."""

    endpoint = os.environ.get(ENDPOINT_ENV)
    judge = (ragas_judge(endpoint, judge_model, os.environ.get(KEY_ENV) or "none",
                         embedding_model or None)
             if endpoint and judge_model else None)
    runs = []
    for name in presets:
        def moved(done: int, of: int, name: str = name) -> None:
            if progress is not None:
                progress(done, of, name)

        samples = qa_answer_samples(qa, load_preset(name), progress=moved)
        given = answered(samples)
        runs.append(AnswerRun(name, answer_metrics(given, metrics, judge), len(samples) - len(given),
                              answer_sources(samples)["answered"]))
    return tuple(runs)


def answers_frame(runs: Sequence[AnswerRun]) -> pd.DataFrame:
    """One row per (preset, metric): mean over the questions it succeeded on, and failures."""
    rows = [
        {"preset": run.label, "metric": name, "mean": s.mean if s.values else None,
         "scored": s.n, "failed": s.n_failed, "declined": run.declined,
         "written by": ", ".join(f"{who} {n}" for who, n in sorted(run.written_by.items())),
         "first failure": next(iter(s.failed.values()), ""),
         "note": ZERO_BY_CONSTRUCTION if name in STRING_MATCH and s.values and not s.mean else ""}
        for run in runs for name, s in run.scores.items()
    ]
    return pd.DataFrame(rows)


STRING_MATCH = ("context_precision", "context_recall")  # ragas's non-LLM versions
ZERO_BY_CONSTRUCTION = ("0 by construction: the non-LLM version matches whole passages, and a span "
                        "label is a part of a chunk; set OPENAI_BASE_URL for the LLM version")


def answer_section(evalset: EvalSet, chosen: list[str]) -> None:
    """Controls, a progress bar and the results table; only QA sets carry reference answers.
    The presets are the page's one picker's (`chosen`)."""
    if evalset.unit != "chunk":
        return
    with st.expander("Answer metrics (ragas + groundedness)"):
        endpoint = os.environ.get(ENDPOINT_ENV)
        st.caption("Answers come from each preset's full pipeline with context, generation and "
                   "grounding on. " + (f"LLM metrics use {endpoint}." if endpoint else
                   f"LLM metrics need {ENDPOINT_ENV}; offline metrics only."))
        st.caption(f"Presets: {', '.join(chosen) or 'none'} (the picker above).")
        options = metric_options(endpoint)
        metrics = st.multiselect("Metrics", options, default=options, key="ans_metrics")
        row = st.columns(3)
        n_all = len(evalset.dataset.queries)
        limit = row[0].number_input("Questions", 1, n_all, min(n_all, 10), key="ans_limit")
        judge = row[1].text_input("Judge model", "gpt-4o-mini", key="ans_judge",
                                  disabled=not endpoint)
        embed = row[2].text_input("Embedding model (answer relevancy)", "text-embedding-3-small",
                                  key="ans_embed", disabled=not endpoint)
        if st.button("Score answers", key="ans_run") and chosen and metrics:
            bar = st.progress(0.0, text="Answering…")
            qa = first_questions(load_qa_file(evalset.dataset.source), int(limit))
            try:
                st.session_state[ANSWER_RESULTS] = score_presets(
                    qa, chosen, metrics, judge, embed,
                    lambda done, of, name: bar.progress(done / of, text=f"{name}: {done}/{of}"))
            except (PresetError, ValueError) as exc:
                st.error(str(exc))
        runs = st.session_state.get(ANSWER_RESULTS)
        if runs:
            st.dataframe(answers_frame(runs), width="stretch", hide_index=True)
