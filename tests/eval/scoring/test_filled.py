"""Human + judge-filled nDCG: with certain fills it is plain nDCG on the completed labels (checked
against eval's metric), a human label is never replaced by a fill, and the judge's doubt widens
the interval."""

from __future__ import annotations

import pytest

from eval.data.qa import Span
from eval.scoring.filled import chunk_probabilities, filled_scores
from eval.scoring.metrics import parse_metric, query_metrics

RESULTS = {f"q{i}": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0} for i in range(12)}


def test_certain_fills_give_plain_ndcg_on_the_completed_labels() -> None:
    human = {q: {"a": 0, "d": 1} for q in RESULTS}
    fill = {q: {"b": 1.0, "c": 0.0} for q in RESULTS}
    got = filled_scores("s", human, RESULTS, fill, draws=20, resamples=50)
    want = query_metrics({"a": 0, "b": 1, "c": 0, "d": 1}, RESULTS["q0"],
                         [parse_metric("ndcg@10")])["ndcg@10"]
    assert got.ndcg == pytest.approx(want) and got.low == pytest.approx(want)
    assert got.filled_share == pytest.approx(0.5) and got.unfilled_share == 0.0


def test_a_human_label_is_never_replaced_by_a_fill() -> None:
    human = {q: {"a": 1} for q in RESULTS}
    fill = {q: {"a": 0.0, "b": 0.0} for q in RESULTS}  # the judge disagrees on "a"
    assert filled_scores("s", human, RESULTS, fill, draws=10, resamples=20).ndcg == 1.0


def test_the_judges_doubt_widens_the_interval() -> None:
    human = {q: {"b": 1} for q in RESULTS}
    sure = filled_scores("s", human, RESULTS, {q: {"a": 1.0} for q in RESULTS})
    unsure = filled_scores("s", human, RESULTS, {q: {"a": 0.5} for q in RESULTS})
    assert sure.high - sure.low == pytest.approx(0.0)
    assert unsure.high - unsure.low > 0.05


def test_chunks_take_the_largest_probability_of_the_fills_they_overlap() -> None:
    chunks = [("c1", "doc", 0, 100), ("c2", "doc", 100, 200), ("c3", "other", 0, 50)]
    fill = {"q": [(Span("doc", 50, 150, ""), 0.3), (Span("doc", 90, 95, ""), 0.8)]}
    assert chunk_probabilities(chunks, fill) == {"q": {"c1": 0.8, "c2": 0.3}}
