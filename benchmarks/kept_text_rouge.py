"""ROUGE-L of extractive answers read from a derived index with and without the collection's text.

    python -m benchmarks.kept_text_rouge --data /tmp/kept-text-data \\
        --out benchmarks/results/kept_text_rouge_samples.json

Builds the bundled samples (datasets/samples/) into one collection with preset hybrid, then
answers every answerable question of datasets/qa_samples.jsonl with each preset whose chunking or
embedding differs (so it reads a derived index), two ways: "bare" hands the runner the derived
index alone (what the CLI, the Answer and Systems pages and eval did before IndexRef: no kept
text, block-only sentences) and "ref" hands it `resolve(collection, config)` (the index and its
collection). ROUGE-L F1 (rouge_score, stemmed: what eval's rouge_l computes) against each
question's reference answer; generation offline (extractive), stages as eval's answer mode runs them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path
from typing import Any

PRESETS = ("axiom", "echomind", "vexora", "intellidocs")
COLLECTION = "samples"


def measure(presets: tuple[str, ...] = PRESETS) -> dict[str, Any]:
    from rouge_score import rouge_scorer

    from eval.data.qa import load_qa_file
    from eval.scoring.answers import ANSWER_STAGES
    from rag.config import load_preset, with_overrides
    from rag.documents import ingest_paths
    from rag.index import open_collection
    from rag.index.derived import resolve
    from rag.paths import PROJECT_ROOT, SAMPLES_DIR
    from rag.pipeline import run_query

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    collection = open_collection(COLLECTION, create=True)
    if not collection.manifest.documents:
        collection.add_documents(ingest_paths([SAMPLES_DIR]).documents, load_preset("hybrid"),
                                 progress=False)
    qa = load_qa_file(PROJECT_ROOT / "datasets" / "qa_samples.jsonl")
    items = [i for i in qa.items if i.answerable and i.answer]
    results: dict[str, Any] = {}
    for name in presets:
        config = with_overrides(load_preset(name), {"index.collection": COLLECTION, **ANSWER_STAGES})
        ref = resolve(collection, config)
        scores: dict[str, list[float]] = {"bare": [], "ref": []}
        differ = warned = 0
        for item in items:
            answers = {}
            for way, source in (("bare", ref.stored), ("ref", ref)):
                trace = run_query(item.question, config, source)
                answers[way] = trace.answer or ""
                scores[way].append(float(scorer.score(item.answer, answers[way])["rougeL"].fmeasure))
                warned += way == "bare" and any("context blocks only" in w for w in trace.warnings)
            differ += answers["bare"] != answers["ref"]
        results[name] = {
            "derived_index": ref.derived,
            "questions": len(items),
            "rouge_l_bare_index": round(statistics.fmean(scores["bare"]), 4),
            "rouge_l_with_collection_text": round(statistics.fmean(scores["ref"]), 4),
            "answers_that_differ": differ,
            "bare_runs_warning_in_trace": warned,
        }
        print(name, results[name], flush=True)
    return {"corpus": "datasets/samples (collection built with preset hybrid)",
            "questions": "datasets/qa_samples.jsonl, answerable with a reference answer",
            "metric": "ROUGE-L F1, rouge_score stemmed, answer vs reference answer",
            "generation": "offline extractive (no LLM endpoint)", "presets": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="scratch data folder")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    os.environ["RAG_WORKBENCH_DATA"] = str(args.data)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = measure()
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
