"""build_debian_docs on a tiny .deb made here (no network): English pages only, ids match parse_file."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from rag.documents import parse_file

pytestmark = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")

PAGE = "<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p></body></html>"
BODY = "Install packages with apt and keep the system current with regular upgrades. " * 10


def fake_deb(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    docs = root / "usr" / "share" / "doc" / "fakedoc"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: fakedoc\nVersion: 1.2-3\nArchitecture: all\nMaintainer: Test <t@example.org>\n"
        "Description: test docs\n"
    )
    (docs / "html" / "en-US").mkdir(parents=True)
    (docs / "html" / "de-DE").mkdir(parents=True)
    pages = {
        "html/en-US/apt.html": PAGE.format(title="Using APT", body=BODY),
        "html/de-DE/apt.html": PAGE.format(title="APT benutzen", body="Deutsch " * 100),
        "intro.en.html": PAGE.format(title="Introduction", body=BODY.replace("apt", "dpkg")),
        "intro.fr.html": PAGE.format(title="Introduction FR", body="Bonjour " * 100),
        "toc.html": PAGE.format(title="Contents", body="1. Intro"),  # too short to keep
    }
    for name, html in pages.items():
        (docs / name).write_text(html)
    (docs / "intro.html").symlink_to("intro.en.html")  # Debian links the default language
    deb = tmp_path / "_debs" / "fakedoc_1.2-3_all.deb"
    deb.parent.mkdir()
    subprocess.run(
        ["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True
    )
    return deb


def test_build_writes_english_pages_with_ids_that_parse_file_agrees_with(
    tmp_path: Path, load_script: Callable[[str], ModuleType]
) -> None:
    out = tmp_path / "out"
    deb = fake_deb(tmp_path)
    (out / "_debs").mkdir(parents=True)
    shutil.copy(deb, out / "_debs" / deb.name)  # cached: no apt-get download

    written = load_script("build_debian_docs").build(out, ["fakedoc"])

    assert sorted(p.name for p in written) == ["fakedoc--apt.txt", "fakedoc--intro.en.txt"]
    rows = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert {row["title"] for row in rows} == {"Using APT", "Introduction"}
    for row in rows:
        path = out / "docs" / f"fakedoc--{Path(row['metadata']['path']).stem}.txt"
        assert parse_file(path).doc_id == row["_id"]
        assert path.read_text() == row["text"]
        assert row["metadata"]["version"] == "1.2-3"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["documents"] == 2
    assert manifest["characters"] == sum(len(row["text"]) for row in rows)
    assert [s["page"] for s in manifest["skipped"]] == ["/usr/share/doc/fakedoc/toc.html"]
