"""The offline checks measured on datasets/grounding_labels.jsonl (≥ 60 labeled sentences).

Floors are modest and justified: a flagger that flags at random at the set's base rate gets
precision = base rate (~0.45) — the checks must beat that clearly; and the lexical layer must
catch at least the fabricated and off-topic sentences, which share almost no words with the context.
"""

from __future__ import annotations

import pytest

from rag.grounding.evaluate import evaluate_checks, load_labels


def test_the_labeled_set_is_big_balanced_and_self_contained() -> None:
    items = load_labels()
    assert len(items) >= 60
    unsupported = sum(i.label == "unsupported" for i in items)
    assert 0.3 <= unsupported / len(items) <= 0.7
    assert all(i.context and i.sentence and i.label in ("supported", "unsupported") for i in items)
    assert len({i.id for i in items}) == len(items)


def test_lexical_checks_beat_the_base_rate() -> None:
    items = load_labels()
    base_rate = sum(i.label == "unsupported" for i in items) / len(items)
    lenient, numbers, strict = evaluate_checks(items)
    assert lenient.precision > base_rate + 0.3 and lenient.recall > 0.3
    assert numbers.recall > lenient.recall and numbers.precision >= lenient.precision - 0.05
    assert strict.recall > numbers.recall and strict.precision < numbers.precision  # the trade-off
    for score in (lenient, numbers):
        assert score.flag_rate_by_kind["fabricated"] == 1.0 and score.flag_rate_by_kind["off_topic"] == 1.0
        assert score.flag_rate_by_kind["verbatim"] == 0.0


@pytest.mark.slow
def test_the_offline_default_with_minilm_beats_the_base_rate() -> None:
    from rag.grounding.model_checks import default_embedder

    items = load_labels()
    base_rate = sum(i.label == "unsupported" for i in items) / len(items)
    scores = {s.check: s for s in evaluate_checks(items, default_embedder())}
    offline = scores["lexical + embedding (offline default)"]
    assert offline.precision > base_rate + 0.3 and offline.recall > 0.5
    assert offline.f1 >= scores["lexical (< 0.3 flagged)"].f1
