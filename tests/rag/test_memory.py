"""Conversations in SQLite: create, append, list, reopen, export, delete; summaries; history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, reply, status

from rag.llm.base import Message
from rag.llm.client import Endpoint, LLMClient
from rag.memory import MemoryStore, UnknownConversationError, running_summary
from rag.settings.generation import GenerationConfig


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "memory.db")


def test_default_location_is_under_the_data_dir() -> None:
    from rag.paths import data_dir

    assert MemoryStore().path == data_dir() / "memory.db"


def test_messages_are_kept_in_order_with_metadata_and_survive_reopening(store: MemoryStore) -> None:
    conv = store.create("Sync questions")
    store.add(conv.id, "user", "How often does it sync?")
    store.add(conv.id, "assistant", "Every 30 seconds [Source 1].", {"mode": "extractive", "sources": [1]})
    reopened = MemoryStore(store.path)
    messages = reopened.messages(conv.id)
    assert [(m.role, m.content) for m in messages] == [
        ("user", "How often does it sync?"),
        ("assistant", "Every 30 seconds [Source 1]."),
    ]
    assert messages[1].metadata == {"mode": "extractive", "sources": [1]}
    assert [m.content for m in reopened.messages(conv.id, last=1)] == ["Every 30 seconds [Source 1]."]


def test_conversations_are_listed_most_recent_first_with_counts(store: MemoryStore) -> None:
    first, second = store.create("first"), store.create("second")
    store.add(first.id, "user", "bump")  # first is now the most recently updated
    listed = store.conversations()
    assert [(c.title, c.message_count) for c in listed] == [("first", 1), ("second", 0)]
    store.rename(second.id, "renamed")
    assert store.get(second.id).title == "renamed" and store.get("nope") is None


def test_export_is_json_with_every_message_and_delete_removes_everything(store: MemoryStore) -> None:
    conv = store.create("to export")
    store.add(conv.id, "user", "q")
    store.add(conv.id, "error", "generate failed: timeout", {"stage": "generate"})
    store.set_summary(conv.id, "User asked q.")
    exported = json.loads(store.export_json(conv.id))
    assert exported["conversation"]["summary"] == "User asked q."
    assert [m["role"] for m in exported["messages"]] == ["user", "error"]
    assert exported["messages"][1]["metadata"] == {"stage": "generate"}
    assert store.delete(conv.id) and not store.delete(conv.id)
    assert store.conversations() == ()
    with pytest.raises(UnknownConversationError, match="no conversation"):
        store.messages(conv.id)


def test_history_gives_the_summary_and_the_last_turns_without_error_records(store: MemoryStore) -> None:
    conv = store.create()
    for i in range(4):
        store.add(conv.id, "user", f"q{i}")
        store.add(conv.id, "assistant", f"a{i}")
    store.add(conv.id, "error", "failed")
    store.set_summary(conv.id, "Talked about q0..q3.")
    history = store.history(conv.id, last=3)
    assert history == (
        Message("system", "Conversation so far: Talked about q0..q3."),
        Message("assistant", "a2"),
        Message("user", "q3"),
        Message("assistant", "a3"),
    )


def test_running_summary_offline_appends_the_gist_and_stays_bounded() -> None:
    summary, warning = running_summary("", "How often?", "Every 30 seconds. More detail here.")
    assert summary == "Q: How often? → A: Every 30 seconds." and warning == ""
    long = summary
    for i in range(100):
        long, _ = running_summary(long, f"question {i}", "An answer sentence that is fairly long.")
    assert len(long) <= 1200 and long.splitlines()[-1].startswith("Q: question 99")


def test_running_summary_uses_the_llm_and_falls_back_when_it_fails() -> None:
    with FakeOpenAI() as server:
        client = LLMClient(GenerationConfig(retries=0), [Endpoint("primary", server.base_url, "m")])
        server.script(reply("User wants sync timing."), status(500))
        assert running_summary("", "q", "a.", client) == ("User wants sync timing.", "")
        summary, warning = running_summary("", "q", "a.", client)
    assert summary == "Q: q → A: a." and "server" in warning


def test_a_conversation_belongs_to_the_user_who_had_it(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    alice, bob, anonymous = MemoryStore(path, "Alice"), MemoryStore(path, "bob"), MemoryStore(path)
    mine = alice.create("Alice's vault questions")
    alice.add(mine.id, "user", "What is my vault code AZURE4471 for?")
    theirs = bob.create("Bob's")
    assert [c.id for c in alice.conversations()] == [mine.id]
    assert [c.id for c in MemoryStore(path, "ALICE").conversations()] == [mine.id]  # one spelling
    assert [c.id for c in bob.conversations()] == [theirs.id]
    assert anonymous.conversations() == ()
    for other in (bob, anonymous):  # another user's id is answered like an unknown one
        assert other.get(mine.id) is None
        for read in (other.messages, other.export_json, other.history):
            with pytest.raises(UnknownConversationError):
                read(mine.id)
        with pytest.raises(UnknownConversationError):
            other.add(mine.id, "user", "let me in")
        with pytest.raises(UnknownConversationError):
            other.rename(mine.id, "mine now")
        assert other.delete(mine.id) is False
    assert [m.content for m in alice.messages(mine.id)] == ["What is my vault code AZURE4471 for?"]
    assert alice.get(mine.id) is not None and alice.get(mine.id).title == "Alice's vault questions"


def test_a_memory_file_from_before_owners_opens_with_its_conversations_anonymous(
    tmp_path: Path,
) -> None:
    import sqlite3

    path = tmp_path / "memory.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT NOT NULL, summary TEXT "
            "NOT NULL DEFAULT '', created TEXT NOT NULL, updated TEXT NOT NULL);"
            "INSERT INTO conversations VALUES ('old1', 'Before owners', '', '2026-01-01', '2026-01-01');"
        )
    assert [c.id for c in MemoryStore(path).conversations()] == ["old1"]
    assert MemoryStore(path, "alice").conversations() == ()
