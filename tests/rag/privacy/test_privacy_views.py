"""Zero leaks in the views around search: the collection manager, the Documents page and the Chunk
Lab show another user's private documents as a count, never by name or text; conversation memory
is scoped to the user who had it. The collection lives in the embedded store (Qdrant Edge)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag.config import load_preset, with_overrides
from rag.documents.base import Document, DocumentMetadata
from rag.index import Access, Collection, delete_collection, open_collection
from rag.index.document_texts import DocumentTexts
from rag.index.visible import visible_entries, visible_kept_documents
from rag.memory import MemoryStore

PAGES = Path(__file__).resolve().parents[3] / "pages"
SECRETS = {"alice": "AZURE4471", "bob": "ZEBRA9902"}
USERS = ("alice", "bob", None, "ALICE")


def doc(source: str, text: str) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    meta = DocumentMetadata(source=source, title=source.split(".")[0], content_hash=digest,
                            format="txt")  # fmt: skip
    return Document(f"{source}#{digest[:8]}", text, meta)


@pytest.fixture(scope="module")
def collection() -> Iterator[Collection]:
    with pytest.MonkeyPatch.context() as patch:
        from hashing_presets import use_hashing_presets

        use_hashing_presets(patch)
        name = f"views-{uuid.uuid4().hex[:8]}"
        config = with_overrides(load_preset("hybrid"), {"index.collection": name})
        made = open_collection(name, create=True)
        made.add_documents([doc("handbook.txt", "Handbook: the vault code is on the sheet.")],
                           config, progress=False)  # fmt: skip
        for user, secret in SECRETS.items():
            private = doc(f"{user}-ledger.txt", f"Private ledger of {user}: vault code {secret}.")
            made.add_documents([private], config, access=Access(owner=user, visibility="private"),
                               progress=False)  # fmt: skip
        yield open_collection(name)
        delete_collection(name)


def others(user: str | None) -> list[str]:
    """Names and secrets `user` must never see."""
    me = (user or "").casefold()
    return [w for owner, secret in SECRETS.items() if owner != me
            for w in (secret, f"{owner}-ledger")]  # fmt: skip


@pytest.mark.parametrize("user", USERS)
def test_document_lists_and_kept_texts_hold_back_others_private_documents(
    collection: Collection, user: str | None
) -> None:
    from pages.ui.collections_view import collections_frame, documents_frame

    seen = visible_entries(collection.manifest, user)
    own = 1 if user else 0
    assert len(seen.entries) == 1 + own and seen.hidden == 2 - own
    frames = [documents_frame(collection, user), collections_frame([collection.name], user)]
    shown = "\n".join(f.to_csv() for f in frames)
    assert "handbook" in shown and not [w for w in others(user) if w in shown]
    assert collections_frame([collection.name], user).loc[0, "others' private documents"] == 2 - own
    texts, hidden = visible_kept_documents(DocumentTexts(collection.directory),
                                           collection.manifest.documents, user)  # fmt: skip
    joined = "\n".join(d.text for d in texts)
    assert hidden == 2 - own and not [w for w in others(user) if w in joined]
    if user:
        assert SECRETS[user.casefold()] in joined  # their own is there


def _rendered(at: AppTest) -> str:
    """Everything the page put on screen as text: tables, text, captions, choices."""
    parts = [df.value.to_csv() for df in at.dataframe]
    for kind in (at.markdown, at.caption, at.text, at.code, at.info, at.success, at.warning):
        parts += [str(e.value) for e in kind]
    for box in (*at.selectbox, *at.multiselect, *at.radio):
        parts += [str(o) for o in box.options]
    return "\n".join(parts)


@pytest.mark.parametrize("page", ["documents.py", "chunk_lab.py"])
@pytest.mark.parametrize("user", ["alice", ""])
def test_pages_show_others_private_documents_only_as_a_count(
    collection: Collection, page: str, user: str
) -> None:
    at = AppTest.from_file(str(PAGES / page), default_timeout=90)
    at.session_state["app_collection"] = collection.name
    at.session_state["app_user"] = user
    at.run()
    assert not at.exception
    shown = _rendered(at)
    assert not [w for w in others(user or None) if w in shown]
    hidden = 1 if user else 2
    assert f"{hidden} private documents of other users" in shown


def test_conversations_are_scoped_to_the_user_who_had_them(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    alice = MemoryStore(path, "alice")
    talk = alice.create("vault")
    alice.add(talk.id, "user", f"my code is {SECRETS['alice']}")
    for user in ("bob", None):
        store = MemoryStore(path, user)
        listed = "\n".join(f"{c.title} {c.summary}" for c in store.conversations())
        assert "vault" not in listed and store.get(talk.id) is None
        assert store.delete(talk.id) is False
    assert [m.content for m in MemoryStore(path, "ALICE").messages(talk.id)] == [
        f"my code is {SECRETS['alice']}"
    ]


@pytest.mark.parametrize("user", ["alice", "bob", ""])
def test_the_answer_page_shows_only_the_sidebar_user_s_conversations(
    collection: Collection, user: str
) -> None:
    alice = MemoryStore(user="alice")
    if not any(c.title == "vault talk" for c in alice.conversations()):
        talk = alice.create("vault talk")
        alice.add(talk.id, "user", f"my code is {SECRETS['alice']}")
    at = AppTest.from_file(str(PAGES / "answer.py"), default_timeout=90)
    at.session_state["app_collection"] = collection.name
    at.session_state["app_user"] = user
    at.run()
    assert not at.exception
    shown = _rendered(at)
    assert f"Asking as **{user or 'anonymous'}**" in shown
    assert ("vault talk" in shown and SECRETS["alice"] in shown) is (user == "alice")


@pytest.mark.parametrize("page,query_key", [("retrieval.py", "ret_query"), ("rerank.py", "rr_query")])
@pytest.mark.parametrize("user", ["alice", "bob", ""])
def test_search_pages_search_as_the_sidebar_user(
    collection: Collection, page: str, query_key: str, user: str
) -> None:
    at = AppTest.from_file(str(PAGES / page), default_timeout=90)
    at.session_state["app_collection"] = collection.name
    at.session_state["app_user"] = user
    at.run()
    at.text_input(key=query_key).set_value("private ledger vault code").run()
    if page == "rerank.py":
        at.toggle(key="rr_enabled").set_value(True).run()
    assert not at.exception
    shown = _rendered(at)
    assert f"Searching as **{user or 'anonymous'}**" in shown
    assert not [w for w in others(user or None) if w in shown]
    if user:
        assert f"{user}-ledger" in shown  # their own private ledger is found
