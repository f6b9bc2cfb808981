"""Judge: make a test set from the sidebar's collection, then judge it question by question — the
pooled top passages of several systems (TREC-style depth pooling, deduplicated by span), marked
relevant / not relevant / skip from the keyboard. Judgments are kept on disk per passage, so
judging resumes and two sessions never overwrite each other; export as QA JSONL or save the
judged set with the collection for Evaluate. All logic is eval.judging and eval.testsets."""

from __future__ import annotations

import streamlit as st

from eval.judging.export import judged_map, progress, seed_from_rows
from eval.judging.pool import DEFAULT_DEPTH, DEFAULT_SYSTEMS
from eval.judging.store import open_judging
from eval.testsets.store import list_sets, read_rows
from pages.ui import judge_order as order
from pages.ui import judge_view as view
from pages.ui.entry import through_app
from pages.ui.eval_sets import describe
from pages.ui.judge_keys import keep_shortcuts
from pages.ui.judge_scores import scores_so_far, simulation_figure
from pages.ui.mined_review import review_panel
from pages.ui.state import APP_COLLECTION, APP_PRESET
from pages.ui.testset_maker import make_set_panel
from rag.config import available_presets

through_app()  # a page opened by its address still runs inside app.py

st.title("Judge")
st.caption("Make a test set and judge its pooled passages (Y relevant · N not · S skip · D "
           "question done · J next): the most useful passage comes next, and a judge learned "
           "from your labels fills the rest.")

collection = st.session_state.get(APP_COLLECTION)
if not collection:
    st.info("Pick or build a collection in the sidebar (Documents ingests your files) first.")
    st.stop()
sets = {info.name: info for info in list_sets(collection)}
make_set_panel(collection, st.session_state.get(APP_PRESET), expanded=not sets)
if not sets:
    st.info(f"Collection **{collection}** has no test set yet: make one above.")
    st.stop()

row = st.columns([3, 2, 1])
set_name = row[0].selectbox("Test set", list(sets), key=view.SET,
                            format_func=lambda n: f"{n} — {describe(sets[n])}")
presets = available_presets()
systems = row[1].multiselect("Pooled systems", presets, key="judge_systems",
                             default=[s for s in DEFAULT_SYSTEMS if s in presets],
                             help="Each question's pool is the union of these presets' top "
                                  "passages, built the first time the question is shown")
depth = row[2].number_input("Depth", 1, 50, DEFAULT_DEPTH, key="judge_depth",
                            help="top passages per system (Evaluate scores the top 10: judging "
                                 "10 deep covers every system's scored passages)")

review_panel(collection, set_name)  # a mined set: read a sample before trusting it (issue 36)
store = open_judging(collection, set_name)
rows = read_rows(collection, set_name)
store.add_questions(rows)  # new rows only: judgments and edits stay
seed_from_rows(store, rows, f"saved:{view.session_id()}")  # a saved judged set shows its labels
snap = store.snapshot()  # one read: questions, pools, labels
questions, judged = list(snap.questions), judged_map(snap)
done = progress(snap)
st.progress(done.judged / max(done.total, 1),
            text=f"{done.describe()} · {done.relevant_found} with a relevant passage · "
                 f"{sum(len(v) for v in snap.labels.values())} passages judged")

strategy, judge = order.order_control(), None
if strategy is not None and order.pool_all(store, snap, collection, systems, int(depth)):
    snap = store.snapshot()
    judge = order.steer(snap, collection, set_name, strategy)
    order.report(judge, sum(len(v) for v in snap.labels.values()))
    scores_so_far(judge)
    simulation_figure()
q = view.pick_question(questions, judged)
view.edit_question(store, q, judged, questions)
keep_shortcuts("ynsjudkfx")  # k/f/x: the mined-questions review
if q.dropped:
    st.info("This question is dropped: it is left out of the export.")
elif q.unanswerable:
    st.info("Not answerable from these documents: it is exported as an abstention row "
            "(\"answerable\": false).")
else:
    if not snap.pool(q.qid):
        view.ensure_pool(store, collection, q, systems, int(depth))
        snap = store.snapshot()
    pool, labels = list(snap.pool(q.qid)), snap.labels_of(q.qid)
    if not pool:
        st.warning("Pick at least one system to pool." if not systems else
                   "No system returned a passage for this question.")
    else:
        view.judge_passage(store, q, pool, labels, questions, judged)
        with st.expander(f"The whole pool ({len(pool)} passages)"):
            st.dataframe(view.pool_frame(pool, labels), width="stretch", hide_index=True)

st.subheader("Export")
view.export_import(store, collection, set_name, order.judge_fill(snap, judge))
