"""Build a QA set from FFmpeg's own documentation (Debian package ffmpeg-doc): its two FAQs'
questions, asked of the FAQs plus the user manuals they sit beside.

    python datasets/build_ffmpeg_faq.py [--out DIR]

A third real answer set beside the bundled one and Debian's (issue 27), from documentation no
other set here uses. Pages come the way build_debian_docs fetches them (apt-get download +
dpkg-deb -x). The FAQ pages (manual/faq.html, manual/mailing-list-faq.html) are cut at their
headings as build_beir_debian cuts Debian's: a heading that reads as a question becomes a
question, the text under it its relevant passages (question text removed), and the user manual
pages (ffmpeg, ffplay, ffprobe, general, platform) are cut into distractor passages the same way.
Each answerable row's reference answer is the first sentences of its first relevant passage, as
in build_debian_abstain. All rows are answerable: the set measures answers, not abstention.

Writes a git-ignored BEIR folder (default datasets/build/ffmpeg_faq/): corpus.jsonl,
queries.jsonl, qrels/test.tsv, build.json, and qa.jsonl (the QA file for `--answers`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_beir_debian import Section, build_rows, sections_from_html, write_beir
from build_debian_abstain import reference, write_jsonl
from build_debian_docs import DEFAULT_OUT as DOCS_OUT
from build_debian_docs import download, extract_pages

PACKAGE = "ffmpeg-doc"
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "build" / "ffmpeg_faq"
# the FAQs and the user manuals beside them (the *-all pages repeat the others; api/ is Doxygen)
PAGES = re.compile(r"/manual/(faq|mailing-list-faq|ffmpeg|ffplay|ffprobe|general|platform)\.html$")


def build(out: Path = DEFAULT_OUT) -> dict[str, int]:
    deb = download([PACKAGE], DOCS_OUT / "_debs")[PACKAGE]
    sections: list[Section] = []
    version = ""
    for page in extract_pages(PACKAGE, deb, DOCS_OUT / "_extract"):
        if not PAGES.search(page.relative):
            continue
        version = page.version
        sections += sections_from_html(page.path.read_bytes(), f"ffmpeg--{page.path.stem}")
    rows = build_rows(sections)
    corpus = {c["_id"]: c["text"] for c in rows.corpus}
    relevant: dict[str, list[str]] = {}
    for qid, doc, _ in rows.qrels:
        relevant.setdefault(qid, []).append(doc)
    qa = [{"id": f"ffmpeg-{q['_id']}", "question": q["text"],
           "answer": reference(corpus[relevant[q["_id"]][0]]), "doc_ids": relevant[q["_id"]]}
          for q in rows.queries]
    write_beir(rows, out, {"packages": {PACKAGE: version}})
    write_jsonl(out / "qa.jsonl", qa)
    return {"passages": len(rows.corpus), "questions": len(qa)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    print(json.dumps(build(args.out)) + f" -> {args.out}")


if __name__ == "__main__":
    main()
