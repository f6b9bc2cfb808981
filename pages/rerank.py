"""Rerank: the fused candidates before and after a reranker, how ranks moved, the score
distribution against the threshold, and pairs scored per second. The window is scored once
(cached); policy, normalization, top-n and threshold only re-apply rag.rerank.finish."""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from pages.ui import resources
from pages.ui import retrieval as retrieval_view
from pages.ui.figures import rank_movement
from pages.ui.rerank_view import movement_table, rank_maps, ranked_table, score_histogram
from pages.ui.state import session_cache
from rag.config import config_from_dict
from rag.rerank import RerankConfig, RerankUnavailable, build_scorer
from rag.rerank.policies import NORMALIZERS, POLICIES
from rag.rerank.rerank import finish, score_window
from rag.rerank.stage import rerank_chat
from rag.retrieve.fuse_filter import fuse_and_filter
from rag.retrieve.search import list_settings_hash, retrieve_candidates

DEFAULT_QUERY = "What happens when the same paragraph is edited on two devices?"


def controls(defaults: RerankConfig) -> tuple[dict[str, object], int]:
    """The reranker settings (raw, validated by the caller) and the window size to score."""
    row = st.columns([1, 3])
    method = row[0].selectbox("Reranker", ["cross_encoder", "llm"],
                              index=["cross_encoder", "llm"].index(defaults.method), key="rr_method")
    model = row[1].text_input(
        "Cross-encoder (rerank.model: hub name or local folder)", defaults.model or "",
        key="rr_model", disabled=method != "cross_encoder",
        help="No cross-encoder ships on PyPI: point this at a downloaded model folder.")
    row = st.columns(4)
    window = row[0].slider("Candidates to rerank", 2, 60, min(defaults.depth, 60), key="rr_window",
                           help="IntelliDocs over-fetches 3 × top-n before reranking")
    top_n = row[1].slider("Keep top-n", 1, 30, min(defaults.top_n, 30), key="rr_top_n")
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
    raw = {**defaults.model_dump(), "enabled": True, "method": method, "model": model or None,
           "top_n": top_n, "overfetch": 1, "policy": policy, "normalization": normalization,
           "blend_weight": blend, "threshold": threshold if use else None,
           "threshold_fallback": fallback}
    return raw, window


st.title("Rerank")
collection, preset = resources.require_collection_and_preset("rr_")
fetch = retrieval_view.fetch_config(preset, collection.manifest.settings)
query = st.text_input("Query", DEFAULT_QUERY, key="rr_query")
raw, window = controls(preset.rerank)
try:
    settings = RerankConfig.model_validate(raw)
except ValidationError as exc:
    st.error(str(exc))
    st.stop()
if not query.strip():
    st.stop()

cache = session_cache(st.session_state, "rr_results", max_entries=16)
key = (collection.name, collection.manifest.updated_at, query, list_settings_hash(fetch))
with st.spinner("Retrieving (the first query loads the embedding model)…"):
    lists = cache.get_or_compute(key, lambda: retrieve_candidates(query, fetch, collection))
fused = fuse_and_filter(lists, fetch, query=query).filtered
config = config_from_dict({**preset.model_dump(mode="json"), "rerank": settings.model_dump()})
try:
    scorer = build_scorer(settings, rerank_chat(config) if settings.method == "llm" else None)
except RerankUnavailable as exc:
    st.warning(f"Rerank skipped: {exc}")
    st.dataframe(ranked_table(fused[:window], retrieval_view.labels(fused)), hide_index=True)
    st.stop()
score_key = ("score", settings.method, settings.model, settings.max_length, query,
             tuple(c.chunk_id for c in fused[:window]))
with st.spinner(f"Scoring {min(window, len(fused))} pairs with {scorer.model}…"):
    scored = cache.get_or_compute(score_key,
                                  lambda: score_window(query, fused, settings, scorer, window))
result = finish(scored, settings)

if result.status == "ok":
    st.success(f"Reranked {result.pairs} candidates with {scorer.model}.")
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
