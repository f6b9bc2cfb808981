"""`python -m benchmarks.guard_cost --out benchmarks/results/guard_cost.json`: what the guard
costs per call. The query guard (sanitise, every decoder, the patterns on every view, the learned
detector) over the benign pool's questions, over encoded/smuggled attack variants and over a
2,000-character question (the default limit); the document screen per passage (datasets/beir_sample's
corpus) cold, as ingest and a first context see it. One process, after a warm-up call; the
machine is shared, so read p50 rather than the tail. Each query case runs twice in the same
process: with the multilingual e5 detector (guard6) and without it (guard5's guard, the reference),
with the ratio of the p50s."""

from __future__ import annotations

import argparse
import json
import os
import platform
from dataclasses import asdict
from pathlib import Path

from benchmarks.timing import summarize, time_each
from eval.guard_detector.benign import load_pool
from eval.guard_detector.encoders import variants
from eval.scoring.guard import ATTACKS, load_prompts
from rag.injection import detect_in_document
from rag.paths import PROJECT_ROOT
from rag.query.guard import guard
from rag.settings.query import GuardConfig

OUT = PROJECT_ROOT / "benchmarks" / "results" / "guard_cost.json"
CORPUS = PROJECT_ROOT / "datasets" / "beir_sample" / "corpus.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    cfg = GuardConfig(rate_limit=None)
    reference = GuardConfig(rate_limit=None, e5_detector=False)  # guard5: patterns + n-gram detector
    questions = [r["text"] for r in load_pool()]
    attacks = [text for i, p in enumerate(load_prompts(ATTACKS)) for text in variants(p.text, i).values()]
    long = (" ".join(questions) * 3)[: cfg.max_chars]
    passages = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    guard("warm-up: load the models and the confusables table", cfg)
    results: dict[str, dict[str, object]] = {}
    for name, texts in (("guard_benign_question", questions), ("guard_attack_variant", attacks),
                        ("guard_2000_chars", [long] * 20)):
        samples, _ = time_each(lambda t: guard(t, cfg), texts)
        base, _ = time_each(lambda t: guard(t, reference), texts)
        results[name] = asdict(summarize(samples))
        results[name + "_guard5_reference"] = asdict(summarize(base))
        ref = float(results[name + "_guard5_reference"]["p50_ms"])  # type: ignore[arg-type]
        results[name]["ratio_to_guard5_p50"] = round(float(results[name]["p50_ms"]) / max(1e-9, ref), 2)
    samples, _ = time_each(detect_in_document, passages)
    results["document_screen_per_passage"] = asdict(summarize(samples))
    report = {"command": "python -m benchmarks.guard_cost", "machine": platform.machine(),
              "cpus": os.cpu_count(), "python": platform.python_version(),
              "mean_passage_chars": round(sum(map(len, passages)) / len(passages)), "results": results}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
