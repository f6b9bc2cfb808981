"""Rerank: the fused candidates before and after a reranker, how ranks moved, the score
distribution against the threshold, and pairs scored per second. The head of the run is cached;
each control re-runs the pipeline's tail (fuse … rerank … select) over it, and the rerank stage
reuses the scores of a window it has scored before, so only policy, threshold and top-n re-apply."""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from pages.ui import resources
from pages.ui import retrieval as retrieval_view
from pages.ui.answer_examples import opening_question
from pages.ui.configs import page_config
from pages.ui.entry import through_app
from pages.ui.figures import rank_movement
from pages.ui.rerank_view import movement_table, rank_maps, ranked_table, score_histogram
from pages.ui.run_status import show_stopped
from pages.ui.state import session_cache
from rag.pipeline import head_key, run_head, run_tail
from rag.rerank import NORMALIZERS, POLICIES, SCORERS, RerankConfig, RerankResult, offline_default

through_app()  # a page opened by its address still runs inside app.py

DEFAULT_QUERY = "What happens when the same paragraph is edited on two devices?"


def controls(defaults: RerankConfig) -> dict[str, object]:
    """The reranker settings, starting at the preset's (raw, validated by the caller)."""
    row = st.columns([1, 1, 3])
    enabled = row[0].toggle("Rerank", defaults.enabled, key="rr_enabled",
                            help="rerank.enabled: the preset's value")
    methods = SCORERS.names()
    method = row[1].selectbox("Reranker", methods, index=methods.index(defaults.method),
                              key="rr_method")
    model = row[2].text_input(
        "Cross-encoder (rerank.model: hub name or local folder)", defaults.model or "",
        key="rr_model", disabled=method != "cross_encoder",
        help="No cross-encoder ships on PyPI: point this at a downloaded model folder.")
    row = st.columns(4)
    top_n = row[0].slider("Keep top-n", 1, 30, min(defaults.top_n, 30), key="rr_top_n")
    overfetch = row[1].slider("Over-fetch ×", 1, 10, min(defaults.overfetch, 10), key="rr_overfetch",
                              help=f"reranks top-n × this many fused candidates "
                                   f"(IntelliDocs: × 3); now {top_n} × …")
    policy = row[2].selectbox("Score policy", POLICIES.names(),
                              index=POLICIES.names().index(defaults.policy), key="rr_policy")
    normalizations = ["auto", *NORMALIZERS.names()]
    normalization = row[3].selectbox("Normalization", normalizations,
                                     index=normalizations.index(defaults.normalization),
                                     key="rr_normalization")
    row = st.columns(4)
    blend = row[0].slider("Blend weight", 0.0, 1.0, defaults.blend_weight, 0.05, key="rr_blend",
                          disabled=policy != "blend")
    use = row[1].toggle("Threshold", defaults.threshold is not None, key="rr_use_threshold")
    threshold = row[2].slider("threshold", 0.0, 1.0, defaults.threshold or 0.3, 0.01,
                              key="rr_threshold", disabled=not use)
    fallback = row[3].checkbox("Fall back to top-n when nothing passes", defaults.threshold_fallback,
                               key="rr_fallback")
    return {"rerank.enabled": enabled, "rerank.method": method, "rerank.model": model or None,
            "rerank.top_n": top_n, "rerank.overfetch": overfetch, "rerank.policy": policy,
            "rerank.normalization": normalization, "rerank.blend_weight": blend,
            "rerank.threshold": threshold if use else None, "rerank.threshold_fallback": fallback}


st.title("Rerank")
st.caption("See what a reranker changes in the fused list: type a query, then move the threshold "
           "and the score policy (the expensive scores are computed once).")
collection, preset = resources.require_collection_and_preset("rr_")
fetch = retrieval_view.fetch_config(preset, collection.name)
index = resources.index_of(collection, fetch)
st.caption(f"Collection **{collection.name}** · preset **{preset.name}** (change them in the "
           f"sidebar) · {resources.index_line(index)}")
query = st.text_input("Query", opening_question(collection, DEFAULT_QUERY), key="rr_query")
starting, offline_note = offline_default(preset.rerank)
if offline_note:
    st.caption(offline_note)
try:
    config = page_config(preset, collection.name, controls(starting))
except (ValidationError, ValueError) as exc:
    st.error(str(exc))
    st.stop()
if not query.strip():
    st.stop()

cache = session_cache(st.session_state, "rr_results", max_entries=16)
user = resources.session_user()
resources.searching_as(user)
key = (index.name, index.version, query, head_key(fetch), user)
with st.spinner("Retrieving (the first query loads the embedding model)…"):
    head = cache.get_or_compute(key, lambda: run_head(query, fetch, index, user=user))
show_stopped(head.trace)
with st.spinner(f"Reranking {config.rerank.depth} candidates…"):
    tail = run_tail(head.state, config, index, depth=config.retrieval.depth,
                    user=user)
show_stopped(tail.trace)
st.session_state["rr_trace"] = tail.trace
result = tail.trace.output(RerankResult)
if result is None:
    record = tail.trace.stage("rerank")
    st.info(f"Rerank did not run: {record.reason if record else 'not reached'}. Turn it on above.")
    st.stop()
if result.status == "skipped":
    st.warning(f"Rerank cannot run here: {result.reason} Showing the fused candidates with "
               "their first-stage scores.")
    st.dataframe(ranked_table(result.before, retrieval_view.labels(result.before)),
                 hide_index=True, width="stretch")
    st.stop()
if result.status == "ok":
    st.success(f"Reranked {result.pairs} candidates ({result.path}).")
else:
    st.warning(f"{result.status}: {result.reason}")
row = st.columns(4)
row[0].metric("Pairs scored", result.pairs)
row[1].metric("Pairs / second", f"{result.pairs_per_second:.1f}" if result.pairs_per_second else "–")
row[2].metric("Kept", len(result.after))
row[3].metric("Cut", len(result.dropped))

labels = retrieval_view.labels(result.before)
left, right = st.columns(2)
left.markdown("**Before** (fused order)")
left.dataframe(ranked_table(result.before, labels), hide_index=True, width="stretch")
right.markdown(f"**After** ({result.path}, policy {result.policy})")
right.dataframe(ranked_table(result.after, labels), hide_index=True, width="stretch")
left, right = st.columns(2)
shown = [c.chunk_id for c in result.before]
left.plotly_chart(rank_movement(rank_maps(result), shown, labels, cap=len(shown)), width="stretch")
right.plotly_chart(score_histogram(result), width="stretch")
with st.expander("Rank movement table"):
    st.dataframe(movement_table(result, labels), hide_index=True, width="stretch")
