"""What the learned judge knows about a passage from the person's labels on the other passages
of its question (eval.judging.features.context_features), including judge7's same-source
features: a passage from the page (documents) or document (spans) of a passage judged relevant."""

from __future__ import annotations

import numpy as np

from eval.judging.features import CONTEXT_NAMES, context_features
from eval.judging.sim_pool import RankedHit, build_pool
from eval.judging.simulate import fill_probabilities


def _pages(questions: int = 1):
    """Each question: four passages, two from page P{q} (its answer's page), two from others."""
    hits = {"s": {f"q{q}": [RankedHit(f"d{q}-{k}", 0, 0, f"text {q} {k}", 1.0 - k / 10,
                                      title=f"P{q}" if k < 2 else f"other {q} {k}")
                            for k in range(4)] for q in range(questions)}}
    pool = build_pool({f"q{q}": "?" for q in range(questions)}, hits, 10)
    return pool, {item.doc: i for i, item in enumerate(pool.items)}


def test_a_passage_from_the_page_of_a_relevant_one_is_marked_never_by_its_own_label() -> None:
    pool, at = _pages()
    x = context_features(pool, {at["d0-0"]: 1, at["d0-2"]: 0})
    rel, non = CONTEXT_NAMES.index("same_source_judged_relevant"), \
        CONTEXT_NAMES.index("same_source_judged_not_relevant")
    assert x[at["d0-1"], rel] == 1.0  # beside the relevant d0-0
    assert x[at["d0-0"], rel] == 0.0  # its own label does not count
    assert x[at["d0-3"], rel] == 0.0 and x[at["d0-3"], non] == 0.0  # another page
    assert not context_features(pool, {})[:, rel:].any()


def test_spans_share_a_source_when_they_share_a_document() -> None:
    hits = {"s": {"q": [RankedHit("a", 0, 100, "x", 1.0), RankedHit("a", 500, 600, "y", 0.9),
                        RankedHit("b", 0, 100, "z", 0.8)]}}
    pool = build_pool({"q": "?"}, hits, 10, unit="span")
    first = pool.runs["s"]["q"]
    x = context_features(pool, {first[0]: 1})
    assert x[first[1], 2] == 1.0 and x[first[2], 2] == 0.0


def test_the_judge_learns_that_a_found_answers_page_holds_more_of_it() -> None:
    pool, at = _pages(12)
    # q0–q10 judged, every other one without the second passage of its answer's page; q11:
    # its first relevant passage found, its sibling and the two others unjudged
    judged = {i: int(item.title.startswith("P")) for i, item in enumerate(pool.items)
              if item.qid != "q11" and not (item.doc.endswith("-1") and int(item.qid[1:]) % 2)}
    judged[at["d11-0"]] = 1
    features = np.zeros((len(pool), 1))  # nothing else tells the passages apart
    p = fill_probabilities(pool, features, judged, "logistic", 0)
    assert p is not None
    assert p[at["d11-1"]] > 0.5 > p[at["d11-2"]]
