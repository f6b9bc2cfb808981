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
import subprocess
import sys
from pathlib import Path

from eval.cli.run import limit_queries
from eval.cli.runs import add_store_options
from eval.data.beir import load_beir
from eval.data.shapes import BeirDataset
from eval.scoring.metrics import DEFAULT_METRICS
from eval.tune.distributed import StudySpec
from eval.tune.protocol import run_tune
from eval.tune.report import per_query_rows, summary_lines, tune_json, tuned_preset
from eval.tune.space import Space, load_space, preset_fusion_space
from rag.config import PipelineConfig, load_preset, parse_set_options, preset_yaml, with_overrides


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
    group = parser.add_argument_group("distributed (Optuna's storage)")
    group.add_argument("--storage", metavar="URL",
                       help="run every search as an Optuna study in this storage: sqlite:///F.db, "
                            "postgresql://…, or a journal file (journal:PATH or PATH.log)")
    group.add_argument("--workers", type=int, default=1,
                       help="local processes pulling trials (needs --storage)")
    group.add_argument("--study", metavar="NAME",
                       help="study name (default: derived from what is tuned; printed, so "
                            "processes on other machines can join with the same name)")
    group.add_argument("--worker", type=int, default=0, metavar="K",
                       help="this process only pulls trials (K >= 1 seeds its sampler apart); "
                            "the process without --worker writes the report")


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


def distributed(args: argparse.Namespace, dataset: BeirDataset, base: PipelineConfig,
                space: Space) -> tuple[StudySpec | None, list[subprocess.Popen[bytes]]]:
    """The shared studies (with --storage), and the extra local workers started on them (after
    this process has searched and cached every query's candidate lists, which they read)."""
    if args.storage is None:
        return None, []
    from eval.tune.distributed import open_storage, study_name
    from eval.tune.scorer import PointScorer
    from eval.tune.workers import start_workers

    open_storage(args.storage)  # a bad URL fails here, before any worker starts
    name = args.study or study_name({
        "data": dataset.content_hash, "queries": sorted(dataset.queries),
        "preset": base.model_dump(mode="json"), "space": space.as_json(), "folds": args.folds,
        "trials": args.trials, "seed": args.seed, "metrics": args.metrics})
    study = StudySpec(args.storage, name, args.worker)
    if args.worker:
        return study, []
    print(f"study {name} in {args.storage}: join from another machine with the same command "
          f"plus --study {name} --worker K", file=sys.stderr)
    if args.workers <= 1:
        return study, []
    scorer = PointScorer(dataset, base, [space.objective], space.max_depth(base),
                         not args.no_cache, lambda _text: None)
    scorer.heads(scorer.config({}))  # search once here; the workers read the cached lists
    return study, start_workers(args, name, args.out)


def run(args: argparse.Namespace) -> int:
    if args.storage is None and (args.workers > 1 or args.worker or args.study):
        raise ValueError("--workers, --worker and --study need --storage URL")
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
    study, workers = distributed(args, dataset, base, space)
    result = run_tune(dataset, base, space, args.folds, args.trials, args.seed, args.metrics,
                      use_cache=not args.no_cache, study=study)
    if args.worker:
        print(f"worker {args.worker}: done with study {study.name if study else '-'}")
        return 0
    if workers:
        from eval.tune.workers import wait_workers

        codes = wait_workers(workers)
        print(f"workers finished with exit codes {codes} (logs: {args.out}/worker-K.log)",
              file=sys.stderr)
    report = tune_json(result, {"name": dataset.name, "hash": dataset.content_hash,
                                "source": dataset.source, "split": args.split},
                       args.resamples, args.seed)
    if study is not None:
        report["distributed"] = {"storage": args.storage, "study": study.name,
                                 "local_workers": args.workers}
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
