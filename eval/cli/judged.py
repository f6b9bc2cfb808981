"""`eval run` on a judged set (rows carrying `judged_nonrelevant` spans, as the Judge page
exports them): adds `judged` to the report JSON — per preset, the share of its top 10 nobody
judged, nDCG@10 as a lower bound, condensed nDCG@10, bpref and the over-30%-unjudged warning
(eval.scoring.judged) — scored chunk by chunk over the collection's kept text or the documents
folder, as the Evaluate page scores the set."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from eval.data.qa import load_qa_file
from eval.judging.export import NONRELEVANT, nonrelevant_spans


def judged_source(args: argparse.Namespace) -> Path | None:
    """The QA file the run was labelled with (a set stored with --collection, or a path)."""
    value = getattr(args, "qa", None) or args.answers
    if value is None:
        return None
    if args.collection:
        from eval.testsets.store import set_path

        try:
            stored = set_path(args.collection, str(value))
        except ValueError:  # not a set name: a path
            stored = None
        if stored is not None and stored.is_file():
            return stored
    path = Path(value)
    return path if path.is_file() and path.suffix.lower() == ".jsonl" else None


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [r for r in rows if isinstance(r, dict)]


def add_judged(args: argparse.Namespace, configs: dict[str, Any]) -> dict[str, Any] | None:
    """Write `judged` into the report when the labels are a judged set; returns it (or None)."""
    source = judged_source(args)
    if source is None:
        return None
    rows = _rows(source)
    if not any(r.get(NONRELEVANT) for r in rows):
        return None
    from eval.data.evalsets import qa_corpus_set
    from eval.runs.collection_sets import collection_eval_set
    from eval.runs.evalset_runner import honest_scores, score_config
    from rag.index import open_collection

    qa = load_qa_file(source)
    judged = nonrelevant_spans(rows)
    if args.collection:
        evalset = collection_eval_set(qa, open_collection(args.collection), judged)
    else:
        from dataclasses import replace
        from types import MappingProxyType

        evalset = replace(qa_corpus_set(qa, args.dataset), nonrelevant=MappingProxyType(judged))
    evalset = evalset.limit(args.max_queries)
    section = {}
    for name, config in configs.items():
        scored = score_config(evalset, config, mode="retrieval", n_resamples=10, seed=args.seed)
        figures = honest_scores(evalset, scored)
        section[name] = figures.as_json()
        print(f"{name} judged: unjudged@10 {figures.unjudged:.3f}, ndcg@10 {figures.ndcg:.4f} "
              f"(lower bound), condensed ndcg@10 {figures.condensed_ndcg:.4f}, bpref "
              f"{figures.bpref:.4f}" + (" — over 30% unjudged" if figures.lower_bound else ""))
    report = json.loads(args.out.read_text(encoding="utf-8"))
    report["judged"] = section
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return section
