"""`python -m eval run --dataset DIR --preset P [--preset P2 …] --out FILE.json`
`python -m eval run --dataset MY_DOCS --answers QA_FILE --mode full --preset P --out FILE.json`
`python -m eval run --collection NAME --answers QA_FILE --mode full --preset P --out FILE.json`
`python -m eval run --collection NAME --qa SET --preset P --out FILE.json`

Scores each preset on a BEIR folder — or on your own documents: a folder of them, or a collection
you built, with a QA file whose spans / doc_ids (file names) are the relevance labels (--qa: a
file, or a test set stored with the collection; --answers also answers it). Metrics
with bootstrap 95% CIs and latency percentiles in
FILE.json, one line per (preset, query) in FILE.perquery.jsonl, each run also stored under the
runs folder (config, dataset hash, package versions). With two or more presets, every later
preset is compared with the first by a paired randomization test.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval.data.beir import load_beir
from eval.data.qa import QASet
from eval.data.shapes import BeirDataset
from eval.runs.beir_index import MODES, eval_config, make_searcher
from eval.runs.doc_scores import parse_doc_score
from eval.runs.identity import TestSetIdentity, dataset_identity
from eval.runs.preset_run import PresetRun, Searcher, run_preset, write_report
from eval.runs.store import save_run
from eval.runs.trace_tap import by_qid, keeping_traces
from eval.scoring.metrics import DEFAULT_METRICS, parse_metric
from eval.scoring.stats import paired_test
from eval.testsets.store import resolve_qa
from rag.config import PipelineConfig, load_preset, parse_set_options, with_overrides
from rag.llm.usability import UsabilityTally, counting


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("run", help="score presets on a BEIR dataset",
                                   description=__doc__)
    parser.add_argument("--dataset", type=Path,
                        help="a BEIR folder, or a folder of your documents (then --answers "
                             "names the questions and its spans are the relevance labels)")
    parser.add_argument("--collection", metavar="NAME",
                        help="score an existing collection instead of --dataset (needs --answers; "
                             "labels name documents by file name)")
    parser.add_argument("--preset", required=True, action="append", dest="presets",
                        help="preset name or YAML path (repeat to compare)")
    parser.add_argument("--out", required=True, type=Path, help="report JSON file")
    parser.add_argument("--split", default="test", help="qrels/<split>.tsv (default: test)")
    parser.add_argument("--metrics", nargs="+", default=list(DEFAULT_METRICS),
                        help="e.g. ndcg@10 recall@100 mrr@10 map@100 precision@5 hit@3")
    parser.add_argument("--mode", choices=MODES, default="retrieval",
                        help="retrieval: retrieve + fuse + post-steps; full: every stage")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config field in every preset, e.g. fusion.k=30")
    parser.add_argument("--doc-score", default="max", type=parse_doc_score,
                        help="chunk scores -> document score: max (default), first, sum:N")
    parser.add_argument("--max-queries", type=int, default=None, help="score only the first N")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs-dir", type=Path, default=None,
                        help="where runs are stored (default: <data dir>/runs)")
    parser.add_argument("--no-store", action="store_true", help="do not store runs")
    parser.add_argument("--user", default=None,
                        help="who ran it, stored with the run (default: RAG_WORKBENCH_USER or "
                             "the login name)")
    parser.add_argument("--qa", default=None, metavar="SET",
                        help="the questions and relevance labels: a QA file, or with "
                             "--collection the name of a test set stored with it "
                             "(`eval questions --save`)")
    parser.add_argument("--answers", default=None, metavar="QA_FILE",
                        help="also answer this QA file (reference answers, spans over the "
                             "dataset's documents) with every preset's full pipeline and add "
                             "ragas + groundedness figures under answer_metrics; rows marked "
                             "\"answerable\": false add abstention figures under abstention")
    parser.add_argument("--answers-corpus", type=Path, default=None, metavar="DIR",
                        help="what the --answers questions are asked of: a documents folder or a "
                             "BEIR folder (default: --dataset, or --collection)")
    parser.add_argument("--llm-stages", action="store_true",
                        help="switch on every LLM stage in every preset (eval.runs.llm_stages; "
                             "needs OPENAI_BASE_URL, e.g. from `python -m rag llm serve`)")
    parser.add_argument("--llm-metrics", action="store_true",
                        help="add ragas's LLM answer metrics, judged by the OPENAI_BASE_URL model")
    parser.add_argument("--judge-max-tokens", type=int, default=None,
                        help="cap each ragas judge reply (small local models ramble)")


def limit_queries(dataset: BeirDataset, n: int | None) -> BeirDataset:
    """The first `n` queries by id (the whole set for None)."""
    if n is None:
        return dataset
    if n < 1:
        raise ValueError(f"--max-queries must be at least 1, got {n}")
    keep = sorted(dataset.queries)[:n]
    return BeirDataset(dataset.name, dataset.corpus, {q: dataset.queries[q] for q in keep},
                       {q: dataset.qrels[q] for q in keep}, dataset.content_hash, dataset.source)


def run_info(
    run: PresetRun, dataset: BeirDataset, config: PipelineConfig, args: argparse.Namespace
) -> dict[str, Any]:
    """Everything a stored run needs to be compared later (eval.runs.record)."""
    from eval.runs.record import run_record

    info = run_record(run.summary.as_json(), dataset, config, cli_identity(args, dataset),
                      metrics=args.metrics, mode=args.mode, split=args.split,
                      user=getattr(args, "user", None))
    info["bootstrap"] = {"resamples": args.resamples, "seed": args.seed}
    return info


def cli_identity(args: argparse.Namespace, dataset: BeirDataset) -> TestSetIdentity:
    """The test set a command scored: --qa / --answers (a stored set or a QA file, its spans
    hashed too) over --collection or --dataset, else the BEIR folder's own qrels."""
    labels = getattr(args, "qa", None) or getattr(args, "answers", None)
    collection = getattr(args, "collection", None)
    if labels is None:
        return dataset_identity(dataset, collection)
    qa = resolve_qa(collection, labels)
    name = Path(str(labels)).stem if Path(str(labels)).suffix else str(labels)
    return dataset_identity(dataset, collection, name, qa.spans_by_query())


def _fmt(value: float | None) -> str:
    return "  n/a" if value is None or not math.isfinite(value) else f"{value:.4f}"


def print_table(runs: Sequence[PresetRun]) -> None:
    for run in runs:
        s = run.summary
        figures = "  ".join(
            f"{k} {_fmt(v)} [{_fmt(s.ci95[k][0])}, {_fmt(s.ci95[k][1])}]"
            for k, v in s.metrics.items()
        )
        print(f"{s.preset}: {s.n_queries} queries, {s.failed} failed, "
              f"p50 {s.latency_ms['p50']:.1f} ms, p95 {s.latency_ms['p95']:.1f} ms\n  {figures}")


def print_comparisons(runs: Sequence[PresetRun], seed: int) -> None:
    base = runs[0]
    for other in runs[1:]:
        for key, scores in other.scores.items():
            if not scores.values or not base.scores[key].values:
                continue
            test = paired_test(base.scores[key].values, scores.values, seed=seed)
            print(f"{other.summary.preset} vs {base.summary.preset} {key}: "
                  f"{test.diff:+.4f} [{test.ci.low:+.4f}, {test.ci.high:+.4f}] "
                  f"p={test.p_value:.4f} (wins {test.wins}, losses {test.losses})")


def add_answer_metrics(args: argparse.Namespace, tallies: dict[str, UsabilityTally]) -> None:
    """Answer the --answers QA file with each preset; add the figures to the report JSON."""
    from eval.runs.llm_stages import endpoint_judge, record_metric_outcomes
    from eval.runs.own_corpus import collection_answer_samples, preset_collection
    from eval.scoring.abstention import abstention_report
    from eval.scoring.answers import (
        DEFAULT_ANSWER_METRICS,
        LLM_METRICS,
        abstain_outcomes,
        answer_metrics,
        answer_sources,
        answered,
        qa_answer_samples,
        scores_json,
    )

    qa = resolve_qa(args.collection, args.answers)
    report = json.loads(args.out.read_text(encoding="utf-8"))
    report["answer_metrics"], report["abstention"], report["answer_sources"] = {}, {}, {}
    metrics = [*DEFAULT_ANSWER_METRICS, *(LLM_METRICS if args.llm_metrics else ())]
    judge = endpoint_judge(args.judge_max_tokens) if args.llm_metrics else None
    for preset in args.presets:
        config = preset_config(preset, args)
        with counting(tallies.setdefault(config.name, UsabilityTally())) as tally:
            if args.collection and not args.answers_corpus:
                samples = collection_answer_samples(qa, config, preset_collection(args.collection,
                                                                                  config))
            else:
                samples = qa_answer_samples(qa, config, args.answers_corpus or args.dataset)
            given = answered(samples)  # the answer metrics score what was answered
            scores = answer_metrics(given, metrics, judge)
        record_metric_outcomes(scores, tally)
        figures = scores_json(scores, args.resamples, args.seed)
        abstention = abstention_report(abstain_outcomes(samples), args.resamples, args.seed)
        report["answer_metrics"][config.name] = figures
        report["abstention"][config.name] = abstention
        sources = report["answer_sources"][config.name] = answer_sources(samples)
        print(f"{config.name} answers ({len(given)} answered of {len(samples)}): " + "  ".join(
            f"{k} {_fmt(v['mean'])} ({v['failed']} failed)" for k, v in figures.items()))
        print(f"{config.name} abstention: " + "  ".join(
            f"{k} {_fmt(v['value'])} [{_fmt(v['ci95'][0])}, {_fmt(v['ci95'][1])}]"
            for k, v in abstention.items() if k not in ("counts", "declined"))
            + f"  {abstention['counts']}")
        print(f"{config.name} answers written by: answered {sources['answered']}, "
              f"declined {sources['declined']}")
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def preset_config(preset: str, args: argparse.Namespace) -> PipelineConfig:
    """The preset with --llm-stages (first) and --set overrides applied."""
    config = load_preset(preset)
    if args.llm_stages:
        from eval.runs.llm_stages import LLM_STAGES

        config = with_overrides(config, dict(LLM_STAGES))
    return with_overrides(config, parse_set_options(args.set))


def add_usability(args: argparse.Namespace, tallies: dict[str, UsabilityTally]) -> None:
    """How usable the LLM's replies were, per preset and parser, under llm_usability."""
    if not any(t.parsers for t in tallies.values()):
        return
    from eval.runs.llm_stages import usability_table

    report = json.loads(args.out.read_text(encoding="utf-8"))
    report["llm_usability"] = {name: t.as_json() for name, t in tallies.items()}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print("LLM replies (ok: parsed as asked; repaired: parsed after a fix; fallback: offline form "
          "used)\n" + usability_table(tallies))


def load_dataset(args: argparse.Namespace) -> BeirDataset:
    """--collection (questions and labels from --answers), a BEIR folder, or a documents folder
    whose --answers spans are the labels."""
    if (args.dataset is None) == (args.collection is None):
        raise ValueError("give one of --dataset DIR or --collection NAME")
    if args.collection or not (args.dataset / "corpus.jsonl").is_file():
        labels = args.qa or args.answers
        if labels is None:
            where = f"collection {args.collection!r}" if args.collection else f"{args.dataset}"
            raise ValueError(f"{where} has no relevance labels of its own: add --answers QA_FILE "
                             "or --qa SET (questions with spans or doc_ids over its documents; "
                             "--qa also takes a test set stored with --collection)")
        from eval.data.evalsets import qa_eval_set
        from eval.runs.own_corpus import qa_dataset
        from rag.index import open_collection

        qa = resolve_qa(args.collection, labels)
        if args.collection:
            return qa_dataset(qa, open_collection(args.collection))
        return qa_eval_set(qa, args.dataset).dataset
    return load_beir(args.dataset, args.split)


def _collection_spans(args: argparse.Namespace) -> QASet | None:
    """The QA set of `--collection … --qa SET` when its labels are spans (scored per chunk)."""
    if not args.collection or args.qa is None:
        return None
    qa = resolve_qa(args.collection, args.qa)
    return qa if any(item.spans for item in qa.items) else None


def searcher_for(
    dataset: BeirDataset, config: PipelineConfig, args: argparse.Namespace
) -> Searcher:
    if args.collection is None:
        return make_searcher(dataset, config, args.mode)
    from eval.runs.own_corpus import collection_searcher, preset_collection

    return collection_searcher(config, preset_collection(args.collection, config), args.mode)


def run(args: argparse.Namespace) -> int:
    for metric in args.metrics:
        parse_metric(metric)  # fail before any indexing
    dataset = limit_queries(load_dataset(args), args.max_queries)
    runs = []
    tallies: dict[str, UsabilityTally] = {}
    spans = _collection_spans(args)
    for preset in args.presets:
        config = preset_config(preset, args)
        scored_on, searcher = dataset, None
        if spans is not None:  # a span set over a collection: chunk by chunk, as Evaluate does
            from eval.runs.own_corpus import preset_collection, span_scoring

            scored_on, searcher = span_scoring(spans, config, preset_collection(args.collection, config),
                                               args.mode, dataset)
        searcher = searcher or searcher_for(dataset, config, args)
        with counting(tallies.setdefault(config.name, UsabilityTally())), \
                keeping_traces() as traces:
            result = run_preset(scored_on, config.name, searcher, args.metrics, args.resamples,
                                args.seed, args.doc_score)
        runs.append(result)
        if not args.no_store:
            from eval.runs.record import with_labels

            info = run_info(result, dataset, eval_config(config, dataset), args)
            kept = by_qid(traces, dataset.queries)
            info["traces_kept"] = len(kept)
            rows = with_labels(result.per_query_rows(dataset.queries), scored_on.qrels,
                               spans.spans_by_query() if spans is not None else None)
            stored = save_run(info, rows, args.runs_dir, kept)
            print(f"stored {stored}", file=sys.stderr)
    side = write_report(runs, dataset.queries, args.out)
    from eval.cli.judged import add_judged

    add_judged(args, {c.name: c for c in map(lambda p: preset_config(p, args), args.presets)})
    if args.answers is not None:
        add_answer_metrics(args, tallies)
    add_usability(args, tallies)
    print_table(runs)
    print_comparisons(runs, args.seed)
    print(f"wrote {args.out} and {side}")
    return 0
