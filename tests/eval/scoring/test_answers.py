"""eval.scoring.answers: ragas answer metrics offline and against a local fake endpoint, failures kept."""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from answer_helpers import context
from fake_openai import FakeOpenAI, reply, status

from eval.cli import main as eval_main
from eval.scoring.answers import (
    DEFAULT_ANSWER_METRICS,
    AnswerSample,
    answer_metrics,
    grounding_figures,
    ragas_judge,
    sample_from_trace,
    scores_json,
)
from rag.generate.base import GeneratedAnswer
from rag.grounding.base import GroundingReport, SentenceCheck, Sufficiency
from rag.grounding.retry import GroundedAnswer, Iteration
from rag.trace import StageRecord, Trace

REFERENCE = "Deleted notes stay in the Trash for 30 days before they are removed for good."
PASSAGE = "Deleted notes stay in the Trash for 30 days. After that they are removed for good."
OTHER = "The Plus plan costs four dollars per month and includes unlimited notebooks."


def sample(qid: str, answer: str, contexts: tuple[str, ...] = (PASSAGE,), **kw: object) -> AnswerSample:
    base = AnswerSample(qid=qid, question="How long do deleted notes stay in the Trash?",
                        answer=answer, contexts=contexts, reference=REFERENCE,
                        reference_contexts=(PASSAGE,))
    return replace(base, **kw)


def test_offline_metrics_rank_the_reference_above_an_unrelated_answer() -> None:
    scores = answer_metrics(
        [sample("same", REFERENCE), sample("near", "Deleted notes stay in the Trash for 30 days."),
         sample("other", OTHER, contexts=(OTHER,))],
        ["string_similarity", "bleu", "rouge_l", "context_precision", "context_recall"],
    )
    for name in ("string_similarity", "bleu", "rouge_l"):
        values = scores[name].values
        assert values["same"] == pytest.approx(1.0), name
        assert values["same"] > values["near"] > values["other"], name
        assert not scores[name].failed
    for name in ("context_precision", "context_recall"):
        values = scores[name].values
        assert values["same"] == pytest.approx(1.0) and values["other"] == pytest.approx(0.0)


def test_context_precision_rewards_the_labeled_passage_ranked_first() -> None:
    first = sample("first", REFERENCE, contexts=(PASSAGE, OTHER))
    second = sample("second", REFERENCE, contexts=(OTHER, PASSAGE))
    values = answer_metrics([first, second], ["context_precision"])["context_precision"].values
    assert values["first"] > values["second"] > 0


def test_missing_inputs_are_counted_as_failed_with_the_reason_and_never_averaged() -> None:
    scores = answer_metrics([sample("ok", REFERENCE), sample("no-ref", REFERENCE, reference="")],
                            ["string_similarity", "faithfulness", "grounded_share"])
    sim = scores["string_similarity"]
    assert sim.values == {"ok": pytest.approx(1.0)} and sim.mean == pytest.approx(1.0)
    assert "no reference answer" in sim.failed["no-ref"]
    assert all("LLM endpoint" in why for why in scores["faithfulness"].failed.values())
    assert math.isnan(scores["faithfulness"].mean) and scores["faithfulness"].n_failed == 2
    assert "ground stage did not run" in scores["grounded_share"].failed["ok"]
    report = scores_json(scores, n_resamples=50)
    assert report["faithfulness"]["mean"] is None and report["faithfulness"]["failed"] == 2
    json.dumps(report, allow_nan=False)  # the report is valid JSON


def test_unknown_metric_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="string_similarity"):
        answer_metrics([sample("a", REFERENCE)], ["exact"])


def test_faithfulness_against_a_scripted_endpoint() -> None:
    statements = {"statements": ["Deleted notes stay in the Trash.", "They stay for 90 days."]}
    verdicts = {"statements": [
        {"statement": "Deleted notes stay in the Trash.", "reason": "stated", "verdict": 1},
        {"statement": "They stay for 90 days.", "reason": "it says 30", "verdict": 0},
    ]}
    with FakeOpenAI() as server:
        server.script(reply(json.dumps(statements)), reply(json.dumps(verdicts)),
                      reply(json.dumps({"statements": []})))
        judge = ragas_judge(server.base_url, "judge-model", api_key="sk-test")
        scores = answer_metrics(
            [sample("half", "Deleted notes stay in the Trash for 90 days."), sample("none", "Hm.")],
            ["faithfulness"], llm=judge)["faithfulness"]
        sent = server.chat_requests[0].body
    assert sent["model"] == "judge-model"
    assert scores.values == {"half": pytest.approx(0.5)}
    assert "nan" in scores.failed["none"]  # no statements: ragas returns NaN, kept as failed


def test_an_endpoint_error_fails_the_sample_without_crashing() -> None:
    with FakeOpenAI() as server:
        server.script(status(500, "boom"))
        judge = ragas_judge(server.base_url, "judge-model", api_key="sk-test")
        scores = answer_metrics([sample("a", REFERENCE)], ["faithfulness"], llm=judge)
    assert scores["faithfulness"].n == 0
    assert scores["faithfulness"].failed["a"]  # the error text is kept


def _sentence(index: int, citation_ok: bool | None) -> SentenceCheck:
    return SentenceCheck(index, "A.", 0, 2, (1,), 1.0, 1.0, "supported", "lexical",
                         citation_ok=citation_ok)


def test_grounding_figures_come_from_the_ground_stage_live_or_exported() -> None:
    sentences = tuple(_sentence(i, ok) for i, ok in enumerate((True, False, None)))
    report = GroundingReport(sentences, 0.75, False, 1.0, Sufficiency(1.0, True, False, ()), 0.75,
                             "medium")
    answer = GeneratedAnswer("A. B. C.", "extractive")
    trace = Trace(query="q", preset="p", answer="A. B. C.")
    trace.add(StageRecord("context", output=context("q", PASSAGE)))
    trace.add(StageRecord("ground", output=GroundedAnswer(answer, report, (Iteration(1, answer, report),))))
    for t in (trace, Trace.from_json(trace.to_json())):
        assert grounding_figures(t) == (0.75, 0.5)
        built = sample_from_trace("q1", t, REFERENCE, (PASSAGE,))
        assert built.contexts == (PASSAGE,) and built.answer == "A. B. C."
    assert grounding_figures(Trace(query="q", preset="p")) == (None, None)


@pytest.mark.slow
def test_cli_run_adds_answer_metrics_for_a_qa_file(tmp_path: Path, hashing_presets: None) -> None:
    # bm25 retrieves: the hashing backend embeds the indexed chunks instead of MiniLM
    qa_file = tmp_path / "qa.jsonl"
    rows = [json.loads(line) for line in Path("datasets/qa_samples.jsonl").read_text().splitlines()]
    qa_file.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]))
    out = tmp_path / "report.json"
    code = eval_main(["run", "--dataset", "datasets/beir_sample", "--preset", "bm25",
                      "--max-queries", "2", "--resamples", "50", "--no-store",
                      "--set", "abstain.enabled=false",  # every answer is scored, none declined
                      "--answers", str(qa_file), "--answers-corpus", "datasets/samples",
                      "--out", str(out)])
    assert code == 0
    figures = json.loads(out.read_text())["answer_metrics"]["bm25"]
    assert set(figures) == set(DEFAULT_ANSWER_METRICS)
    for name in ("rouge_l", "grounded_share"):
        assert figures[name]["n"] + figures[name]["failed"] == 2
        assert figures[name]["n"] == 0 or 0 <= figures[name]["mean"] <= 1
    assert figures["grounded_share"]["n"] == 2  # extractive answers are always checked


def test_scores_inside_a_running_event_loop_as_in_a_notebook() -> None:
    async def in_loop() -> float:
        return answer_metrics([sample("a", REFERENCE)], ["rouge_l"])["rouge_l"].values["a"]

    assert asyncio.run(in_loop()) == pytest.approx(1.0)
