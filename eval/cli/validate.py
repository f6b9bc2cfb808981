"""`python -m eval validate-testset --corpus C --human SET --generated NAME=FILE.jsonl … --out F.json`

Scores bm25, dense, hybrid and the five seed presets (nDCG@10, retrieval mode) on a human-labelled
set and on each generated set over the same corpus, and reports how far the generated sets rank
the systems like the human one: Kendall τ, Pearson and Spearman with bootstrap 95% intervals over
queries, the human set's split-half τ, and pool bias (eval.testsets.validate).

`--corpus`: a folder of documents (the QA spans' `doc` are its file names) or a BEIR folder.
`--human`: a QA file over that folder, or a BEIR folder (its queries and qrels)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from eval.data.beir import load_qa_file
from eval.data.qa import QASet
from eval.testsets.validate import SYSTEMS, human_set, sibling_set, validate


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("validate-testset", description=__doc__,
                                   help="does a generated test set rank systems like the human one?")
    parser.add_argument("--corpus", type=Path, required=True, help="folder of documents or BEIR folder")
    parser.add_argument("--human", type=Path, required=True, help="human QA file or BEIR folder")
    parser.add_argument("--generated", action="append", default=[], metavar="NAME=FILE",
                        help="a generated QA JSONL set under a name (repeatable)")
    parser.add_argument("--system", action="append", help=f"preset to score (default: {', '.join(SYSTEMS)})")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, help="keep each system's run here and reuse it (resume)")
    parser.add_argument("--out", type=Path, required=True, help="write the report as JSON here")


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    human = human_set(args.corpus, args.human)
    generated = {}
    for item in args.generated:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--generated takes NAME=FILE, got {item!r}")
        # a generator that kept nothing wrote an empty file: reported as a set too few to score
        empty = Path(path).is_file() and not Path(path).read_text(encoding="utf-8").strip()
        qa = QASet(name, (), path) if empty else load_qa_file(path)
        generated[name] = sibling_set(human, qa)
    report = validate(human, generated, tuple(args.system or SYSTEMS), n_resamples=args.resamples,
                      seed=args.seed, cache=args.cache,
                      progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    report["command"] = "python -m eval " + " ".join(sys.argv[1:])
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["inputs"] = {"corpus": str(args.corpus), "human": str(args.human),
                        "generated": dict(g.split("=", 1) for g in args.generated)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False, allow_nan=True) + "\n")
    for label, info in report["sets"].items():
        if "separation" in info:
            print(f"{label}: {info['separation']['words']}")
    for label, agree in report["agreement"].items():
        ci = agree["ci95"]["kendall_tau"]
        print(f"{label}: Kendall tau {agree['kendall_tau']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}], "
              f"Pearson {agree['pearson']:.2f}, Spearman {agree['spearman']:.2f}")
    print(f"wrote {args.out}")
    return 0
