"""Build a 50-document folder of real documentation in four formats, to measure question mining.

    python datasets/build_mining_corpus.py [--out DIR]

Debian documentation packages (apt-get download + dpkg-deb -x): debian-faq (18 HTML pages),
debian-reference-en (15) and maint-guide (11); six of those pages are printed to PDF with
headless Chromium (/usr/bin/chromium) and kept only as PDF; seven Markdown files that ship with
this machine's packages (nodejs, systemd, procps) complete the 50. SQLite's and Git's
documentation are left out on purpose (they are kept for an independent check).
Default out: datasets/build/mining50/ (git-ignored). Then:

    python -m rag ingest datasets/build/mining50 --collection mining50 --preset bm25
    python -m eval questions --collection mining50 --method mined --out /tmp/mining50.jsonl
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

PACKAGES = ("debian-faq", "debian-reference-en", "maint-guide")
PRINTED = ("FAQ/choosing.en.html", "FAQ/software.en.html", "debian-reference/ch01.en.html",
           "debian-reference/ch03.en.html", "maint-guide/html/first.en.html",
           "maint-guide/html/modify.en.html")
MARKDOWN = ("/usr/share/doc/nodejs/BUILDING.md", "/usr/share/doc/nodejs/onboarding.md",
            "/usr/share/doc/nodejs/glossary.md", "/usr/share/doc/nodejs/GOVERNANCE.md",
            "/usr/share/doc/nodejs/SECURITY.md", "/usr/share/doc/systemd/DISTRO_PORTING.md",
            "/usr/share/doc/procps/bugs.md")
CHROMIUM = ("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--no-first-run")


def _print_pdf(page: Path, out: Path) -> None:
    subprocess.run([*CHROMIUM, f"--print-to-pdf={out}", page.as_uri()], check=True,
                   capture_output=True, timeout=180)


def build(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=work, check=True,
                       capture_output=True)
        for deb in work.glob("*.deb"):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "x")], check=True)
        pages = sorted(p for p in (work / "x").rglob("*.html")
                       if p.is_file() and not p.is_symlink() and (
                           "/FAQ/" in str(p) or "/debian-reference/" in str(p)
                           or "/maint-guide/html/" in str(p)) and p.name.count(".") <= 2
                       and (p.name.endswith(".en.html") or "/maint-guide/" in str(p)))
        for page in pages:
            folder = "maint-guide" if "/maint-guide/" in str(page) else page.parent.name
            label = f"{folder}--{page.name}"
            if any(str(page).endswith(p) for p in PRINTED):
                _print_pdf(page, out / f"{label.removesuffix('.html')}.pdf")
            else:
                shutil.copy(page, out / label)
    for md in MARKDOWN:
        if Path(md).is_file():
            shutil.copy(md, out / f"{Path(md).parent.name}--{Path(md).name}")
    return sorted(out.iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "build" / "mining50")
    args = parser.parse_args()
    files = build(args.out)
    kinds: dict[str, int] = {}
    for f in files:
        kinds[f.suffix] = kinds.get(f.suffix, 0) + 1
    print(f"{len(files)} documents in {args.out}: {kinds}")


if __name__ == "__main__":
    main()
