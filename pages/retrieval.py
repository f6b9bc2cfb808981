"""Retrieval: BM25, dense and fused rankings side by side for one query. The head of the run
(guard … retrieve) is fetched once and cached; every control below only re-runs the pipeline's
tail — fuse → postprocess → authority → select — over the cached lists (rag.pipeline.run_tail)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

import streamlit as st

from pages.ui import resources
from pages.ui import retrieval as view
from pages.ui.answer_examples import opening_question
from pages.ui.entry import through_app
from pages.ui.figures import rank_movement, score_breakdown
from pages.ui.html import highlight_terms
from pages.ui.run_status import show_stopped
from pages.ui.state import session_cache
from pages.ui.tables import breakdown_frame, ranked_frame
from rag.index import Candidate
from rag.pipeline import head_key, run_head, run_tail
from rag.rerank import RerankResult
from rag.retrieve import FUSION, AuthorityResult, FuseOutput, PostprocessOutput, SelectOutput

through_app()  # a page opened by its address still runs inside app.py

DEFAULT_QUERY = "How are sync conflicts resolved?"


def controls(defaults: view.FusionControls) -> view.FusionControls:
    """The fusion controls, starting at the preset's values."""
    methods = FUSION.names()
    row = st.columns(4)
    method = row[0].selectbox("Fusion method", methods, index=methods.index(defaults.method),
                              key="ret_method")
    k = row[1].slider("RRF k", 1, view.RRF_K_MAX, defaults.k, key="ret_k",
                      disabled=method not in view.USES_K, help="rrf, weighted_rrf")
    alpha = row[2].slider("alpha (dense share)", 0.0, 1.0, defaults.alpha, 0.05, key="ret_alpha",
                          disabled=method not in view.USES_ALPHA, help="relative_score, convex")
    depth = row[3].slider("Depth per retriever", 5, view.MAX_DEPTH, defaults.depth, 5,
                          key="ret_depth")
    row = st.columns(4)
    weights = {name: row[i].slider(f"weight {name}", 0.0, 1.0, float(defaults.weights[name]), 0.05,
                                   key=f"ret_w_{name}", disabled=method not in view.USES_WEIGHTS,
                                   help="weighted_rrf")
               for i, name in enumerate(defaults.weights)}
    top_k = row[2].slider("top-k", 1, 50, min(defaults.top_k, 50), key="ret_top_k")
    with row[3]:
        use = st.toggle("Score threshold", defaults.threshold is not None, key="ret_use_threshold")
        value = st.number_input("threshold", 0.0, None, defaults.threshold or 0.0, 0.001,
                                format="%.4f", key="ret_threshold", disabled=not use,
                                label_visibility="collapsed")
    return view.FusionControls(method, k, weights, alpha, depth, top_k, value if use else None,
                               defaults.threshold_on)


def ranked_columns(lists: Mapping[str, Sequence[Candidate]], labels: dict[str, str]) -> None:
    """Rank, score and chunk per list (the text is read in full below, one expander per row)."""
    for column, (name, candidates) in zip(st.columns(len(lists)), lists.items(), strict=True):
        column.markdown(f"**{view.TITLES.get(name, name)}** top {len(candidates)}")
        column.dataframe(ranked_frame(candidates, labels).drop(columns="text"), width="stretch",
                         hide_index=True,
                         column_config={"score": st.column_config.NumberColumn(format="%.4f")})


def read_ranking(candidates: Sequence[Candidate], labels: dict[str, str], terms: list[str]) -> None:
    """The final ranking's chunks in full, query terms marked: one expander per row."""
    st.subheader("Read the final ranking")
    for rank, candidate in enumerate(candidates, start=1):
        with st.expander(f"#{rank} · {labels[candidate.chunk_id]} · score {candidate.score:.4f}",
                         expanded=rank == 1):
            st.html(highlight_terms(candidate.chunk.text, terms))
            st.dataframe(breakdown_frame(candidate), width="stretch", hide_index=True)


st.title("Retrieval")
st.caption("Compare BM25, dense and fused rankings for one query: type a question, then move the "
           "fusion controls — the cached lists are re-fused, nothing is searched again.")
collection, preset = resources.require_collection_and_preset("ret_")
fetch = view.fetch_config(preset, collection.name)
index = resources.index_of(collection, fetch)
st.caption(f"Collection **{collection.name}** · preset **{preset.name}**, all of it: "
           f"{resources.index_line(index)}; fusion and filters below.")
query = st.text_input("Query", opening_question(collection, DEFAULT_QUERY), key="ret_query")
if not query.strip():
    st.stop()

cache = session_cache(st.session_state, "ret_lists", max_entries=16)
user = resources.session_user()
resources.searching_as(user)
key = (index.name, index.version, query, head_key(fetch), user)
with st.spinner("Retrieving (the first query loads the embedding model)…"):
    head = cache.get_or_compute(key, partial(run_head, query, fetch, index, user=user))
show_stopped(head.trace)
live = controls(view.controls_from(preset))
try:
    config = view.fusion_config(fetch, live)
except ValueError as exc:
    st.error(str(exc))
    st.stop()
tail = run_tail(head.state, config, index, depth=live.depth, user=user)
show_stopped(tail.trace)
fused = tail.trace.output(FuseOutput)
top = tail.trace.output(SelectOutput)
if fused is None or top is None:
    st.stop()
st.session_state["ret_trace"] = tail.trace  # what the page shows is this run of the preset's tail
cut = {name: r.candidates[:live.depth] for name, r in head.state.lists.items()}
st.caption(f"Re-fused {sum(len(c) for c in cut.values())} cached candidates · "
           f"searches run this session: {cache.misses}")

labels = view.labels(*cut.values(), fused.candidates)
tops = {name: found[:live.top_k] for name, found in cut.items()} | {"fused": top.candidates}
ranked_columns(tops, labels)
ranks, shown = view.movement(cut, fused.candidates, live.top_k)
left, right = st.columns(2)
cap = max(live.top_k * 2, 10)
movers = view.top_movers(ranks, shown, cap)
left.plotly_chart(rank_movement(ranks, movers, labels, cap), width="stretch")
left.caption(f"The {len(movers)} candidates whose rank moved most between the lists and the "
             "final ranking.")
right.plotly_chart(score_breakdown(fused.candidates[:live.top_k], labels,
                                   view.threshold_line(live)), width="stretch")
post = tail.trace.output(PostprocessOutput)
for step in post.steps if post is not None else ():
    if step.removed or step.status not in ("ok", "skipped"):
        st.info(f"{step.step}: {step.status} — removed {len(step.removed)} {step.reason}")
authority = tail.trace.output(AuthorityResult)
if authority is not None and authority.moved:
    st.info(f"authority: {len(authority.moved)} document chunk(s) ranked before a tied transcript")
reranked = tail.trace.output(RerankResult)
if reranked is not None and reranked.status != "skipped":
    st.info(f"The preset reranks: the final column is after {reranked.path} rerank "
            "(the Rerank page shows it in detail).")
st.download_button("Download trace (JSON)", tail.trace.to_json(), "retrieval-trace.json",
                   "application/json", key="ret_download_trace", icon=":material/download:")

terms = view.query_terms(query, index.settings.get("index", {}).get("tokenizer"))
read_ranking(top.candidates, labels, terms)
