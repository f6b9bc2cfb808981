"""`python -m eval tune --dataset DIR --preset P [--space SPACE.yaml] --folds 5 --out DIR
[--trials N] [--final] [--seed S]`
`python -m eval tune --collection NAME --qa SET --preset P [--space SPACE.yaml] --out DIR`

Searches SPACE (eval/spaces/*.yaml are examples; without --space, the preset's fusion: the
parameters its fusion method reads and retrieval.depth) for the preset's best settings without fooling
you: selection on training folds only, every query scored once out of fold (eval.tune.protocol).
Candidate lists are searched once and cached, like a sweep's; each trial re-runs only the
pipeline's tail. Writes OUT/tune.json (out-of-fold figures with 95% CIs, the in-sample best and
the optimism gap, per-fold choices and their stability, paired tests against the default and
each single retriever) and OUT/perquery.jsonl; with --final also OUT/<preset>-tuned.yaml, the
point chosen on all queries as a preset that `eval run --preset FILE` and every page load.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from eval.cli.run import limit_queries
from eval.cli.runs import add_store_options
from eval.data.beir import load_beir
from eval.data.shapes import BeirDataset
from eval.scoring.metrics import DEFAULT_METRICS
from eval.tune.protocol import run_tune
from eval.tune.report import per_query_rows, summary_lines, tune_json, tuned_preset
from eval.tune.space import load_space, preset_fusion_space
from rag.config import load_preset, parse_set_options, preset_yaml, with_overrides


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("tune", help="cross-validated search of a preset's settings",
                                   description=__doc__)
    parser.add_argument("--dataset", type=Path, help="BEIR folder")
    parser.add_argument("--collection", metavar="NAME",
                        help="tune on an existing collection's documents instead (needs --qa)")
    parser.add_argument("--qa", metavar="SET",
                        help="with --collection: a test set stored with it, or a QA file; its "
                             "labels name documents by file name (scored per document)")
    parser.add_argument("--preset", required=True, help="preset name or YAML path")
    parser.add_argument("--space", type=Path, default=None,
                        help="space YAML (eval/spaces/); default: the preset's fusion settings")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=50,
                        help="points tried per search (a grid no larger is searched whole)")
    parser.add_argument("--final", action="store_true",
                        help="also write the point chosen on all queries as a preset YAML")
    parser.add_argument("--seed", type=int, default=0, help="folds, sampler and bootstrap seed")
    parser.add_argument("--split", default="test")
    parser.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a field of the preset before tuning")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--no-cache", action="store_true", help="search again, ignore the cache")
    add_store_options(parser)


def tune_dataset(args: argparse.Namespace) -> BeirDataset:
    """A BEIR folder, or a collection's documents with a QA set's questions and labels."""
    if (args.dataset is None) == (args.collection is None):
        raise ValueError("give one of --dataset DIR or --collection NAME (with --qa SET)")
    if args.collection is None:
        return load_beir(args.dataset, args.split)
    if args.qa is None:
        raise ValueError(f"collection {args.collection!r} has no relevance labels of its own: "
                         "add --qa SET (a test set stored with it, or a QA file)")
    from eval.runs.own_corpus import corpus_dataset
    from eval.testsets.store import resolve_qa
    from rag.index import open_collection

    return corpus_dataset(resolve_qa(args.collection, args.qa), open_collection(args.collection))


def run(args: argparse.Namespace) -> int:
    base = load_preset(args.preset)
    if args.set:
        base = with_overrides(base, parse_set_options(args.set))
    if args.space is None:
        space = preset_fusion_space(base)
        print(f"no --space: tuning {base.name}'s fusion ({base.fusion.method}): "
              + ", ".join(s.key for s in space.settings))
    else:
        space = load_space(args.space, base)
    dataset = limit_queries(tune_dataset(args), args.max_queries)
    result = run_tune(dataset, base, space, args.folds, args.trials, args.seed, args.metrics,
                      use_cache=not args.no_cache)
    report = tune_json(result, {"name": dataset.name, "hash": dataset.content_hash,
                                "source": dataset.source, "split": args.split},
                       args.resamples, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.final:
        config = tuned_preset(result, report)
        model = getattr(config.fusion, "model", None)  # a learned fusion's model file
        if model:  # kept beside the preset, so the preset outlives the cache
            kept = args.out / f"{config.name}.model.json"
            shutil.copyfile(model, kept)
            config = with_overrides(config, {"fusion.model": str(kept.resolve())})
        path = args.out / f"{config.name}.yaml"
        path.write_text(preset_yaml(config), encoding="utf-8")
        report["final_preset"] = str(path)
    (args.out / "tune.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    with (args.out / "perquery.jsonl").open("w", encoding="utf-8") as handle:
        for row in per_query_rows(result):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    if not args.no_store:
        from eval.runs.identity import dataset_identity
        from eval.runs.record import store_tune

        identity = dataset_identity(dataset, args.collection, args.qa)
        stored = store_tune(result, report, dataset, identity, user=args.user,
                            root=args.runs_dir)
        print(f"stored {stored}", file=sys.stderr)
    print("\n".join(summary_lines(report)))
    print(f"wrote {args.out / 'tune.json'}"
          + (f" and the preset {report['final_preset']}" if args.final else ""))
    return 0
