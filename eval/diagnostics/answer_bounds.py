"""Where an extractive answer loses ROUGE-L: passage choice, sentence choice, or length.

    python -m eval.diagnostics.answer_bounds --answers QA_FILE --answers-corpus BEIR_DIR
        [--set KEY=VALUE ...] --out FILE.json

Runs each answerable question through the `hybrid` preset's full pipeline (the --set overrides
as in docs/answers.md) and, over the answered ones with a reference, reports the mean ROUGE-L F
(rouge_score, stemmed: what ragas's RougeScore computes) of: the answer; the answer without its
[Source N] tags; bounds from the same context — the first two sentences of the top-ranked
passage, of the first relevant passage in the context (0 when none is), the best single
sentence the answerer could quote; the share of questions whose relevant passage is in the
context, and whose answering sentence comes from it or from the top-ranked block; answer and
reference length in words. For a set whose references are the first sentences of the relevant
passage (build_debian_abstain.py). Development sets only: it reads every reference.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path
from typing import Any

from eval.scoring.answers import qa_traces
from eval.testsets.store import resolve_qa
from rag.abstain.stage import AbstainDecision
from rag.config import load_preset, parse_set_options, with_overrides
from rag.context.base import BuiltContext
from rag.generate.extractive import score_sentences
from rag.generate.stage import GenerateOutput
from rag.text import split_sentences

REFERENCE_SENTENCES = 2
_TAG = re.compile(r"\s*\[Source \d+\]")


def _first(text: str) -> str:
    return " ".join(s.text for s in split_sentences(text)[:REFERENCE_SENTENCES])


class _Texts:
    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def document_text(self, doc_id: str) -> str | None:
        return self.texts.get(doc_id)


def bounds(qa_file: str, corpus_dir: Path, overrides: list[str]) -> dict[str, Any]:
    from rouge_score import rouge_scorer

    from eval.runs.beir_index import document_text

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)

    def rouge(reference: str, answer: str) -> float:
        return float(scorer.score(reference, answer)["rougeL"].fmeasure)

    config = with_overrides(load_preset("hybrid"), parse_set_options(overrides))
    rows: dict[str, list[float]] = {}
    for item, trace, corpus in qa_traces(resolve_qa(None, qa_file), config, corpus_dir):
        decision = trace.output(AbstainDecision)
        context, generated = trace.output(BuiltContext), trace.output(GenerateOutput)
        if not item.answerable or not item.answer or context is None or generated is None \
                or (decision is not None and decision.abstained):
            continue
        answer = generated.answer
        blocks = sorted(context.blocks, key=lambda b: (b.rank, b.n))
        gold = set(item.doc_ids) | {s.doc for s in item.spans}
        kept = _Texts({b.doc_id: document_text(corpus[b.doc_id].get("title", ""),
                                               corpus[b.doc_id]["text"]) for b in blocks})
        in_context = [b for b in blocks if b.doc_id in gold]
        units = score_sentences(item.question, context, kept)
        ref = item.answer
        figures = {
            "answer": rouge(ref, trace.answer or ""),
            "answer_without_tags": rouge(ref, _TAG.sub("", trace.answer or "")),
            "top_passage_first_sentences": rouge(ref, _first(corpus[blocks[0].doc_id]["text"])),
            "relevant_passage_first_sentences": (
                rouge(ref, _first(corpus[in_context[0].doc_id]["text"])) if in_context else 0.0),
            "best_quotable_sentence": max((rouge(ref, u.text) for u in units), default=0.0),
            "relevant_passage_in_context": float(bool(in_context)),
            "answering_sentence_from_relevant": float(bool(answer.quotes)
                                                      and answer.quotes[0].doc_id in gold),
            "answering_sentence_from_top_block": float(bool(answer.quotes)
                                                       and answer.quotes[0].doc_id == blocks[0].doc_id),
            "answer_words": float(len(_TAG.sub("", trace.answer or "").split())),
            "reference_words": float(len(ref.split())),
        }
        for name, value in figures.items():
            rows.setdefault(name, []).append(value)
    return {"n": len(rows.get("answer", [])),
            "means": {name: statistics.fmean(values) for name, values in rows.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", required=True)
    parser.add_argument("--answers-corpus", type=Path, required=True)
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    report = {"answers": args.answers, "overrides": args.overrides,
              **bounds(args.answers, args.answers_corpus, args.overrides)}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report["means"], indent=2))


if __name__ == "__main__":
    main()
