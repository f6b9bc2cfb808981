"""Answer: a chat over the selected collection. Sources arrive first, then streamed tokens; each
answer sentence is coloured by its support, [Source N] opens the chunk with the supporting span,
and the context as sent, its token budget, a stage timeline and the trace JSON are one click away."""

from __future__ import annotations

import os

import streamlit as st

from pages.ui import answer as view
from pages.ui import resources
from rag.generate.turn import finish_turn, start_turn
from rag.memory import MemoryStore
from rag.trace import Trace

ROLE_AVATARS = {"user": "user", "assistant": "assistant", "error": "assistant"}


def settings_panel() -> dict[str, object]:
    """The page's answer choices as dotted config fields."""
    with st.expander("Answer settings", icon=":material/tune:"):
        endpoint = "set" if os.environ.get("OPENAI_BASE_URL") else "not set: offline extractive answers"
        st.caption(f"OPENAI_BASE_URL is {endpoint}.")
        row = st.columns(4)
        mode = row[0].selectbox("Generation", ["auto", "extractive", "llm"], key="ans_mode")
        expansion = row[1].selectbox(
            "Expansion", ["none", "parent", "document", "summarize"], key="ans_expansion"
        )
        compression = row[2].selectbox(
            "Compression", ["none", "sentence_filter", "llm"], key="ans_compression"
        )
        ordering = row[3].selectbox("Ordering", ["rank", "sandwich", "document"], key="ans_ordering")
        row = st.columns(4)
        timeout = row[0].number_input("LLM timeout (s)", 0.1, 600.0, 120.0, key="ans_timeout")
        retries = row[1].number_input("Retries", 0, 10, 2, key="ans_retries")
    return {
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
    titles = {c.id: f"{c.title} ({c.message_count} messages)" for c in conversations}
    row = st.columns([4, 1, 1, 1], vertical_alignment="bottom")
    current = row[0].selectbox("Conversation", ids, format_func=titles.get, key="ans_conversation")
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


def show_details(trace: Trace) -> None:
    """The last answer, taken apart: verdicts, cited chunks, context as sent, timeline, trace."""
    generate, ground, context = trace.stage("generate"), trace.stage("ground"), trace.stage("context")
    st.subheader("Last answer, checked")
    if generate is not None and generate.status != "skipped":
        st.info(generate.outputs.get("label", ""), icon=":material/smart_toy:")
    for warning in trace.warnings:
        st.warning(warning)
    blocks = context.outputs.get("blocks", ()) if context is not None else ()
    sentences = ground.outputs.get("sentences", ()) if ground is not None and ground.status == "ok" else ()
    if sentences:
        st.html(view.answer_html(ground.outputs["answer"], sentences))
        st.caption(
            f"Grounded share {ground.outputs['grounded_share']:.2f} · confidence "
            f"{ground.outputs['confidence']:.2f} ({ground.outputs['confidence_level']}) · "
            f"retries {ground.outputs['retries']}"
        )
        cited = sorted({n for s in sentences for n in s.cited if any(b.n == n for b in blocks)})
        if cited:
            for column, n in zip(st.columns(len(cited)), cited, strict=True):
                block = next(b for b in blocks if b.n == n)
                with column.popover(f"[Source {n}]", icon=":material/article:"):
                    st.caption(f"{block.title} · chunk {block.chunk_id} · rank {block.rank}")
                    st.html(view.block_html(block, sentences))
        st.dataframe(view.sentence_frame(sentences), width="stretch", hide_index=True)
    with st.expander("Context as sent, with its token budget", icon=":material/data_object:"):
        if context is not None and context.status != "skipped":
            st.plotly_chart(view.budget_figure(context.outputs["budget"]), key="ans_budget")
            st.dataframe(view.sources_frame(blocks), width="stretch", hide_index=True)
            st.code(context.outputs["rendered"] or "(no context: no-RAG answer)", language=None)
            for step in context.outputs["steps"]:
                st.caption(f"{step.name}: {step.blocks_in} → {step.blocks_out} blocks. {step.detail}")
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
collection, preset = resources.require_collection_and_preset("ans_")
choices = settings_panel()
config = view.chat_config(preset, collection.name, collection.manifest.settings, choices)
st.caption(f"Collection **{collection.name}** · preset **{preset.name}**")
store = MemoryStore()
conversation = conversation_bar(store)
show_history(store, conversation)

if question := st.chat_input("Ask about your documents", key="ans_input"):
    with st.chat_message("user"):
        st.markdown(question)
    with st.chat_message("assistant"):
        run = start_turn(store, conversation, question, config, collection)
        context = run.sources()
        show_sources(context.blocks if context is not None else ())
        st.write_stream(run.tokens())
        trace, outcome = finish_turn(store, conversation, question, run)
    st.session_state["ans_trace"] = trace
    st.rerun()

if (last := st.session_state.get("ans_trace")) is not None:
    show_details(last)
