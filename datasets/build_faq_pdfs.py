"""Build two folders of real documentation printed to PDF, with an FAQ answer key, to measure mining.

    python datasets/build_faq_pdfs.py [--out DIR] [--part dev|heldout|both]

Debian documentation packages (apt-get download + dpkg-deb -x), each HTML page printed to PDF by
headless Chromium (/usr/bin/chromium, default header and footer, as a person printing a page
gets). Two parts from different packages:

- dev: debian-faq (15 FAQ chapters), debian-reference-en and maint-guide. Looked at while
  writing the mining rules.
- heldout: python3.11-doc's FAQ pages, harden-doc (its FAQ chapters and some others),
  developers-reference and debian-handbook chapters. Not looked at until the code is frozen;
  the reported figures come from it.

SQLite's and Git's documentation are left out on purpose (kept for an independent check).
Each part gets `pdfs/`, `html/` (its FAQ pages as HTML) and `key.jsonl`: one line per FAQ entry
of the FAQ pages, taken from the HTML structure alone — the page's leaf headings (an h2-h6 with
no deeper heading under it, page chrome such as navigation and tables of contents left out) —
with the first words of the text under it, so a mined row's span can be checked too. This rule
shares nothing with the miner, which sees only the PDF (or the HTML's text).
Default out: datasets/build/faq_pdfs/ (git-ignored). Then:

    python -m benchmarks.faq_recall --part datasets/build/faq_pdfs/dev
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

DOC = "usr/share"
# part -> (packages, [(page glob under DOC, is an FAQ page)])
PARTS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, bool], ...]]] = {
    "dev": (
        ("debian-faq", "debian-reference-en", "maint-guide"),
        (("doc/debian/FAQ/[a-z]*.en.html", True), ("debian-reference/*.en.html", False),
         ("doc/maint-guide/html/*.en.html", False)),
    ),
    "heldout": (
        ("python3.11-doc", "harden-doc", "developers-reference", "debian-handbook"),
        (("doc/python3.11/html/faq/[a-z]*.html", True),
         ("doc/harden-doc/html/en-US/ch12.html", True), ("doc/harden-doc/html/en-US/ch12s02.html", True),
         ("doc/harden-doc/html/en-US/debian-sec-team-faq.html", True),
         ("doc/harden-doc/html/en-US/ch0[3-5].html", False),
         ("developers-reference/[a-z]*.html", False),
         ("doc/debian-handbook/html/en-US/[a-z]*[a-z].html", False)),
    ),
}
# pages that are a book's front matter or an index, not an FAQ's entries
NOT_FAQ = ("index.html", "index.en.html", "faqinfo.en.html", "search.html")
SKIPPED = ("search.html", "developers-reference.html")  # a search form; the whole book in one page
MAX_PAGES = {"dev": 60, "heldout": 45}
CHROMIUM = ("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking")
_CHROME_CLASSES = frozenset({"sidebar", "sphinxsidebar", "toc", "nav", "navigation", "related",
                             "footer", "header", "breadcrumb", "breadcrumbs", "search", "navheader",
                             "navfooter", "docnav"})
_VOID = {"br", "img", "hr", "meta", "link", "input", "col", "area", "base", "wbr", "source"}


@dataclass
class _Heading:
    level: int
    text: str
    after: list[str] = field(default_factory=list)  # text between it and the next heading


class _Headings(HTMLParser):
    """Headings outside page chrome, and the text that follows each."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, is chrome)
        self.heads: list[_Heading] = []
        self.open: _Heading | None = None
        self.skip = 0  # inside <a class="headerlink"> / <script> / <style>

    def _chrome(self) -> bool:
        return any(c for _, c in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        found = dict(attrs)
        classes = f"{found.get('class') or ''} {found.get('role') or ''}".lower().split()
        chrome = tag in ("nav", "header", "footer") or not _CHROME_CLASSES.isdisjoint(classes)
        self.stack.append((tag, chrome))
        if tag in ("script", "style") or "headerlink" in classes:
            self.skip += 1
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" and not self._chrome():
            self.open = _Heading(int(tag[1]), "")
            self.heads.append(self.open)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            top, _ = self.stack.pop()
            if top in ("script", "style"):
                self.skip -= 1
            if top == "a" and self.skip and tag == "a":
                self.skip -= 1
            if top == tag:
                break
        if self.open is not None and tag == f"h{self.open.level}":
            self.open = None

    def handle_data(self, data: str) -> None:
        if self.skip or self._chrome():
            return
        if self.open is not None:
            self.open.text += data
        elif self.heads:
            self.heads[-1].after.append(data)


def faq_entries(html: str) -> list[dict[str, str]]:
    """The FAQ entries of a page: its leaf headings below the page title, with text under them."""
    parser = _Headings()
    parser.feed(html)
    heads = [h for h in parser.heads if " ".join(h.text.split())]
    entries = []
    for i, head in enumerate(heads):
        if head.level == 1:
            continue  # the page's title
        following = heads[i + 1] if i + 1 < len(heads) else None
        if following is not None and following.level > head.level:
            continue  # has sub-entries: a group heading, not an entry
        answer = " ".join(" ".join(head.after).split())
        if len(answer) < 20:
            continue
        entries.append({"question": " ".join(head.text.replace("¶", "").split()),
                        "answer_start": " ".join(answer.split()[:12])})
    return entries


def _print_pdf(page: Path, out: Path) -> None:
    subprocess.run([*CHROMIUM, f"--print-to-pdf={out}", page.as_uri()], check=True,
                   capture_output=True, timeout=180)


def build_part(part: str, out: Path) -> tuple[int, int]:
    packages, pages = PARTS[part]
    pdfs = out / part / "pdfs"
    pdfs.mkdir(parents=True, exist_ok=True)
    key_rows: list[dict[str, str]] = []
    printed = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(["apt-get", "download", *packages], cwd=work, check=True,
                       capture_output=True)
        for deb in sorted(work.glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "x")], check=True)
        chosen: list[tuple[Path, bool]] = []
        for pattern, is_faq in pages:
            for page in sorted((work / "x" / DOC).glob(pattern)):
                if page.is_file() and not page.is_symlink() and page.name not in SKIPPED:
                    chosen.append((page, is_faq and page.name not in NOT_FAQ))
        for page, is_faq in chosen[: MAX_PAGES[part]]:
            name = f"{page.parent.name}--{page.name.removesuffix('.html')}.pdf"
            if not (pdfs / name).exists():
                _print_pdf(page, pdfs / name)
            printed += 1
            if is_faq:
                html = page.read_text(encoding="utf-8", errors="replace")
                key_rows += [{"doc": name, **e} for e in faq_entries(html)]
                # the FAQ pages as HTML too: the same key measures the HTML reading
                (out / part / "html").mkdir(exist_ok=True)
                copy = out / part / "html" / name.replace(".pdf", ".html")
                copy.write_text(html, encoding="utf-8")
    with open(out / part / "key.jsonl", "w", encoding="utf-8") as fh:
        for row in key_rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return printed, len(key_rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "build" / "faq_pdfs")
    parser.add_argument("--part", choices=("dev", "heldout", "both"), default="both")
    args = parser.parse_args()
    for part in ("dev", "heldout") if args.part == "both" else (args.part,):
        printed, keyed = build_part(part, args.out)
        print(f"{part}: {printed} PDFs, {keyed} FAQ entries in the key -> {args.out / part}")


if __name__ == "__main__":
    main()
