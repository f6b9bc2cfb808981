"""The Judge page's judging order: by default the passage whose label is worth most now, picked
across every question by a strategy (eval.judging.strategies.answer_seek: likely relevant where a
label moves nDCG@10, and questions with no relevant passage yet searched further);
`judge_uncertainty`, `ndcg_gain` and pool order stay selectable.
Logic is eval.judging.live; this pools, steers and reports."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from eval.judging.filled import with_judge_fill
from eval.judging.live import live_pool, next_passage
from eval.judging.pool import pool_question
from eval.judging.store import JudgingStore, Snapshot
from eval.judging.strategies.base import DEFAULT_STRATEGY, STRATEGIES
from pages.ui.judge_fit import PageJudge, current_judge
from pages.ui.judge_view import ADVANCE, QID, searchers_for

ORDER = "judge_order"
POOL_ORDER = "pool order"


# Shown instead of the registry name (the default's label is first in the list).
ORDER_LABELS = {
    DEFAULT_STRATEGY: "most useful next (likely relevant where it moves nDCG@10; keeps looking "
                      "in questions with no relevant passage yet)",
    "judge_uncertainty": "learned judge's uncertainty (bandit until it exists)",
    "ndcg_gain": "likely relevant where it moves nDCG@10 most (for judging under ~15 % of "
                 "the pool)",
}


def order_label(name: str) -> str:
    return ORDER_LABELS.get(name, name.replace("_", " "))


def order_control() -> str | None:
    """The strategy chosen (None: pool order, question by question)."""
    names = [DEFAULT_STRATEGY, *(n for n in STRATEGIES.names() if n != DEFAULT_STRATEGY),
             POOL_ORDER]
    choice = st.selectbox(
        "Judging order", names, key=ORDER, format_func=order_label,
        help="Which passage comes next. The default picks, across every question, the likely "
             "relevant passage whose label moves the scores most, and keeps asking in questions "
             "where nothing relevant is found yet; 'likely relevant…' (ndcg_gain) did better "
             "when a tenth of the pool is judged, not at a fifth (docs/judging.md); 'pool "
             "order' goes question by question.")
    return None if choice == POOL_ORDER else choice


def pool_all(store: JudgingStore, snap: Snapshot, collection: str, systems: Sequence[str],
             depth: int) -> bool:
    """Whether every open question is pooled; if not, a button pools the rest (once, with
    progress: eight systems over every question can take a minute). Until then the page goes
    question by question."""
    todo = [q for q in snap.questions if not (q.dropped or q.unanswerable)
            and not snap.pool(q.qid)]
    if not todo:
        return True
    st.info(f"To pick the most useful passage across questions, every question is pooled first: "
            f"{len(todo)} not yet. Until then the page goes question by question.")
    if not systems or not st.button(f"Pool all {len(todo)} questions", key="judge_pool_all",
                                    icon=":material/playlist_add:"):
        return False
    searchers = searchers_for(collection, systems)
    bar = st.progress(0.0, text=f"Pooling {len(todo)} questions (once)…")
    for i, q in enumerate(todo, start=1):
        store.add_pool(q.qid, pool_question(q.question, searchers, depth).passages)
        bar.progress(i / len(todo), text=f"Pooling question {i} of {len(todo)}…")
    bar.empty()
    return True


def steer(snap: Snapshot, collection: str, set_key: str, strategy: str) -> PageJudge:
    """Fit the judge, and when a key asked for the next passage (or none is chosen yet) move the
    page to the one the strategy picks (with the last finished fit's probabilities)."""
    live = live_pool(snap)
    judge = current_judge(collection, set_key, live)
    if st.session_state.pop(ADVANCE, False) or st.session_state.get("judge_steered") != set_key:
        st.session_state["judge_steered"] = set_key
        picked = next_passage(live, strategy, judge.state.probabilities)
        if picked is not None:
            qid, key = picked
            st.session_state[QID] = qid
            keys = [p.key for p in snap.pool(qid)]
            st.session_state[f"judge_pos_{qid}"] = keys.index(key)
    return judge


def report(judge: PageJudge, live_labels: int) -> None:
    """The judge's out-of-fold agreement with the person, or what it still needs; whether a
    refit is running (the page uses the last finished one meanwhile)."""
    a = judge.state.agreement
    status = ""
    if judge.busy:
        status = (" · judge refitting… (the order and fill use the fit on "
                  f"{judge.fit.labels if judge.fit else 0} labels until it finishes)")
    if judge.error:
        st.warning(f"The last refit failed ({judge.error}); the previous fit is used.")
    if judge.choice is not None:
        st.caption(judge.choice.describe() + (" · comparing again…" if judge.comparing else ""))
    elif judge.comparing:
        st.caption("Comparing the feature judge with the MiniLM cross-encoder on your labels "
                   "(in the background; the cross-encoder reads each pooled pair once)…")
    if a is None:
        st.caption(f"Learned judge: not yet — it needs a few relevant and a few not-relevant "
                   f"labels ({live_labels} so far); until then the order works from the systems' "
                   f"rankings alone (the default: bandit pooling).{status}")
        return
    st.caption(f"Learned judge ({a.model}, {len(judge.state.features)} features) agrees with "
               f"your {a.labels} labels out of fold ({a.folds} folds by question): Cohen's κ "
               f"{a.kappa:.2f}, precision {a.precision:.2f}, recall {a.recall:.2f} of "
               f"\"relevant\". It fills only passages nobody judged.{status}")


def judge_fill(snap: Snapshot, judge: PageJudge | None):  # noqa: ANN201
    """What "Save" adds: the judge's probability for every unjudged pooled passage, from the
    last finished fit (the export is drawn on every run, so it never waits for a refit; a
    passage labelled since is the person's, never filled)."""
    if judge is None or judge.state.probabilities is None:
        return None
    live = live_pool(snap)
    return lambda rows: with_judge_fill(rows, live, judge.state)
