"""Conversations and their running summaries in SQLite (Axiom's messages table, EchoMind's
conversation_summary): list, reopen, export as JSON, delete; prompts get the last messages.

A conversation belongs to the user who had it (`MemoryStore(user=...)`; None is the anonymous
user): a store sees, reads, changes and deletes only its user's conversations, and another
user's conversation id is answered exactly like an unknown one (nothing about it leaks)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from rag.llm.base import ChatModel, LLMError, Message
from rag.paths import data_dir
from rag.privacy import normalize_user
from rag.text import split_sentences

StoredRole = Literal["user", "assistant", "error"]  # "error": a turn that failed, kept on record

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, summary TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL, updated TEXT NOT NULL, owner TEXT);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL, content TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}',
    created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, id);
"""


@dataclass(frozen=True)
class StoredMessage:
    id: int
    conversation_id: str
    role: StoredRole
    content: str
    created: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    summary: str
    created: str
    updated: str
    message_count: int = 0


class UnknownConversationError(KeyError):
    def __str__(self) -> str:
        return f"no conversation {self.args[0]!r}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")  # ms ties on a fast machine


class MemoryStore:
    """One SQLite file (default `<data_dir>/memory.db`); a connection per operation, so pages
    and threads can share a store."""

    def __init__(self, path: Path | None = None, user: str | None = None) -> None:
        self.path = path or data_dir() / "memory.db"
        self.user = normalize_user(user)  # one spelling per user, as for private documents
        with self._db() as db:
            db.executescript(_SCHEMA)
            columns = {r["name"] for r in db.execute("PRAGMA table_info(conversations)")}
            if "owner" not in columns:  # a file from before conversations had owners: anonymous
                db.execute("ALTER TABLE conversations ADD COLUMN owner TEXT")

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=10)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys = ON")
        try:
            with db:  # commit on success, roll back on error
                yield db
        finally:
            db.close()

    def create(self, title: str = "New conversation") -> Conversation:
        now = _now()
        conversation = Conversation(uuid.uuid4().hex[:12], title, "", now, now)
        with self._db() as db:
            db.execute(
                "INSERT INTO conversations (id, title, summary, created, updated, owner) "
                "VALUES (?, ?, ?, ?, ?, ?)", (conversation.id, title, "", now, now, self.user)
            )  # fmt: skip
        return conversation

    def add(
        self, conversation_id: str, role: StoredRole, content: str, metadata: Mapping[str, Any] | None = None
    ) -> StoredMessage:
        """Append a message; the conversation's `updated` time moves with it."""
        self._require(conversation_id)
        now = _now()
        meta = dict(metadata or {})
        with self._db() as db:
            cursor = db.execute(
                "INSERT INTO messages (conversation_id, role, content, metadata, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (conversation_id, role, content, json.dumps(meta, default=str), now),
            )
            db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (now, conversation_id))
        return StoredMessage(
            int(cursor.lastrowid or 0), conversation_id, role, content, now, MappingProxyType(meta)
        )

    def messages(self, conversation_id: str, last: int | None = None) -> tuple[StoredMessage, ...]:
        """Messages in order; only the last `last` when given."""
        self._require(conversation_id)
        with self._db() as db:
            rows = db.execute(
                "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id DESC"
                + (" LIMIT ?" if last is not None else ""),
                (conversation_id, last) if last is not None else (conversation_id,),
            ).fetchall()
        return tuple(
            StoredMessage(
                r["id"],
                r["conversation_id"],
                r["role"],
                r["content"],
                r["created"],
                MappingProxyType(json.loads(r["metadata"])),
            )
            for r in reversed(rows)
        )

    def conversations(self) -> tuple[Conversation, ...]:
        """Every conversation, most recently updated first."""
        with self._db() as db:
            rows = db.execute(
                "SELECT c.*, COUNT(m.id) AS n FROM conversations c LEFT JOIN messages m "
                "ON m.conversation_id = c.id WHERE c.owner IS ? GROUP BY c.id "
                "ORDER BY c.updated DESC, c.rowid DESC", (self.user,)
            ).fetchall()
        return tuple(
            Conversation(r["id"], r["title"], r["summary"], r["created"], r["updated"], r["n"]) for r in rows
        )

    def get(self, conversation_id: str) -> Conversation | None:
        return next((c for c in self.conversations() if c.id == conversation_id), None)

    def set_summary(self, conversation_id: str, summary: str) -> None:
        self._update(conversation_id, "summary", summary)

    def rename(self, conversation_id: str, title: str) -> None:
        self._update(conversation_id, "title", title)

    def delete(self, conversation_id: str) -> bool:
        """Delete a conversation and its messages; False when it did not exist."""
        with self._db() as db:
            return db.execute("DELETE FROM conversations WHERE id = ? AND owner IS ?",
                              (conversation_id, self.user)).rowcount > 0  # fmt: skip

    def export_json(self, conversation_id: str) -> str:
        """The conversation, its summary and every message (with metadata) as JSON."""
        conversation = self._require(conversation_id)
        payload = {
            "conversation": asdict(conversation),
            "messages": [
                {f.name: getattr(m, f.name) for f in fields(m)} | {"metadata": dict(m.metadata)}
                for m in self.messages(conversation_id)
            ],
        }
        return json.dumps(payload, indent=2, ensure_ascii=False, default=str)

    def history(self, conversation_id: str, last: int = 5) -> tuple[Message, ...]:
        """For prompts: the running summary (as a system message) and the last user/assistant
        messages (Axiom: generation sees the last 5). Error records are not replayed."""
        conversation = self._require(conversation_id)
        replayed = [Message(m.role, m.content) for m in self.messages(conversation_id) if m.role != "error"]
        turns = replayed[-last:] if last else []
        summary = (
            (Message("system", f"Conversation so far: {conversation.summary}"),)
            if conversation.summary
            else ()
        )
        return (*summary, *turns)

    def _update(self, conversation_id: str, column: str, value: str) -> None:
        self._require(conversation_id)
        with self._db() as db:
            db.execute(
                # `column` is one of this class's own names, never user input
                f"UPDATE conversations SET {column} = ?, updated = ? WHERE id = ?",
                (value, _now(), conversation_id),
            )

    def _require(self, conversation_id: str) -> Conversation:
        with self._db() as db:
            row = db.execute("SELECT * FROM conversations WHERE id = ? AND owner IS ?",
                             (conversation_id, self.user)).fetchone()  # fmt: skip
        if row is None:
            raise UnknownConversationError(conversation_id)
        return Conversation(row["id"], row["title"], row["summary"], row["created"], row["updated"])


SUMMARY_PROMPT = """Update the running summary of this conversation with the new exchange.
Keep goals, constraints, decisions and key facts; at most 120 words.

Summary so far: {summary}
User: {user}
Assistant: {assistant}

Updated summary:"""

SUMMARY_MAX_CHARS = 1200


def running_summary(
    previous: str, user: str, assistant: str, chat: ChatModel | None = None
) -> tuple[str, str]:
    """(new summary, warning). EchoMind's LLM update when `chat` is given; offline, or when the
    call fails, the question and the answer's first sentence are appended (oldest lines dropped)."""
    warning = ""
    if chat is not None:
        prompt = SUMMARY_PROMPT.format(summary=previous or "(none)", user=user, assistant=assistant)
        try:
            text = chat.chat([Message("user", prompt)]).text.strip()
            if text:
                return text[:SUMMARY_MAX_CHARS], ""
            warning = "summary LLM returned nothing: offline summary"
        except LLMError as exc:
            warning = f"summary LLM failed ({exc.kind}): offline summary"
    sentences = split_sentences(assistant)
    gist = sentences[0].text if sentences else ""
    lines = [*previous.splitlines(), f"Q: {user.strip()} → A: {gist}"]
    while len("\n".join(lines)) > SUMMARY_MAX_CHARS and len(lines) > 1:
        lines.pop(0)
    return "\n".join(lines)[-SUMMARY_MAX_CHARS:], warning
