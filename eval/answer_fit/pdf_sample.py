"""Answer the real-PDF questions (datasets/pdf_answer_questions.jsonl, written for issue 39
before any answer was seen) over a collection of real PDFs shipped by Debian packages, and write
the sample a blind reader judges: question, answer (and the answer a decline withheld) and its
sources' text, with a `correct` field to fill in (true/false); the figures the pipeline reports
(answer relevance, grounding, confidence) go to a file beside it, out of the reader's sight.
`python -m eval.answer_fit.pdf_sample --score JUDGED` then reports the share correct and how
often confidence >= 0.8 coincides with a wrong answer. A declined answer is judged on the
answer it withheld (the user saw a decline; the figure asks whether confidence misled).

    python -m rag ingest --collection guardpdf --preset hybrid PDF_FOLDER
    python -m eval.answer_fit.pdf_sample --collection guardpdf --out eval/results/pdf_answers_sample.jsonl

PDF_FOLDER holds libtasn1.pdf (libtasn1-doc), shared-mime-info-spec.pdf (shared-mime-info) and
developers-reference.pdf (developers-reference), Debian 12's packages.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rag.paths import PROJECT_ROOT

QUESTIONS = PROJECT_ROOT / "datasets" / "pdf_answer_questions.jsonl"
HIGH = 0.8


def answer_rows(collection: str, preset: str, questions: Path = QUESTIONS) -> list[dict[str, object]]:
    from rag.abstain.stage import AbstainDecision
    from rag.config import load_preset, with_overrides
    from rag.context.base import BuiltContext
    from rag.grounding.retry import GroundedAnswer
    from rag.pipeline import run_query

    config = with_overrides(load_preset(preset), {"index.collection": collection, "context.enabled": True})
    rows: list[dict[str, object]] = []
    for line in questions.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        trace = run_query(q["question"], config)
        grounded = trace.output(GroundedAnswer)
        decision = trace.output(AbstainDecision)
        context = trace.output(BuiltContext)
        relevance = decision.signals.relevance if decision is not None else None
        report = grounded.report if grounded is not None else None
        rows.append({
            "id": q["id"], "doc": q["doc"], "question": q["question"], "answer": trace.answer,
            "sources": [b.text[:700] for b in context.blocks[:3]] if context is not None else [],
            "answer_relevance": round(relevance.score, 3) if relevance is not None else None,
            "grounded_share": round(report.grounded_share, 3) if report is not None else None,
            "confidence": round(report.confidence, 3) if report is not None else None,
            "withheld": bool(decision is not None and decision.abstained),
            "support": decision.signals.support if decision is not None else None,
            "evidence": round(decision.signals.evidence, 3) if decision is not None
            and decision.signals.evidence is not None else None,
            "declined_kind": decision.kind if decision is not None and decision.abstained else None,
            "original_answer": decision.original_answer if decision is not None and decision.abstained
            else "",
        })
    return rows


BLIND_KEYS = ("id", "doc", "question", "answer", "original_answer", "sources")


def _read(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def figures_path(sample: Path) -> Path:
    """The figures beside a sample; for a reader's copy (SAMPLE.blind.jsonl, SAMPLE.judged.jsonl)
    without its own, the figures of the sample it was copied from."""
    own = sample.with_name(sample.stem + ".figures.jsonl")
    if own.exists() or "." not in sample.stem:
        return own
    return sample.with_name(sample.stem.rsplit(".", 1)[0] + ".figures.jsonl")


def score(path: Path) -> dict[str, object]:
    """The judged sample (a `correct` true/false per row, from the blind reader) joined with the
    figures file written beside the sample."""
    figures = {r["id"]: r for r in _read(figures_path(path))}
    rows = [{**figures.get(r["id"], {}), **r} for r in _read(path)]
    judged = [r for r in rows if r.get("correct") in (True, False)]
    high = [r for r in judged if float(r.get("confidence") or 0) >= HIGH]  # type: ignore[arg-type]
    wrong_high = [r for r in high if not r["correct"]]
    verdicts: dict[str, int] = {}
    for r in judged:
        verdicts[str(r.get("verdict", ""))] = verdicts.get(str(r.get("verdict", "")), 0) + 1
    outright = [r for r in high if r.get("verdict") == "wrong"]
    return {"judged": len(judged), "correct": sum(bool(r["correct"]) for r in judged),
            "share_correct": sum(bool(r["correct"]) for r in judged) / len(judged) if judged else None,
            "verdicts": verdicts,  # the reader's verdict field, when the file has one
            "confidence_at_least_0.8": len(high), "of_them_wrong": len(wrong_high),
            "wrong_share_of_all_answers": len(wrong_high) / len(judged) if judged else None,
            "of_them_verdict_wrong": len(outright),
            "verdict_wrong_share_of_all_answers": len(outright) / len(judged) if judged else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", default="guardpdf")
    parser.add_argument("--preset", default="hybrid")
    parser.add_argument("--questions", type=Path, default=QUESTIONS,
                        help="question file (default: the set the answer-fit rules were built on; "
                             "datasets/pdf_answer_questions_test.jsonl was written after they froze)")
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "eval/results/pdf_answers_sample.jsonl")
    parser.add_argument("--score", type=Path, help="a judged copy of the sample: print the figures")
    args = parser.parse_args()
    if args.score:
        print(json.dumps(score(args.score), indent=2))
        return
    rows = answer_rows(args.collection, args.preset, args.questions)
    # the reader sees what a user sees (and the answer a decline withheld), never the figures
    blind = [{**{k: r[k] for k in BLIND_KEYS}, "correct": None} for r in rows]
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in blind), encoding="utf-8")
    figures = figures_path(args.out)
    figures.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} answers -> {args.out} (blind sample), {figures} (figures)")


if __name__ == "__main__":
    main()
