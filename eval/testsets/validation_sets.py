"""Build the generated sets the testset validation scores (docs/testset-validation.md):

    python -m eval.testsets.validation_sets samples --n 40      # OPENAI_BASE_URL set
    python -m eval.testsets.validation_sets debian --n 40
    python -m eval.testsets.validation_sets debian --unfiltered-only

`samples`: the bundled documents (datasets/samples) ingested as a collection; `debian`: the Debian
BEIR corpus (datasets/build/beir_debian, built by datasets/build_beir_debian.py) as the
workbench collection eval builds for it. Both with the bm25 preset (its index is the consistency
retriever's; recursive 512/50 chunks, the chunks questions are asked of). One generation run per
corpus gives both sets: `llm_<corpus>.jsonl` (consistency filter on) and
`llm_<corpus>_noconsistency.jsonl` (the same rows plus those only that filter removed), with
`llm_<corpus>.report.json` (spread, filter counts, model, wall time) and `llm_<corpus>.dropped.jsonl`
(each removed question with its reason). `--unfiltered-only` then writes
`llm_<corpus>_unfiltered.jsonl` from those files: every question the model wrote, filters not
applied, labelled with its source chunk (a diagnostic).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from eval.testsets.generate import GenerationProgress, generate_questions, report_dict, write_set
from rag.config import load_preset, with_overrides
from rag.paths import PROJECT_ROOT, SAMPLES_DIR

DEBIAN = PROJECT_ROOT / "datasets" / "build" / "beir_debian"


def samples_collection(name: str = "testset-samples") -> str:
    from rag.cli import main as rag_main

    # what a user runs; re-ingesting unchanged files skips them
    if rag_main(["ingest", str(SAMPLES_DIR), "--collection", name, "--preset", "bm25"]) != 0:
        raise SystemExit(f"ingesting {SAMPLES_DIR} failed")
    return name


def debian_collection() -> str:
    from eval.data.beir import load_beir
    from eval.runs.beir_index import beir_collection

    return beir_collection(load_beir(DEBIAN), load_preset("bm25")).name


def _print_progress(p: GenerationProgress) -> None:
    eta = f"{p.eta_s:.0f} s" if p.eta_s is not None else "?"
    rate = f"{p.tokens_per_s:.1f}" if p.tokens_per_s is not None else "?"
    print(f"\r{p.done}/{p.total} asked, {p.kept} kept, ETA {eta}, {rate} tokens/s", end="", file=sys.stderr,
          flush=True)


def unfiltered_set(stem: Path) -> int:
    """A diagnostic set: every question the model wrote (kept or removed by a filter), labelled
    with the chunk it was asked of, written as `<stem>_unfiltered.jsonl`: do the model's raw
    questions rank systems at all?"""
    rows = []
    for path in (stem.with_suffix(".jsonl"), stem.parent / f"{stem.name}.dropped.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if not row.get("question"):
                continue  # a failed call or an unusable reply: no question to score
            source = row["provenance"]["source"]
            rows.append({"id": row["id"], "question": row["question"], "answerable": True,
                         "spans": [{"doc": source["doc"], "start": source["start"], "end": source["end"]}],
                         "provenance": {"method": "llm", "filters_passed": "not applied (diagnostic)",
                                        "removed_by": row.get("reason")}})
    rows.sort(key=lambda r: r["id"])
    out = stem.parent / f"{stem.name}_unfiltered.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.testsets.validation_sets")
    parser.add_argument("corpus", choices=("samples", "debian"))
    parser.add_argument("--n", type=int, default=48, help="chunks sampled (one question each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="smollm2-135m-instruct", help="generation.model")
    parser.add_argument("--out-dir", type=Path, default=PROJECT_ROOT / "eval" / "results" / "testsets")
    parser.add_argument("--unfiltered-only", action="store_true",
                        help="only write llm_<corpus>_unfiltered.jsonl from an earlier run's files")
    args = parser.parse_args(argv)
    if args.unfiltered_only:
        print(unfiltered_set(args.out_dir / f"llm_{args.corpus}"), "rows")
        return 0
    name = samples_collection() if args.corpus == "samples" else debian_collection()
    config = with_overrides(load_preset("bm25"), {"generation.model": args.model})
    report = generate_questions(name, config, args.n, seed=args.seed, consistency=True,
                                progress=_print_progress)
    print(file=sys.stderr)
    stem = args.out_dir / f"llm_{args.corpus}"
    kept = write_set(report, stem.with_suffix(".jsonl"))
    loose = write_set(report, stem.parent / f"{stem.name}_noconsistency.jsonl", with_dropped=("consistency",))
    # every removed question with its reason, to read what the model wrote
    (stem.parent / f"{stem.name}.dropped.jsonl").write_text(
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in report.dropped), encoding="utf-8")
    summary = report_dict(report) | {"collection": name, "command": "python -m eval.testsets.validation_sets "
                                     + " ".join(argv if argv is not None else sys.argv[1:]),
                                     "endpoint": os.environ.get("OPENAI_BASE_URL", ""),
                                     "rows_with_consistency": kept, "rows_without_consistency": loose}
    stem.with_suffix(".report.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: summary[k] for k in ("sampled", "kept", "filtered", "seconds")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
