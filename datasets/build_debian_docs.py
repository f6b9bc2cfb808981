"""Build a real English corpus from Debian documentation packages (apt-get download + dpkg-deb -x).

    python datasets/build_debian_docs.py [--packages debian-reference-en maint-guide ...] [--out DIR]

Writes into a git-ignored folder (default datasets/build/debian_docs/):
  docs/<package>--<page>.txt   one plain-text document per HTML page, parsed by rag.documents
  corpus.jsonl                 the same documents as a BEIR corpus: {"_id", "title", "text", "metadata"}
  manifest.json                packages, versions, counts
A corpus `_id` equals the doc_id that rag.documents.parse_file gives the matching .txt file.

From another script in datasets/: `from build_debian_docs import build` (the folder name
`datasets` is shadowed by the Hugging Face package, so it is not importable as a package).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

from rag.documents import DocumentError, parse_bytes
from rag.documents.parse import make_doc_id

DEFAULT_PACKAGES = (
    "debian-reference-en",
    "debian-handbook",
    "debian-faq",
    "maint-guide",
    "developers-reference",
    "gnu-standards",
)
DEFAULT_OUT = Path(__file__).resolve().parent / "build" / "debian_docs"
MIN_CHARS = 500  # navigation pages (tables of contents, indexes) carry no content worth retrieving
# Pages that only repeat others: single-page editions of multi-page books, index and search pages.
SKIP_NAMES = frozenset({"developers-reference.html", "genindex.html", "search.html"})
_LOCALE_DIR = re.compile(r"/html/([a-z]{2}(?:-[A-Z]{2})?)/")
_LOCALE_SUFFIX = re.compile(r"\.([a-z]{2}(?:[-_][A-Za-z]{2})?)\.html?$")


@dataclass(frozen=True)
class Page:
    package: str
    version: str
    path: Path  # inside the extracted package
    relative: str


def _run(command: Sequence[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    return done.stdout


def download(packages: Sequence[str], debs: Path) -> dict[str, Path]:
    """`apt-get download` each package not already cached; returns package -> .deb file."""
    debs.mkdir(parents=True, exist_ok=True)
    missing = [p for p in packages if not list(debs.glob(f"{p}_*.deb"))]
    if missing:
        _run(["apt-get", "download", *missing], debs)
    return {p: max(debs.glob(f"{p}_*.deb")) for p in packages}


def _english(relative: str) -> bool:
    """Keep en / en-US pages and pages with no language tag; drop translations."""
    folder, suffix = _LOCALE_DIR.search(relative), _LOCALE_SUFFIX.search(relative)
    return all(m is None or m.group(1).lower().startswith("en") for m in (folder, suffix))


def extract_pages(package: str, deb: Path, root: Path) -> list[Page]:
    """`dpkg-deb -x`, then the English HTML pages (or .txt/.txt.gz if the package has no HTML)."""
    target = root / package
    if not target.exists():
        target.mkdir(parents=True)
        _run(["dpkg-deb", "-x", str(deb), str(target)], root)
    version = _run(["dpkg-deb", "-f", str(deb), "Version"], root).strip()
    files = sorted(p for p in target.rglob("*") if p.is_file() and not p.is_symlink())  # links duplicate
    html = [p for p in files if p.suffix in (".html", ".htm")]
    chosen = html or [p for p in files if p.name.endswith((".txt", ".txt.gz"))]
    pages = []
    for path in chosen:
        relative = "/" + path.relative_to(target).as_posix()
        if path.name not in SKIP_NAMES and "/_sources/" not in relative and _english(relative):
            pages.append(Page(package, version, path, relative))
    return pages


def _page_name(page: Page) -> str:
    stem = re.sub(r"\.(html?|txt|txt\.gz)$", "", page.path.name)
    return f"{page.package}--{re.sub(r'[^A-Za-z0-9._-]+', '_', stem)}.txt"


def _page_text(page: Page) -> tuple[str, str | None]:
    data = page.path.read_bytes()
    if page.path.name.endswith(".gz"):
        data = gzip.decompress(data)
    name = page.path.name.removesuffix(".gz")
    document = parse_bytes(name, data)
    return document.text, document.metadata.title


def build(
    out_dir: Path = DEFAULT_OUT, packages: Sequence[str] = DEFAULT_PACKAGES, min_chars: int = MIN_CHARS
) -> list[Path]:
    """Download, extract and convert; returns the written .txt documents (corpus.jsonl alongside)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    debs = download(packages, out_dir / "_debs")
    pages = [page for p in packages for page in extract_pages(p, debs[p], out_dir / "_extract")]
    docs_dir = out_dir / "docs"
    docs_dir.mkdir(exist_ok=True)
    written: list[Path] = []
    skipped: list[tuple[str, str]] = []
    characters = 0
    with (out_dir / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
        for page in tqdm(pages, desc="parsing Debian docs", unit="page"):
            try:
                text, title = _page_text(page)
            except DocumentError as exc:
                skipped.append((page.relative, exc.problem))
                continue
            if len(text) < min_chars:
                skipped.append((page.relative, f"{len(text)} chars < {min_chars}"))
                continue
            path = docs_dir / _page_name(page)
            data = text.encode("utf-8")
            path.write_bytes(data)
            written.append(path)
            characters += len(text)
            row = {
                "_id": make_doc_id(path.name, hashlib.sha256(data).hexdigest()),
                "title": title or path.stem,
                "text": text,
                "metadata": {"package": page.package, "version": page.version, "path": page.relative},
            }
            corpus.write(json.dumps(row, ensure_ascii=False) + "\n")
    _write_manifest(out_dir, pages, len(written), characters, skipped)
    return written


def _write_manifest(
    out_dir: Path, pages: list[Page], documents: int, characters: int, skipped: list[tuple[str, str]]
) -> None:
    versions = {page.package: page.version for page in pages}
    manifest = {
        "packages": versions,
        "pages_found": len(pages),
        "documents": documents,
        "characters": characters,
        "skipped": [{"page": page, "why": why} for page, why in skipped],
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES), help="Debian package names")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="output folder (git-ignored by default)")
    parser.add_argument("--min-chars", type=int, default=MIN_CHARS, help="drop shorter pages")
    args = parser.parse_args()
    written = build(args.out, args.packages, args.min_chars)
    manifest = json.loads((args.out / "manifest.json").read_text(encoding="utf-8"))
    print(
        f"{len(written)} documents, {manifest['characters']:,} characters from "
        f"{len(manifest['packages'])} packages -> {args.out}"
    )


if __name__ == "__main__":
    main()
