"""Widgets of the Judge page: the question picker and editor, the pooled passage being judged
(question terms marked, keyboard shortcuts), the reference answer picked from its sentences, and
export / import. Judging logic and storage are eval.judging; this renders and records."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from eval.judging.export import export_rows, import_rows, read_jsonl, to_jsonl
from eval.judging.pool import pool_question, pool_searchers, question_terms, term_spans
from eval.judging.store import JudgingStore, Label, Passage, Question, judging_path
from eval.testsets.store import save_set
from pages.ui.html import Mark, highlight_spans
from pages.ui.resources import cached_collection
from rag.text import split_sentences

SET = "judge_set"  # the set selectbox: a set saved under a new name is judged next
SAVED = "judge_saved"  # (kind, message) of the last save, shown on the run after it
SESSION = "judge_session"  # this browser session's id, written with every judgment
QID = "judge_qid"
ADVANCE = "judge_advance"  # set by a label key: in a strategy's order, the next pick is due
Key = tuple[str, int, int]
BUTTONS: tuple[tuple[Label, str, str, str], ...] = (  # label, button text, shortcut, type
    ("relevant", "Relevant", "Y", "primary"),
    ("not_relevant", "Not relevant", "N", "secondary"),
    ("skip", "Skip", "S", "tertiary"),
)


def session_id() -> str:
    return st.session_state.setdefault(SESSION, uuid.uuid4().hex[:8])


@st.cache_resource(max_entries=2, show_spinner="Opening every system's index…")
def _searchers(collection: str, systems: tuple[str, ...], updated: str):  # noqa: ANN202
    return pool_searchers(cached_collection(collection), systems)


def searchers_for(collection: str, systems: Sequence[str]):  # noqa: ANN201
    """Every system's retrieval-mode searcher over the collection (cached per version)."""
    updated = str(cached_collection(collection).manifest.updated_at)
    return _searchers(collection, tuple(systems), updated)


def ensure_pool(store: JudgingStore, collection: str, q: Question, systems: Sequence[str],
                depth: int) -> None:
    """Build and store the question's pool the first time it is shown (every session then
    judges the same passages)."""
    if store.has_pool(q.qid) or not systems:
        return
    searchers = searchers_for(collection, systems)
    bar = st.progress(0.0, text="Pooling…")
    names = list(searchers)

    def moved(name: str) -> None:
        bar.progress(names.index(name) / len(names), text=f"Pooling: {name}'s top {depth}…")

    pool = pool_question(q.question, searchers, depth, moved)
    bar.empty()
    for name, error in pool.failed.items():
        st.warning(f"{name} failed on this question and is left out of its pool: {error}")
    store.add_pool(q.qid, pool.passages)


def next_open_question(questions: Sequence[Question], judged: Mapping[str, bool],
                       now: str | None) -> str | None:
    """The first question after `now` (wrapping round) that is not judged yet, else None."""
    ids = [q.qid for q in questions]
    start = ids.index(now) if now in ids else -1
    return next((i for i in [*ids[start + 1:], *ids[:start + 1]] if not judged[i]), None)


def pick_question(questions: Sequence[Question], judged: Mapping[str, bool]) -> Question:
    """The question selector (✓ = judged) and a 'next unjudged' button (shortcut J)."""
    by_id = {q.qid: q for q in questions}
    if st.session_state.get(QID) not in by_id:
        st.session_state[QID] = next((q.qid for q in questions if not judged[q.qid]),
                                     questions[0].qid)

    def next_open() -> None:
        now = st.session_state.get(QID)
        st.session_state[QID] = next_open_question(questions, judged, now) or now

    row = st.columns([5, 1])
    # the label stays the same while judging: a label that changes under the browser's
    # selection (a tick added) comes back from it as text that is no longer an option
    row[0].selectbox("Question", list(by_id), key=QID,
                     format_func=lambda i: f"{i}: {by_id[i].question}")
    row[1].button("Next unjudged", key="judge_next", on_click=next_open, shortcut="J",
                  icon=":material/skip_next:")
    q = by_id[st.session_state[QID]]
    state = ("dropped" if q.dropped else "judged (you said so)" if q.done
             else "judged" if judged[q.qid] else "not judged yet")
    st.caption(f"Question {list(by_id).index(q.qid) + 1} of {len(by_id)} · {state}")
    return q


def edit_question(store: JudgingStore, q: Question, judged: Mapping[str, bool],
                  questions: Sequence[Question]) -> None:
    """Edit the text, drop / restore, mark 'not answerable from these documents', or say the
    question is judged (D): the page moves on to the next open question."""
    me = session_id()

    def record(field: str, value: str | bool, move_on: bool = False) -> None:
        store.edit(q.qid, field, value, me)
        if move_on:
            after = {**judged, q.qid: True}
            st.session_state[QID] = next_open_question(questions, after, q.qid) or q.qid

    row = st.columns([4, 1])
    text = row[0].text_input("Question text", q.question, key=f"judge_text_{q.qid}")
    row[1].button("Save edit", key=f"judge_save_{q.qid}", disabled=text.strip() == q.question,
                  on_click=record, args=("question", text.strip()))
    row = st.columns(3)
    row[0].button("Restore question" if q.dropped else "Drop question", key="judge_drop",
                  icon=":material/delete:", on_click=record, args=("dropped", not q.dropped))
    row[1].button("Answerable after all" if q.unanswerable else
                  "Not answerable from these documents", key="judge_unanswerable",
                  shortcut="U", icon=":material/block:",
                  on_click=record, args=("unanswerable", not q.unanswerable))
    row[2].button("Not done yet" if q.done else "Judged enough (D)", key="judge_done",
                  shortcut="D", icon=":material/task_alt:",
                  help="Counts the question as judged however many of its passages carry a "
                       "label, and moves on to the next open question",
                  on_click=record, args=("done", not q.done, not q.done))


def current_passage(q: Question, pool: Sequence[Passage], labels: Mapping[Key, Label]) -> int:
    """Index of the passage on screen: the one the judge moved to, else the first unlabelled."""
    key = f"judge_pos_{q.qid}"
    if key not in st.session_state:
        st.session_state[key] = next((i for i, p in enumerate(pool) if p.key not in labels), 0)
    return min(st.session_state[key], len(pool) - 1)


def judge_passage(store: JudgingStore, q: Question, pool: Sequence[Passage],
                  labels: Mapping[Key, Label], questions: Sequence[Question],
                  judged: Mapping[str, bool]) -> None:
    """The passage being judged, its buttons (Y / N / S, ← →), and the answer picker. Each key
    is a callback (one page run per key, no second run); after the question's last open
    passage the next open question follows."""
    i = current_passage(q, pool, labels)
    p = pool[i]
    position = f"judge_pos_{q.qid}"

    def label_it(label: Label) -> None:
        store.judge(q.qid, p.key, label, session_id())
        st.session_state[ADVANCE] = True
        done = {*labels, p.key}
        later = [j for j in (*range(i + 1, len(pool)), *range(i)) if pool[j].key not in done]
        if later:
            st.session_state[position] = later[0]
            return
        st.session_state[position] = min(i + 1, len(pool) - 1)
        after = {**judged, q.qid: True}
        st.session_state[QID] = next_open_question(questions, after, q.qid) or q.qid

    def move(step: int) -> None:
        st.session_state[position] = i + step

    ranks = ", ".join(f"{s} #{r}" for s, r in sorted(p.systems.items(), key=lambda kv: kv[1]))
    st.markdown(f"**Passage {i + 1} of {len(pool)}** · `{p.doc}` characters {p.start}–{p.end} · "
                f"retrieved by {ranks} · now: **{labels.get(p.key, 'unjudged').replace('_', ' ')}**")
    marks = [Mark(s, e) for s, e in term_spans(p.text, question_terms(q.question))]
    st.html(highlight_spans(p.text, marks))
    row = st.columns(5)
    for column, (label, text, key, kind) in zip(row, BUTTONS, strict=False):
        column.button(f"{text} ({key})", key=f"judge_{label}", shortcut=key, type=kind,
                      on_click=label_it, args=(label,))
    for column, (text, step, key) in zip(row[3:], (("Previous", -1, "Left"), ("Next", 1, "Right")),
                                         strict=True):
        column.button(text, key=f"judge_move_{step}", shortcut=key,
                      disabled=not 0 <= i + step < len(pool), on_click=move, args=(step,))
    reference_answer(store, q, p)


def reference_answer(store: JudgingStore, q: Question, p: Passage) -> None:
    """Pick the passage's sentences that answer the question: they become its reference answer."""
    sentences = [s.text for s in split_sentences(p.text)]
    picked = st.multiselect("Reference answer: pick the sentences of this passage that answer it",
                            sentences, key=f"judge_answer_{q.qid}_{p.start}_{p.doc}")
    st.caption(f"Reference answer now: {q.answer or '(none)'}")
    st.button("Use as reference answer", key="judge_answer_use", disabled=not picked,
              on_click=store.edit, args=(q.qid, "answer", " ".join(picked), session_id()))


def pool_frame(pool: Sequence[Passage], labels: Mapping[Key, Label]) -> pd.DataFrame:
    return pd.DataFrame([{"passage": i + 1, "document": p.doc, "chars": f"{p.start}–{p.end}",
                          "systems": ", ".join(sorted(p.systems)),
                          "label": labels.get(p.key, "")} for i, p in enumerate(pool)])


def export_import(store: JudgingStore, collection: str, set_name: str) -> None:
    """Download / save the judged set, or import judgments from a QA JSONL file."""
    rows = export_rows(store)
    row = st.columns([2, 1, 2])
    name = row[0].text_input("Save as", set_name, key=f"judge_save_name_{set_name}",
                             help="The same name keeps judging this set; another name copies "
                                  "the set and its judging, and the page goes on with the copy")

    def save() -> None:
        try:
            info = save_set(collection, name, rows)
        except ValueError as exc:  # a bad name, or a row eval/data/qa.py rejects
            st.session_state[SAVED] = ("error", str(exc))
            return
        if info.name != set_name:  # the copy carries its judging: nothing shows as lost
            store.copy_to(judging_path(collection, info.name))
            st.session_state[SET] = info.name
        st.session_state[SAVED] = ("success", f"Saved {info.name} ({info.questions} questions): "
                                              "pick it on Evaluate.")

    row[1].button("Save with the collection", key="judge_save_set", icon=":material/save:",
                  on_click=save)
    kind, message = st.session_state.pop(SAVED, (None, ""))
    if kind is not None:
        (st.success if kind == "success" else st.error)(message)
    row[2].download_button("Download as QA JSONL", to_jsonl(rows), f"{name}.jsonl",
                           "application/jsonl", key="judge_download", icon=":material/download:")
    upload = st.file_uploader("Import judgments (QA JSONL)", type=["jsonl"], key="judge_upload")
    if upload is not None and st.button("Import", key="judge_import"):
        try:
            found = read_jsonl(upload.getvalue().decode("utf-8"), upload.name)
        except (ValueError, UnicodeDecodeError) as exc:
            st.error(str(exc))
            return
        count = import_rows(store, found, f"import:{session_id()}")
        st.success(f"Imported {count} judgments over {len(found)} questions.")
