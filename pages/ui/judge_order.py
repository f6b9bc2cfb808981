"""The Judge page's judging order: by default the passage whose label is worth most now, picked
across every question by a strategy (eval.judging.strategies: multi-armed-bandit pooling until
the learned judge exists, then its uncertainty weighted by the passage's weight in nDCG@10);
pool order stays available. Logic is eval.judging.live; this pools, steers and reports."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from eval.judging.live import (
    JudgeState,
    LivePool,
    fit_judge,
    live_pool,
    next_passage,
    pool_features,
)
from eval.judging.pool import pool_question
from eval.judging.store import JudgingStore, Question, Snapshot
from eval.judging.strategies.base import DEFAULT_STRATEGY, STRATEGIES
from pages.ui.judge_view import ADVANCE, QID, searchers_for
from pages.ui.state import session_cache
from rag.config import load_preset
from rag.embed import get_embedder

ORDER = "judge_order"
POOL_ORDER = "pool order"


def order_control() -> str | None:
    """The strategy chosen (None: pool order, question by question)."""
    names = [DEFAULT_STRATEGY, *(n for n in STRATEGIES.names() if n != DEFAULT_STRATEGY),
             POOL_ORDER]
    choice = st.selectbox(
        "Judging order", names, key=ORDER,
        format_func=lambda n: "most useful next (learned judge's uncertainty; bandit until it "
                              "exists)" if n == DEFAULT_STRATEGY else n.replace("_", " "),
        help="Which passage comes next. The default picks, across every question, the one whose "
             "label moves the scores most; 'pool order' goes question by question.")
    return None if choice == POOL_ORDER else choice


def pool_all(store: JudgingStore, collection: str, questions: Sequence[Question],
             systems: Sequence[str], depth: int) -> bool:
    """Pool every open question not pooled yet (once, with progress). False: nothing to pool with."""
    todo = [q for q in questions if not (q.dropped or q.unanswerable) and not store.has_pool(q.qid)]
    if not todo:
        return True
    if not systems:
        return False
    searchers = searchers_for(collection, systems)
    bar = st.progress(0.0, text=f"Pooling {len(todo)} questions (once)…")
    for i, q in enumerate(todo, start=1):
        store.add_pool(q.qid, pool_question(q.question, searchers, depth).passages)
        bar.progress(i / len(todo), text=f"Pooling question {i} of {len(todo)}…")
    bar.empty()
    return True


def _judge(set_key: str, live: LivePool) -> JudgeState:
    """The judge refitted on every new label (a fit with its cross-validation takes tens of
    milliseconds); the features are computed once per pool."""
    features = session_cache(st.session_state, "judge_features", max_entries=2).get_or_compute(
        (set_key, live.where), lambda: pool_features(
            live, get_embedder(load_preset("dense").embedding)))
    fits = session_cache(st.session_state, "judge_fits", max_entries=4)
    return fits.get_or_compute((set_key, live.where, tuple(live.trained.items())),
                               lambda: fit_judge(live, features))


def steer(snap: Snapshot, set_key: str, strategy: str) -> JudgeState:
    """Fit the judge, and when a key asked for the next passage (or none is chosen yet) move the
    page to the one the strategy picks."""
    live = live_pool(snap)
    judge = _judge(set_key, live)
    if st.session_state.pop(ADVANCE, False) or st.session_state.get("judge_steered") != set_key:
        st.session_state["judge_steered"] = set_key
        picked = next_passage(live, strategy, judge.probabilities)
        if picked is not None:
            qid, key = picked
            st.session_state[QID] = qid
            keys = [p.key for p in snap.pool(qid)]
            st.session_state[f"judge_pos_{qid}"] = keys.index(key)
    return judge


def report(judge: JudgeState, live_labels: int) -> None:
    """The judge's out-of-fold agreement with the person, or what it still needs."""
    a = judge.agreement
    if a is None:
        st.caption(f"Learned judge: not yet — it needs a few relevant and a few not-relevant "
                   f"labels ({live_labels} so far); until then the bandit picks.")
        return
    st.caption(f"Learned judge ({a.model}, {len(judge.features)} features) agrees with your "
               f"{a.labels} labels out of fold ({a.folds} folds by question): Cohen's κ "
               f"{a.kappa:.2f}, precision {a.precision:.2f}, recall {a.recall:.2f} of "
               f"\"relevant\". It fills only passages nobody judged.")
