"""Documents page: ingest uploads or a server folder into a new or existing collection (progress,
per-file report), and manage collections (list, remove a document, delete with confirmation)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag.index import list_collections, open_collection

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "documents.py")
APP = str(Path(__file__).resolve().parents[2] / "app.py")
APT = b"APT resolves dependencies and downloads packages from the configured mirrors.\n"
SSH = b"# SSH\n\nKeys let you log in without a password. Keep the private key private.\n"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> Path:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path / "data"))
    return tmp_path


def upload(at: AppTest, files: list[tuple[str, bytes]]) -> AppTest:
    at.segmented_control(key="docs_source").set_value("Upload files").run()
    return at.file_uploader(key="docs_uploads").set_value(
        [(name, data, "text/plain") for name, data in files]).run()


def ingested(at: AppTest) -> dict[str, str]:
    """The last ingest's per-file report: file -> status."""
    frame = next(d.value for d in at.dataframe if list(d.value.columns)[:2] == ["file", "status"]
                 and "chunks" in d.value.columns)
    return dict(zip(frame["file"], frame["status"], strict=True))


def test_uploads_go_into_a_new_collection_then_unchanged_add_nothing_and_changed_replace(
    data: Path,
) -> None:
    at = upload(AppTest.from_file(PAGE, default_timeout=60).run(),
                [("apt.txt", APT), ("ssh.md", SSH), ("broken.pdf", b"not a pdf")])
    assert at.radio(key="docs_into").value == "New collection"  # none exists yet
    at.text_input(key="docs_new_name").set_value("mine").run()
    assert "recursive, size 512, overlap 50" in " ".join(c.value for c in at.caption)
    at.button(key="docs_ingest").click().run()
    assert not at.exception
    assert ingested(at) == {"apt.txt": "added", "ssh.md": "added", "broken.pdf": "skipped"}
    assert "Collection 'mine': 2 added" in at.success[0].value
    assert at.session_state["app_next_collection"] == "mine"  # the page's pick for every page
    assert sorted(open_collection("mine").manifest.documents) == ["apt.txt", "ssh.md"]

    at.radio(key="docs_into").set_value("Existing collection").run()
    at.button(key="docs_ingest").click().run()
    assert ingested(at)["apt.txt"] == "unchanged (nothing added)"
    assert open_collection("mine").manifest.chunk_count == 2

    upload(at, [("apt.txt", b"APT now speaks Esperanto.\n"), ("ssh.md", SSH)])
    at.button(key="docs_ingest").click().run()
    assert ingested(at) == {"apt.txt": "replaced", "ssh.md": "unchanged (nothing added)"}
    texts = [c.text for c in open_collection("mine").chunks()]
    assert "APT now speaks Esperanto." in texts and len(texts) == 2


def test_after_ingesting_into_a_new_collection_the_form_offers_it_as_existing(data: Path) -> None:
    at = upload(AppTest.from_file(PAGE, default_timeout=60).run(), [("apt.txt", APT)])
    at.text_input(key="docs_new_name").set_value("fresh").run()
    at.button(key="docs_ingest").click().run()
    assert not at.exception
    assert "Collection 'fresh': 1 added" in at.success[0].value
    assert not [w.value for w in at.warning if "exists" in w.value]  # was: "'fresh' exists: pick…"
    assert at.radio(key="docs_into").value == "Existing collection"
    assert at.selectbox(key="docs_into_collection").value == "fresh"
    at.button(key="docs_ingest").click().run()  # the same files again: into 'fresh', unchanged
    assert ingested(at) == {"apt.txt": "unchanged (nothing added)"}


def test_a_folder_on_the_server_is_walked_and_a_missing_one_is_said(data: Path) -> None:
    folder = data / "docs" / "nested"
    folder.mkdir(parents=True)
    (folder / "apt.txt").write_bytes(APT)
    (data / "docs" / "ssh.md").write_bytes(SSH)
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.segmented_control(key="docs_source").set_value("Folder on the server").run()
    at.text_input(key="docs_folder").set_value(str(data / "nope")).run()
    assert "There is no folder" in at.error[0].value
    at.text_input(key="docs_folder").set_value(str(data / "docs")).run()
    at.text_input(key="docs_new_name").set_value("folder").run()
    at.button(key="docs_ingest").click().run()
    assert not at.exception
    assert ingested(at) == {"apt.txt": "added", "ssh.md": "added"}
    assert len(open_collection("folder").manifest.documents) == 2


def test_the_new_collection_is_selected_in_the_sidebar_at_once(data: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/documents.py").run()
    upload(at, [("apt.txt", APT)])
    at.text_input(key="docs_new_name").set_value("fresh").run()
    at.button(key="docs_ingest").click().run()
    assert not at.exception
    assert "Collection in use: **fresh** (change it in the sidebar)" in [c.value for c in at.caption]
    at.switch_page("app.py").run()  # AppTest renders the sidebar with the entry script
    assert at.sidebar.selectbox(key="app_collection").value == "fresh"


def test_collections_are_listed_documents_removed_and_deletion_needs_the_name(data: Path) -> None:
    at = upload(AppTest.from_file(PAGE, default_timeout=60).run(), [("apt.txt", APT),
                                                                    ("ssh.md", SSH)])
    at.text_input(key="docs_new_name").set_value("managed").run()
    at.button(key="docs_ingest").click().run()
    table = next(d.value for d in at.dataframe if "collection" in d.value.columns)
    row = table.set_index("collection").loc["managed"]
    assert (row["documents"], row["chunks"]) == (2, 2) and row["size on disk (MB)"] > 0
    assert row["built with"].startswith("recursive, size 512, overlap 50")

    at.selectbox(key="docs_remove_source").set_value("apt.txt").run()
    at.button(key="docs_remove").click().run()
    assert "Removed apt.txt (1 chunks)." in [s.value for s in at.success]
    collection = open_collection("managed")
    assert list(collection.manifest.documents) == ["ssh.md"] and collection.store.count() == 1

    assert at.button(key="docs_delete").disabled
    at.text_input(key="docs_delete_confirm").set_value("managed").run()
    at.button(key="docs_delete").click().run()
    assert not at.exception
    assert "managed" not in list_collections()
    assert "Deleted collection 'managed'." in [s.value for s in at.success]
