"""The Judge page's live pool: stored pools and labels as a JudgingPool, skips not learned from,
a question said judged offers no more passages, the next pick is never a labelled passage."""

from __future__ import annotations

from pathlib import Path

from eval.judging.live import fit_judge, live_pool, next_passage
from eval.judging.store import JudgingStore, Passage


def _store(tmp_path: Path) -> JudgingStore:
    store = JudgingStore(tmp_path / "set.sqlite")
    store.add_questions([{"id": f"q{i}", "question": f"how to configure thing{i}"}
                         for i in range(4)])
    for i in range(4):
        store.add_pool(f"q{i}", [
            Passage("d", 100 * i + 10 * j, 100 * i + 10 * j + 5,
                    f"configure thing{i}" if j == 0 else "unrelated text",
                    {"bm25": j + 1, "dense": 5 - j}) for j in range(5)])
    return store


def test_labels_become_the_live_pool_and_skips_are_not_learned(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.judge("q0", ("d", 0, 5), "relevant", "s")
    store.judge("q0", ("d", 10, 15), "skip", "s")
    live = live_pool(store.snapshot())
    assert len(live.pool) == 20 and set(live.pool.systems) == {"bm25", "dense"}
    assert sorted(live.judged.values()) == [0, 1] and list(live.trained.values()) == [1]
    assert live.pool.runs["bm25"]["q1"][0] == live.index()[("q1", ("d", 100, 105))]


def test_a_question_said_judged_offers_only_its_judged_passages(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.judge("q2", ("d", 200, 205), "relevant", "s")
    store.edit("q2", "done", True, "s")
    store.edit("q3", "dropped", True, "s")
    live = live_pool(store.snapshot())
    assert [w for w in live.where if w[0] == "q2"] == [("q2", ("d", 200, 205))]
    assert not any(w[0] == "q3" for w in live.where)


def test_the_next_pick_is_never_labelled_and_the_judge_waits_for_both_kinds(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for step in range(15):
        live = live_pool(store.snapshot())
        judge = fit_judge(live)
        picked = next_passage(live, "judge_uncertainty", judge.probabilities)
        assert picked is not None
        qid, key = picked
        assert key not in store.labels(qid).get(qid, {})
        relevant = key[1] % 100 == 0
        store.judge(qid, key, "relevant" if relevant else "not_relevant", "s")
        if step == 0:
            assert judge.agreement is None and judge.probabilities is None
    judge = fit_judge(live_pool(store.snapshot()))
    assert judge.agreement is not None and judge.probabilities is not None
