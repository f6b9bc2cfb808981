"""Query Lab: what happens to a query before retrieval — guardrail verdict, intent (each layer),
class and route, rewrites and expansions, spelling, semantic cache. The page runs the pipeline's
own `guard → understand` slice with the preset's settings (the controls start from them). The
router's exemplars can be edited here and the router re-scored on datasets/intents.csv."""

from __future__ import annotations

from typing import Any

import streamlit as st
from pydantic import ValidationError

from eval.scoring.guard import (
    ATTACKS,
    BENIGN,
    HELDOUT_ATTACKS,
    HELDOUT_BENIGN,
    load_prompts,
    score_guard,
)
from pages.ui import query_view as view
from pages.ui import resources
from pages.ui.answer_examples import opening_question
from pages.ui.configs import page_config
from pages.ui.entry import through_app
from pages.ui.guard_verdicts import show_guard
from rag.config import with_overrides
from rag.index import pinned_for
from rag.pipeline import initial_state, run_slice
from rag.query import (
    EXEMPLARS,
    EXPANDERS,
    THRESHOLD_GRID,
    GuardVerdict,
    Understanding,
    calibrate,
    evaluate,
    load_labeled,
    semantic_cache,
    semantic_router,
    semantic_scores,
    sweep,
)
from rag.settings import QueryConfig

through_app()  # a page opened by its address still runs inside app.py

DEFAULT_QUERY = "what about the Team plan?"
DEFAULT_HISTORY = "user: How much storage does the Plus plan include?\nassistant: Plus adds 20 GB."


def options(defaults: QueryConfig) -> tuple[dict[str, object], Any]:
    """The understanding settings this page lets you change, each starting at the preset's, and
    where to show the threshold in use when leave-one-out picks it (None when the slider rules)."""
    row = st.columns(4)
    enabled = row[0].toggle("Query understanding", defaults.enabled, key="ql_enabled",
                            help="query.enabled: off in presets that search the query as typed")
    guard_on = row[1].toggle("Guardrails", defaults.guard.enabled, key="ql_guard")
    spell = row[2].toggle("Spell correction", defaults.spell.enabled, key="ql_spell")
    cache = row[3].toggle("Semantic cache", defaults.cache.enabled, key="ql_cache")
    row = st.columns([1, 1, 2])
    calibrated = row[1].toggle("Leave-one-out threshold", defaults.intent.calibrate_threshold,
                               key="ql_calibrate", help="pick the embedder's own threshold")
    slot = row[0].empty()  # with leave-one-out on, the threshold in use is shown here after the run
    threshold = (st.session_state.get("ql_threshold", defaults.intent.semantic_threshold)
                 if calibrated else
                 slot.slider("Semantic threshold", 0.0, 1.0, defaults.intent.semantic_threshold,
                             0.01, key="ql_threshold", help="Axiom: 0.85 (for bge-small)"))
    methods = row[2].multiselect("Expansions", EXPANDERS.names(), list(defaults.expand.methods),
                                 key="ql_expand")
    return {"query.enabled": enabled, "query.guard.enabled": guard_on,
            "query.spell.enabled": spell, "query.cache.enabled": cache,
            "query.intent.semantic_threshold": threshold,
            "query.intent.calibrate_threshold": calibrated,
            "query.expand.methods": methods}, slot if calibrated else None


st.title("Query Lab")
st.caption("See how a query is understood before anything is searched: guardrails, intent, "
           "routing, rewrites and expansions. Type a question (and optionally the conversation).")
preset = resources.session_config()
if preset is None:
    st.error("No presets found in rag/presets/.")
    st.stop()
collection = resources.session_collection()
query = st.text_input("Query", DEFAULT_QUERY if collection is None else
                      opening_question(collection, DEFAULT_QUERY), key="ql_query")
history = view.parse_conversation(st.text_area(
    "Conversation so far (optional): one message per line, `user: …` / `assistant: …`",
    DEFAULT_HISTORY, key="ql_history", height=90))
try:
    choices, threshold_slot = options(preset.query)
    config = (with_overrides(preset, choices) if collection is None else
              page_config(preset, collection.name, choices))
except (ValidationError, ValueError) as exc:
    st.error(str(exc))
    st.stop()
cfg = config.query
exemplars = st.session_state.get("ql_exemplars", EXEMPLARS)
if cfg.spell.enabled and collection is None:  # the spelling vocabulary is the collection's words
    config = with_overrides(config, {"query.spell.enabled": False})
    st.caption("Spell correction needs a collection (its words are the vocabulary): off here.")

user = resources.session_user()
resources.searching_as(user)
with st.spinner("Understanding (the first run loads the embedding model)…"):
    index = None if collection is None else resources.index_of(collection, config)
    run = run_slice(initial_state(query, config, user), config, index, first="guard",
                    last="understand", conversation=history, user=user)
st.session_state["ql_trace"] = run.trace

st.subheader("Guardrails")
verdict = run.trace.output(GuardVerdict)
guard_record = run.trace.stage("guard")
show_guard(verdict, guard_record.reason if guard_record else "not run")
with st.expander("How often does this guard block? Attack and benign sets in datasets/"):
    st.caption("Development sets: datasets/guard_attacks.jsonl and guard_benign.jsonl (both of their "
               "splits were in view while the detectors were written). Held-out: "
               "datasets/guard_heldout_2026_11/, written blind after the detectors were frozen.")
    if st.button("Score the guard", key="ql_score_guard"):
        st.session_state["ql_guard_score"] = (
            score_guard(load_prompts(ATTACKS), load_prompts(BENIGN), config.query.guard),
            score_guard(load_prompts(HELDOUT_ATTACKS), load_prompts(HELDOUT_BENIGN), config.query.guard))
    if (scores := st.session_state.get("ql_guard_score")) is not None:
        dev, held = scores
        shown = {"Attacks blocked (development)": dev.block_rate["all"],
                 "Attacks blocked (held-out)": held.block_rate["all"],
                 "Benign blocked (development)": dev.false_positive_rate["all"],
                 "Benign blocked (held-out)": held.false_positive_rate["all"]}
        for cell, (label, rate) in zip(st.columns(4), shown.items(), strict=True):
            cell.metric(label, f"{rate.value:.1%}", help=f"{rate}: share, 95% CI (Wilson), count")
        for score in (held, dev):
            st.dataframe(view.guard_rates_table(score), hide_index=True, width="stretch")
            st.dataframe(view.guard_mistakes_table(score), hide_index=True, width="stretch")
if verdict is not None and not verdict.allowed:
    st.stop()

understand_record = run.trace.stage("understand")
found = run.trace.output(Understanding)
if found is None:
    reason = understand_record.reason if understand_record else "not run"
    st.info(f"Query understanding did not run: {reason}. Switch it on above, or pick a preset "
            "that understands queries (axiom, echomind, adaptive, vexora) in the sidebar.")
    st.stop()
chat = understand_record.inputs.get("llm") == "configured" if understand_record else False
st.caption(f"LLM forms: {'on' if chat else 'off (no OPENAI_BASE_URL): offline forms ran'} · "
           f"spelling vocabulary from collection {collection.name if collection else '(none)'}")

st.subheader("Intent")
if found.intent is not None:
    intent = found.intent
    cells = st.columns(3)
    cells[0].metric("Intent", intent.intent)
    cells[1].metric("Decided by", intent.layer)
    cells[2].metric("Confidence", f"{intent.confidence:.2f}")
    if threshold_slot is not None:
        threshold_slot.slider("Semantic threshold (in use)", 0.0, 1.0, float(intent.threshold or 0.0),
                    disabled=True, key="ql_threshold_used",
                    help="picked by leave-one-out on the labelled exemplars for this embedder")
    st.caption(intent.reason)
    left, right = st.columns(2)
    left.dataframe(view.intent_layers(intent, chat is not None), hide_index=True, width="stretch")
    if intent.semantic_scores:
        right.plotly_chart(view.semantic_bars(intent), width="stretch")
if found.reply is not None:
    st.info(f"Answered without retrieval: {found.reply}")

st.subheader("Class, route, rewrites and expansions")
if found.classification is not None and found.route is not None:
    c, r = found.classification, found.route
    for cells, pairs in zip(st.columns(3), [
        [("Class (Adaptive)", c.label), ("Strategy (Adaptive)", f"{r.strategy}, top {r.top_k}")],
        [("Route (Axiom)", r.complexity), ("Multi-hop", "yes" if r.multi_hop else "no")],
        [("Type (Vexora)", r.query_type), ("Entities", ", ".join(r.entities) or "–")],
    ], strict=True):
        for label, value in pairs:
            cells.metric(label, value)
    st.caption(f"Hints: top_k {c.hints.top_k} · MMR {c.hints.use_mmr} · CoT {c.hints.use_cot} · "
               f"template {c.hints.template} · levels: {', '.join(r.levels)}")
st.dataframe(view.steps_table(found), hide_index=True, width="stretch")
st.markdown("**Queries retrieval will run**")
st.dataframe(view.queries_table(found), hide_index=True, width="stretch")
if found.spell.changes:
    st.markdown(f"**Spelling** — {found.spell.reason}")
    st.dataframe(view.spell_table(found.spell), hide_index=True)

st.subheader("Semantic cache")
if found.cache is None:
    st.caption("Cache off.")
else:
    lookup = found.cache
    (st.success if lookup.hit else st.info)(
        f"{'Hit' if lookup.hit else 'Miss'}: {lookup.reason}"
        + (f" · nearest cached query: {lookup.matched_query!r}" if lookup.matched_query else "")
        + f" · {lookup.entries} entries")
    # the sidebar user's scope, with the graph the run pinned
    cache = semantic_cache(pinned_for(config, collection), user)
    if cache is not None and st.button("Remember this query in the cache", key="ql_remember"):
        cache.store(found.cache_query, f"(stored from the Query Lab for {found.cache_query!r})")
        st.rerun()

with st.expander("Semantic-router exemplars: edit and re-score on datasets/intents.csv "
                 "(the pipeline above uses the built-in exemplars)"):
    edited = st.data_editor(view.exemplar_frame(exemplars), num_rows="dynamic", hide_index=True,
                            key="ql_exemplar_editor", width="stretch")
    if st.button("Use these exemplars and re-score", key="ql_rescore"):
        st.session_state["ql_exemplars"] = view.exemplars_from_frame(edited)
        scored_router = semantic_router(config.embedding, st.session_state["ql_exemplars"])
        labeled = load_labeled()
        with st.spinner(f"Scoring {len(labeled)} labeled queries…"):
            scores = semantic_scores(labeled, scored_router)
        st.session_state["ql_eval"] = (
            evaluate(labeled, scores, cfg.intent.semantic_threshold, cfg.intent.default_intent),
            sweep(labeled, scores, THRESHOLD_GRID, cfg.intent.default_intent),
            calibrate(scored_router, THRESHOLD_GRID)[0],
        )
    if "ql_eval" in st.session_state:
        evaluation, curve, best = st.session_state["ql_eval"]
        cells = st.columns(3)
        cells[0].metric(f"Accuracy at {evaluation.threshold:.2f}", f"{evaluation.accuracy:.3f}")
        cells[1].metric("Leave-one-out threshold", f"{best:.2f}")
        cells[2].metric(f"Accuracy at {best:.2f}", f"{dict(curve).get(best, 0.0):.3f}")
        st.plotly_chart(view.accuracy_curve(curve, evaluation.threshold, best), width="stretch")
        left, right = st.columns([1, 2])
        left.dataframe(view.recall_table(evaluation), hide_index=True, width="stretch")
        right.dataframe(view.mistakes_table(evaluation), hide_index=True, width="stretch")
