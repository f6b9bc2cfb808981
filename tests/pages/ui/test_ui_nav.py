from pathlib import Path

from pages.ui.nav import PAGES, PageEntry, available_pages


def test_only_pages_whose_file_exists_are_listed(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "b.py").write_text("")
    (tmp_path / "pages" / "c.py").write_text("")
    table = (
        PageEntry("Ingest", "pages/a.py", "A", "", ""),
        PageEntry("Ingest", "pages/b.py", "B", "", ""),
        PageEntry("Answer", "pages/c.py", "C", "", ""),
    )
    grouped = available_pages(tmp_path, table)
    assert list(grouped) == ["Ingest", "Answer"]
    assert [e.title for e in grouped["Ingest"]] == ["B"]


def test_stage_without_pages_is_dropped(tmp_path: Path) -> None:
    table = (PageEntry("Evaluate", "pages/missing.py", "M", "", ""),)
    assert available_pages(tmp_path, table) == {}


def test_table_files_are_unique_and_under_pages() -> None:
    files = [e.file for e in PAGES]
    assert len(files) == len(set(files))
    assert all(f.startswith("pages/") and f.endswith(".py") for f in files)
