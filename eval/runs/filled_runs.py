"""A scored run's human + judge-filled nDCG@10 (eval.scoring.filled) over the chunks of the
collection it ran on: the person's labels as Evaluate reads them, the judge's fill mapped to
chunks by span overlap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from eval.data.evalsets import EvalSet
from eval.data.qa import Span
from eval.runs.beir_index import beir_collection
from eval.runs.evalset_runner import ScoredRun
from eval.scoring.filled import FilledScores, chunk_probabilities, filled_scores
from eval.scoring.judged import DEPTH


def filled_run_scores(evalset: EvalSet, scored: ScoredRun,
                      filled: Mapping[str, Sequence[tuple[Span, float]]],
                      depth: int = DEPTH) -> FilledScores:
    collection = beir_collection(evalset.dataset, scored.config, progress=False)
    chunks = list(collection.chunks())
    qrels = evalset.qrels_for(chunks)
    probabilities = chunk_probabilities(
        [(c.chunk_id, c.doc_id, c.start, c.end) for c in chunks],
        {q: s for q, s in filled.items() if q in evalset.dataset.queries})
    results = {o.qid: o.ranking for o in scored.run.outcomes if o.error is None}
    return filled_scores(scored.label, qrels, results, probabilities, depth)
