"""Every preset, every LLM stage switched on, against the real local model: each stage does its
job or falls back with a reason in the trace — no crash, no failed stage, no hang (each call has
a time limit and no retries) — and every reply is counted as usable or not."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from eval.cli import main as eval_main
from eval.data.qa import QASet, load_qa_file
from eval.runs.llm_stages import LLM_STAGES
from eval.scoring.answers import qa_traces
from rag.config import available_presets, load_preset, with_overrides
from rag.context.base import BuiltContext
from rag.generate.base import GeneratedAnswer
from rag.generate.stage import GenerateOutput
from rag.llm.local_server import LocalLLMServer
from rag.llm.usability import counting
from rag.paths import SAMPLES_DIR
from rag.trace import Trace

ROOT = Path(__file__).resolve().parents[2]
QA_FILE = ROOT / "datasets" / "qa_samples.jsonl"
# Small enough for CI on two cores: short replies and excerpts, one attempt per call, two
# passages (each is compressed and reranked by the model).
SMALL = {"generation.model": "smollm2-135m-instruct", "generation.max_tokens": 64,
         "generation.deadline_s": 240,  # the query's LLM work ends by then, even on a busy machine
         "generation.timeout_s": 60, "generation.retries": 0, "retrieval.top_k": 2,
         "context.top_k": 2, "context.verify.max_passage_chars": 400, "rerank.top_n": 2,
         "rerank.llm.timeout_s": 60, "rerank.llm.max_passage_chars": 300,
         "grounding.max_retries": 0, "abstain.llm_questions": 2,
         "postprocess.threshold": None}  # hashed vectors sit below the presets' MiniLM bars
# parsers every preset reaches once retrieval runs (intent and grounding verdicts depend on
# the question and the answer)
ALWAYS = {"expand.multi_query", "expand.hyde", "expand.step_back", "expand.rag_fusion",
          "rerank.grades", "context.compress", "generate.answer"}
# a judging stage asks the model its probes first (rag.llm.judge_check): a model that fails
# them is not asked to judge, and the check stands for the stage in the tally
JUDGE_CHECK = {"rerank.grades": "judge_check.ranking", "context.compress": "judge_check.compression (llm)"}


def first_question() -> QASet:
    qa = load_qa_file(QA_FILE)
    return replace(qa, items=qa.items[:1])


def asked_of_the_model(trace: Trace) -> set[str]:
    """ALWAYS, less rerank when a router switched it off for this query and said so (adaptive
    reranks complex questions only), less compression when no passage reached the context."""
    expected = set(ALWAYS)
    rerank = trace.stage("rerank")
    if rerank is not None and rerank.status == "skipped":
        assert rerank.reason, "rerank was skipped without a reason"
        expected.discard("rerank.grades")
    context = trace.output(BuiltContext)
    if context is None or not context.blocks:
        expected.discard("context.compress")
    return expected


@pytest.mark.parametrize("preset", available_presets())
def test_each_llm_stage_does_its_job_or_falls_back_with_a_reason(
    preset: str, llm_env: LocalLLMServer, hashing_presets: None
) -> None:
    config = with_overrides(load_preset(preset), {**LLM_STAGES, **SMALL})
    with counting() as tally:
        [(_, trace, _)] = list(qa_traces(first_question(), config, SAMPLES_DIR))
    assert trace.error is None
    for record in trace.records:
        if record.status == "fallback":
            assert record.reason or record.warnings, f"{record.stage} fell back without saying why"
    asked = set(tally.parsers)
    never = {p for p in asked_of_the_model(trace) if p not in asked and JUDGE_CHECK.get(p) not in asked}
    assert not never, f"never asked the model: {never}"
    generated = trace.output(GenerateOutput)
    assert generated is not None
    answer: GeneratedAnswer = generated.answer
    if answer.mode == "llm":
        assert answer.model == "smollm2-135m-instruct" and answer.text.strip()
    else:  # the model's reply was unusable: the extractive answer, and the trace says why
        assert answer.mode == "extractive" and any("LLM failed" in w for w in answer.warnings)


def test_eval_run_full_mode_reports_usability_and_ragas_llm_metrics(
    llm_env: LocalLLMServer, hashing_presets: None, tmp_path: Path
) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(QA_FILE.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    out = tmp_path / "r.json"
    # abstain off: the hashed vectors are far below the MiniLM evidence bar, and a declined
    # question's answer is not scored by ragas
    small = {**SMALL, "abstain.enabled": False}
    sets = [arg for key, value in small.items()
            for arg in ("--set", f"{key}={'null' if value is None else value}")]
    code = eval_main(["run", "--dataset", str(SAMPLES_DIR), "--answers", str(qa), "--mode", "full",
                      "--preset", "hybrid", "--llm-stages", "--llm-metrics", "--judge-max-tokens", "96",
                      "--no-store", "--resamples", "50", "--out", str(out), *sets])
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    usability = report["llm_usability"]["hybrid"]
    for parser in ALWAYS | {"ragas.faithfulness", "ragas.llm_context_precision"}:
        figures = usability.get(parser) or usability[JUDGE_CHECK[parser]]  # asked, or checked
        assert figures["ok"] + figures["repaired"] + figures["fallback"] == figures["replies"] > 0
        if figures["fallback"]:
            assert figures["reasons"], f"{parser} fell back without a reason"
    # who wrote the answer: the model only if one of its answer replies was usable (the
    # retrieval block's query is answered too, so there are two)
    answer = usability["generate.answer"]
    (written,) = report["answer_sources"]["hybrid"]["by_question"].values()
    assert written in ({"llm", "extractive"} if answer["ok"] + answer["repaired"] else {"extractive"})
    faithfulness = report["answer_metrics"]["hybrid"]["faithfulness"]
    assert faithfulness["n"] + faithfulness["failed"] == 1  # a score, or a failure with its reason
    assert all(faithfulness["errors"].values())
