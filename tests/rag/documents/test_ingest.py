"""The bad-batch scenario: every broken file gets one clear line, every good file goes in."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rag.documents import DocumentsConfig, ingest_paths, ingest_uploads
from rag.settings.documents import MB

GOOD_TEXT = "A plain note about river boats and harbour cranes.\n"


@pytest.fixture
def batch(tmp_path: Path, make_pdf, make_docx, make_pptx, encrypt_pdf) -> tuple[Path, dict[str, str]]:
    """A folder of good and bad files; returns it and {bad file name: expected problem}."""
    folder = tmp_path / "batch"
    (folder / "sub" / "deeper").mkdir(parents=True)
    pdf = make_pdf(["Page one about boats.", "Page two about cranes."])
    good = {
        "note.txt": GOOD_TEXT.encode(),
        "guide.md": b"# Guide\n\nSome words.\n",
        "report.pdf": pdf,
        "letter.docx": make_docx(lambda d: d.add_paragraph("Dear reader, hello.")),
        "deck.pptx": make_pptx([("Slide", "body text")]),
        "table.csv": b"a,b\n1,2\n",
        "page.html": b"<p>Hello from HTML.</p>",
        "sub/deeper/nested.txt": "UTF-16 note, café".encode("utf-16"),
    }
    bad = {
        "locked.pdf": (encrypt_pdf(pdf), "encrypted with a password"),
        "cut.pdf": (pdf[: len(pdf) // 2], "truncated"),
        "empty.txt": (b"", "file is empty (0 bytes)"),
        "noise.pdf": (random.Random(7).randbytes(4096), "not a PDF"),
        "photo.xyz": (b"\x89PNG....", "unsupported file type '.xyz'"),
        "scan.pdf": (make_pdf(["", ""]), "no text layer (2 pages"),
        "blob.txt": (bytes(range(256)) * 4, "does not look like text"),
    }
    for name, data in {**good, **{k: v[0] for k, v in bad.items()}}.items():
        (folder / name).write_bytes(data)
    with (folder / "huge.txt").open("wb") as handle:
        handle.truncate(100 * MB)  # sparse: instant, takes no disk space
    (folder / ".DS_Store").write_bytes(b"\0\0")  # hidden: not a document, not reported
    problems = {name: problem for name, (_, problem) in bad.items()}
    problems["huge.txt"] = "file is 100 MB, limit 50 MB"
    return folder, problems


def test_bad_batch_reports_each_bad_file_once_and_ingests_the_rest(batch, monkeypatch) -> None:
    folder, problems = batch
    read_bytes = Path.read_bytes

    def guarded(path: Path) -> bytes:
        assert path.name != "huge.txt", "the oversized file must be skipped before it is read"
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", guarded)
    report = ingest_paths([folder])

    by_name = {Path(line.source).name: line for line in report.lines}
    assert len(report.lines) == len(by_name) == 8 + len(problems)  # one line per file, none hidden
    for name, problem in problems.items():
        line = by_name[name]
        assert line.status == "skipped", name
        assert problem in line.problem, (name, line.problem)
        assert line.action, name
    assert by_name["huge.txt"].action == "raise documents max_bytes or split the file"
    ok = {name for name, line in by_name.items() if line.status == "ok"}
    assert ok == {
        "note.txt", "guide.md", "report.pdf", "letter.docx", "deck.pptx", "table.csv", "page.html",
        "nested.txt",
    }
    assert {doc.doc_id for doc in report.documents} == {by_name[n].doc_id for n in ok}
    nested = next(doc for doc in report.documents if doc.metadata.source.endswith("nested.txt"))
    assert nested.text == "UTF-16 note, café" and nested.metadata.encoding == "utf-16"
    assert len(report.skipped) == len(problems)


def test_uploads_get_the_same_treatment(make_pdf) -> None:
    files = [
        ("a.txt", GOOD_TEXT.encode()),
        ("b.pdf", b"%PDF-1.7 but nothing else"),
        ("c.txt", b"x" * 2048),
        ("d.doc", b"old word"),
    ]
    report = ingest_uploads(files, DocumentsConfig(max_bytes=1024))
    assert [line.status for line in report.lines] == ["ok", "skipped", "skipped", "skipped"]
    assert report.lines[2].problem == "file is 2 KB, limit 1 KB"
    assert [doc.metadata.source for doc in report.documents] == ["a.txt"]


def test_same_content_twice_is_ingested_once(tmp_path: Path) -> None:
    for name in ("one.txt", "two.txt"):
        (tmp_path / name).write_text(GOOD_TEXT)
    report = ingest_paths([tmp_path / "one.txt", tmp_path / "two.txt"])
    assert len(report.documents) == 1
    assert report.lines[1].status == "skipped"
    assert "same content as" in report.lines[1].problem and "one.txt" in report.lines[1].problem


def test_missing_path_is_reported_not_raised(tmp_path: Path) -> None:
    (line,) = ingest_paths([tmp_path / "nope.txt"]).lines
    assert (line.status, line.problem) == ("skipped", "file not found")


def test_progress_is_reported_after_every_file(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"n{i}.txt").write_text(f"note {i}")
    seen: list[tuple[int, int]] = []
    ingest_paths([tmp_path], progress=lambda done, total, _source: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
