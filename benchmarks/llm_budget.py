"""Does every seed preset answer with the LLM within a per-query time limit? Each preset answers
the first bundled questions with generation.mode=llm against OPENAI_BASE_URL (the local SmolLM2
server: `python -m rag llm serve`); per query the wall time, who wrote the answer, and each LLM
stage's budget and use (rag.llm.deadline, StageRecord.llm_budget) are written to JSON.

    python -m benchmarks.llm_budget --preset axiom --preset echomind ... --questions 4 \
        --out benchmarks/results/llm_budget_smollm2.json

A fallback is "reasoned" when the generation stage says why and the reason is not its deadline.
The first question of each preset is asked once before the measured runs (judge checks, model
loading) and not counted. The machine's load average is recorded before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from eval.data.qa import QASet, load_qa_file
from eval.scoring.answers import qa_traces
from rag.config import load_preset, with_overrides
from rag.generate.stage import GenerateOutput
from rag.paths import PROJECT_ROOT, SAMPLES_DIR
from rag.trace import Trace

LIMIT_S = 60.0


def query_row(preset: str, qid: str, trace: Trace, wall_s: float) -> dict[str, Any]:
    generated = trace.output(GenerateOutput)
    record = trace.stage("generate")
    attempts = generated.answer.attempts if generated is not None else ()
    timed_out = any(a.outcome in ("deadline", "timeout") for a in attempts)
    mode = generated.answer.mode if generated is not None else "none"
    return {
        "preset": preset, "qid": qid, "wall_s": round(wall_s, 2), "answer_mode": mode,
        "generate_status": record.status if record is not None else "absent",
        "generate_reason": record.reason if record is not None else "",
        "context_cut": next((w for w in (record.warnings if record else ()) if "context cut" in w), ""),
        "generation_timed_out": timed_out,
        "halted": next((r.reason for r in trace.records if r.status == "cache_hit"), ""),
        "stages": {r.stage: {"status": r.status, "budget_s": r.llm_budget.budget_s,
                             "used_s": r.llm_budget.used_s, "calls": r.llm_budget.calls}
                   for r in trace.records if r.llm_budget is not None},
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    llm = [r for r in rows if r["answer_mode"] == "llm" or (  # no_rag: the LLM without documents
        r["answer_mode"] == "no_rag" and r["stages"].get("generate", {}).get("calls", 0) > 0)]
    reasoned = [r for r in rows if r not in llm and r["generate_reason"] and not r["generation_timed_out"]]
    return {
        "queries": len(rows), "llm_answers": len(llm), "reasoned_fallbacks": len(reasoned),
        "timeouts": sum(r["generation_timed_out"] for r in rows),
        "within_limit": sum(r["wall_s"] <= LIMIT_S for r in rows),
        "max_wall_s": max((r["wall_s"] for r in rows), default=None),
        "ok": all(r["wall_s"] <= LIMIT_S and (r in llm or r in reasoned) for r in rows),
    }


def run(presets: list[str], qa: QASet, overrides: dict[str, Any]) -> dict[str, Any]:
    load_before = os.getloadavg()
    results: dict[str, Any] = {}
    for preset in presets:
        config = with_overrides(load_preset(preset), {"generation.mode": "llm", **overrides})
        warm = QASet(qa.name, qa.items[:1])
        for _ in qa_traces(warm, config, SAMPLES_DIR):
            pass  # judge checks, models, the index: not one query's cost
        rows = []
        started = time.perf_counter()
        for item, trace, _ in qa_traces(qa, config, SAMPLES_DIR):
            rows.append(query_row(preset, item.qid, trace, time.perf_counter() - started))
            started = time.perf_counter()
        results[preset] = {"summary": summary(rows), "queries": rows}
        print(preset, json.dumps(results[preset]["summary"]))
    return {"limit_s": LIMIT_S, "endpoint_model": os.environ.get("OPENAI_BASE_URL", ""),
            "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in os.getloadavg()],
            "cpus": os.cpu_count(), "overrides": overrides, "presets": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", dest="presets", action="append", required=True)
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--qa", type=Path, default=PROJECT_ROOT / "datasets" / "qa_samples.jsonl")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="FIELD=JSON")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if not os.environ.get("OPENAI_BASE_URL"):
        raise SystemExit("OPENAI_BASE_URL is not set: start `python -m rag llm serve` and export it")
    qa = load_qa_file(args.qa)
    qa = QASet(qa.name, qa.items[: args.questions])
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.sets)}
    report = {"command": " ".join(["python -m benchmarks.llm_budget", *sys.argv[1:]]),
              **run(args.presets, qa, overrides)}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
