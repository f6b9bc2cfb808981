"""Answer: a chat over the selected collection. Sources arrive first, then streamed tokens; each
answer sentence is coloured by its support, [Source N] opens the chunk with the supporting span,
and the context as sent, its token budget, a stage timeline and the trace JSON are one click away."""

from __future__ import annotations

import os
from typing import get_args

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from pages.ui import answer as view
from pages.ui import resources
from pages.ui.answer_examples import example_questions
from pages.ui.configs import page_config
from pages.ui.entry import through_app
from rag.abstain import AbstainDecision
from rag.config import PipelineConfig
from rag.context import COMPRESSORS, EXPANSIONS, ORDERINGS, BuiltContext
from rag.generate import GenerateOutput
from rag.grounding import GroundedAnswer
from rag.memory import MemoryStore
from rag.settings import GenerationMode
from rag.trace import Trace
from rag.turn import finish_turn, start_turn

through_app()  # a page opened by its address still runs inside app.py

ROLE_AVATARS = {"user": "user", "assistant": "assistant", "error": "assistant"}


def _pick(column: DeltaGenerator, label: str, options: list[str], value: str, key: str) -> str:
    return column.selectbox(label, options, index=options.index(value), key=key)


def settings_panel(preset: PipelineConfig) -> dict[str, object]:
    """The page's answer choices as dotted config fields, each starting at the preset's value."""
    context, generation = preset.context, preset.generation
    with st.expander("Answer settings", icon=":material/tune:"):
        endpoint = "set" if os.environ.get("OPENAI_BASE_URL") else "not set: offline extractive answers"
        st.caption(f"OPENAI_BASE_URL is {endpoint}. Every control starts at preset "
                   f"**{preset.name}**'s value.")
        row = st.columns(4)
        stages = {f"{section}.enabled": row[i].toggle(label, getattr(preset, section).enabled,
                                                      key=f"ans_{section}")
                  for i, (section, label) in enumerate([("context", "Context building"),
                                                        ("generation", "Generation"),
                                                        ("grounding", "Grounding check"),
                                                        ("abstain", "Abstain when unsupported")])}
        row = st.columns(4)
        mode = _pick(row[0], "Generation mode", list(get_args(GenerationMode)), generation.mode,
                     "ans_mode")
        expansion = _pick(row[1], "Expansion", EXPANSIONS.names(), context.expansion, "ans_expansion")
        compression = _pick(row[2], "Compression", COMPRESSORS.names(), context.compression,
                            "ans_compression")
        ordering = _pick(row[3], "Ordering", ORDERINGS.names(), context.ordering, "ans_ordering")
        row = st.columns(4)
        timeout = row[0].number_input("LLM timeout (s)", 0.1, 600.0, generation.timeout_s,
                                      key="ans_timeout")
        retries = row[1].number_input("Retries", 0, 10, generation.retries, key="ans_retries")
        evidence = row[2].number_input("Decline below evidence", -1.0, 1.0, preset.abstain.min_evidence,
                                       0.01, key="ans_min_evidence",
                                       help="Best question–passage cosine under which the answer is "
                                            "declined (empty: off). Calibrate: python -m eval "
                                            "calibrate-abstention")
    return {
        "abstain.min_evidence": evidence,
        **stages,
        "generation.mode": mode,
        "context.expansion": expansion,
        "context.compression": compression,
        "context.ordering": ordering,
        "generation.timeout_s": timeout,
        "generation.retries": retries,
    }


def new_conversation(store: MemoryStore) -> None:
    st.session_state["ans_conversation"] = store.create(f"Conversation {len(store.conversations()) + 1}").id
    st.session_state.pop("ans_trace", None)


def delete_conversation(store: MemoryStore, conversation: str) -> None:
    store.delete(conversation)
    st.session_state.pop("ans_conversation", None)
    st.session_state.pop("ans_trace", None)


def conversation_bar(store: MemoryStore) -> str:
    """Pick, start, export or delete a conversation; returns the current one's id."""
    if not store.conversations():
        store.create("Conversation 1")
    conversations = store.conversations()
    ids = [c.id for c in conversations]
    if st.session_state.get("ans_conversation") not in ids:
        st.session_state["ans_conversation"] = ids[0]
    titles = {c.id: c.title for c in conversations}
    counts = {c.id: c.message_count for c in conversations}
    row = st.columns([4, 1, 1, 1], vertical_alignment="bottom")
    current = row[0].selectbox("Conversation", ids, format_func=titles.get, key="ans_conversation")
    # the count is read fresh every run (a selectbox's option labels can lag in the browser)
    row[0].caption(f"{counts[current]} messages in this conversation")
    row[1].button("New", key="ans_new", icon=":material/add:", on_click=new_conversation, args=(store,))
    row[2].download_button(
        "Export",
        store.export_json(current),
        f"conversation-{current}.json",
        "application/json",
        key="ans_export",
        icon=":material/download:",
    )
    row[3].button(
        "Delete",
        key="ans_delete",
        icon=":material/delete:",
        on_click=delete_conversation,
        args=(store, current),
    )
    return current


def show_history(store: MemoryStore, conversation: str) -> None:
    for message in store.messages(conversation):
        with st.chat_message(ROLE_AVATARS[message.role]):
            if message.role == "error":
                st.error(message.content, icon=":material/error:")
            else:
                st.markdown(message.content)
                if label := message.metadata.get("label"):
                    st.caption(str(label))


def show_sources(blocks: tuple) -> None:  # IntelliDocs: sources before the answer streams
    st.caption(
        "Sources: " + " · ".join(f"[Source {b.n}] {b.title}" for b in blocks)
        if blocks
        else "No relevant sources: answering without documents."
    )


def show_checked(grounded: GroundedAnswer, decision: AbstainDecision | None, blocks: tuple) -> None:
    """The answer coloured by its sentences' support, its cited chunks and the verdict table."""
    report, sentences = grounded.report, grounded.report.sentences
    st.html(view.answer_html(grounded.answer.text, sentences))
    st.caption(
        f"Grounded share {report.grounded_share:.2f} · {view.relevance_text(decision)} · "
        f"confidence {report.confidence:.2f} ({report.confidence_level}) · retries {grounded.retried}"
    )
    cited = sorted({n for s in sentences for n in s.cited if any(b.n == n for b in blocks)})
    if cited:
        for column, n in zip(st.columns(len(cited)), cited, strict=True):
            block = next(b for b in blocks if b.n == n)
            with column.popover(f"[Source {n}]", icon=":material/article:"):
                st.caption(f"{block.title} · chunk {block.chunk_id} · rank {block.rank}")
                st.html(view.block_html(block, sentences))
    st.dataframe(view.sentence_frame(sentences), width="stretch", hide_index=True)


def show_details(trace: Trace) -> None:
    """The last answer, taken apart: verdicts, cited chunks, context as sent, timeline, trace.
    A declined answer's check stays inside its collapsed "withheld" expander: shown in full, a
    glance would read "answered"."""
    generated = trace.output(GenerateOutput)
    grounded = trace.output(GroundedAnswer)
    context = trace.output(BuiltContext, "context")
    st.subheader("Last answer, checked")
    if generated is not None:
        st.info(generated.answer.label, icon=":material/smart_toy:")
    decision = trace.output(AbstainDecision)
    declined = decision is not None and decision.abstained
    if decision is not None:
        view.show_decision(decision)
    for warning in trace.warnings:
        st.warning(warning)
    blocks = context.blocks if context is not None else ()
    checked = grounded is not None and bool(grounded.report.sentences)
    if grounded is None:
        ground = trace.stage("ground")
        st.caption(f"Grounding check: {ground.reason if ground is not None else 'not run'}")
    if declined and decision is not None and (checked or decision.original_answer):
        with st.expander("The answer that was withheld", icon=":material/visibility_off:"):
            if grounded is not None and checked:
                show_checked(grounded, decision, blocks)
            else:
                st.markdown(decision.original_answer)
    elif grounded is not None and checked:
        show_checked(grounded, decision, blocks)
    with st.expander("Context as sent, with its token budget", icon=":material/data_object:"):
        if context is not None:
            st.plotly_chart(view.budget_figure(context.budget), key="ans_budget")
            st.dataframe(view.sources_frame(blocks), width="stretch", hide_index=True)
            st.code(context.render() or "(no context: no-RAG answer)", language=None)
            for step in context.steps:
                st.caption(f"{step.step}: {step.n_in} → {step.n_out} blocks. {step.reason}")
    st.plotly_chart(view.timeline_figure(trace), key="ans_timeline")
    st.download_button(
        "Download trace (JSON)",
        trace.to_json(),
        "trace.json",
        "application/json",
        key="ans_download_trace",
        icon=":material/download:",
    )


st.title("Answer")
st.caption("Ask questions about your documents: the answer cites its sources as [Source N] and "
           "each sentence is checked against them. Type below, or try one of these:")
collection, preset = resources.require_collection_and_preset("ans_")
for column, example in zip(st.columns(3), example_questions(collection), strict=False):
    column.button(example, key=f"ans_example_{example}", width="stretch",
                  on_click=st.session_state.__setitem__, args=("ans_pending", example))
config = page_config(preset, collection.name, settings_panel(preset))
index = resources.index_of(collection, config)
st.caption(f"Collection **{collection.name}** · preset **{preset.name}** · {resources.index_line(index)}")
user = resources.session_user()
st.caption(f"Asking as **{user or 'anonymous'}** (the sidebar's User): public documents, "
           "this user's private ones and this user's conversations.")
store = MemoryStore(user=user)
conversation = conversation_bar(store)
show_history(store, conversation)

typed = st.chat_input("Ask about your documents", key="ans_input")
if question := typed or st.session_state.pop("ans_pending", None):
    with st.chat_message("user"):
        st.markdown(question)
    with st.chat_message("assistant"):
        run = start_turn(store, conversation, question, config, index)
        context = run.sources()
        show_sources(context.blocks if context is not None else ())
        draft = view.stream_draft(run.tokens())
        trace, outcome = finish_turn(store, conversation, question, run)
        view.settle_draft(draft, bool(outcome.metadata.get("abstained")))
    st.session_state["ans_trace"] = trace
    st.rerun()

if (last := st.session_state.get("ans_trace")) is not None:
    show_details(last)
