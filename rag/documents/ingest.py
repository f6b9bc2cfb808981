"""Batches of files in, Documents plus one report line per file out; a bad file never stops the batch."""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path

from rag.documents.errors import DocumentError
from rag.documents.parse import parse_bytes, parse_file
from rag.injection import detect_in_document
from rag.records.document import Document, IngestLine, IngestReport
from rag.settings.documents import DocumentsConfig

log = logging.getLogger(__name__)
# progress(done, total, source) after each file, for st.progress or tqdm.
Progress = Callable[[int, int, str], None]
_Job = tuple[str, Callable[[], Document]]
# a parsed file: the document (or the line saying why not) and its injection warnings
_Outcome = tuple[Document | IngestLine, tuple[str, ...]]
# below this many files, starting worker processes costs more than it saves
PARALLEL_MIN_FILES = 32


def expand_paths(paths: Sequence[Path | str]) -> list[Path]:
    """Files as given, folders walked recursively in sorted order (hidden files and folders left
    out). Symbolic links are followed once: a link back into a folder already walked (a loop),
    a broken link or a link to itself is listed like a file, so parsing gives it a report line."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted(_walk(path, set()))
        else:
            files.append(path)  # missing files get their own report line
    return files


def _walk(folder: Path, seen: set[Path]) -> Iterator[Path]:
    seen.add(folder.resolve())
    for entry in folder.iterdir():
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if entry.is_symlink() and entry.resolve() in seen:
                yield entry  # a loop: parse_file says so
            else:
                yield from _walk(entry, seen)
        elif entry.is_file() or entry.is_symlink():
            yield entry


def _run(jobs: Sequence[_Job], progress: Progress | None, workers: int = 1) -> IngestReport:
    documents: list[Document] = []
    lines: list[IngestLine] = []
    first_source: dict[str, str] = {}  # content hash -> source that brought it in
    for done, ((source, _), (outcome, flagged)) in enumerate(
        zip(jobs, _outcomes(jobs, workers), strict=True), start=1
    ):
        if isinstance(outcome, IngestLine):
            lines.append(outcome)
        elif (earlier := first_source.get(outcome.metadata.content_hash)) is not None:
            lines.append(IngestLine(source, "skipped", f"same content as {earlier}", "nothing to do"))
        else:
            first_source[outcome.metadata.content_hash] = source
            documents.append(outcome)
            lines.append(IngestLine(source, "ok", doc_id=outcome.doc_id, chars=len(outcome.text),
                                    warnings=(*outcome.metadata.extra.get("warnings", ()), *flagged)))
        if progress is not None:
            progress(done, len(jobs), source)
    return IngestReport(tuple(documents), tuple(lines))


def _outcomes(jobs: Sequence[_Job], workers: int) -> Iterator[_Outcome]:
    """Each job's outcome, in the jobs' order: in this process, or spread over `workers` forked
    processes (parsing and the injection scan are pure Python: threads would wait on each other).
    A worker that dies (a parser library crashing the interpreter) costs no file: what the pool
    did not finish is parsed here, one by one."""
    if workers < 2 or len(jobs) < PARALLEL_MIN_FILES or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(_parse_one, jobs)
        return
    done = 0
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            for outcome in pool.map(_parse_one, jobs, chunksize=max(1, len(jobs) // (8 * workers))):
                done += 1
                yield outcome
    except BrokenProcessPool:
        log.warning("a parsing worker died after %d of %d files; parsing the rest here", done, len(jobs))
        yield from map(_parse_one, jobs[done:])


def _parse_one(job: _Job) -> _Outcome:
    source, parse = job
    outcome = _attempt(source, parse)
    return outcome, () if isinstance(outcome, IngestLine) else injection_warnings(outcome.text)


def injection_warnings(text: str) -> tuple[str, ...]:
    """One warning per kind of text that addresses the assistant (indexed as data all the same)."""
    return tuple(
        f"text addressed to the assistant ({f.label}): \u2026{f.snippet}\u2026 \u2014 indexed as data; "
        "instructions inside sources are never followed"
        for f in detect_in_document(text)
    )


def _attempt(source: str, job: Callable[[], Document]) -> Document | IngestLine:
    """The document, or the skipped line saying why not."""
    try:
        return job()
    except DocumentError as exc:
        return IngestLine(source, "skipped", exc.problem, exc.action)
    except Exception as exc:  # a parser library crashing on odd input must not cost the batch
        log.exception("unexpected failure parsing %s", source)
        return IngestLine(
            source,
            "skipped",
            f"parser crashed ({type(exc).__name__}: {exc})",
            "re-export the file; if it opens fine elsewhere, report it as a workbench bug",
        )


def ingest_paths(
    paths: Sequence[Path | str],
    config: DocumentsConfig | None = None,
    progress: Progress | None = None,
    workers: int = 1,
) -> IngestReport:
    """Parse files and folders (recursively); every file gets exactly one IngestLine. `workers`
    > 1 parses in that many forked processes (the CLI, before it starts any thread of its own;
    not the app, whose server threads make forking unsafe)."""
    config = config or DocumentsConfig()
    jobs = [(str(path), partial(parse_file, path, config)) for path in expand_paths(paths)]
    return _run(jobs, progress, workers)


def ingest_uploads(
    files: Sequence[tuple[str, bytes]],
    config: DocumentsConfig | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Parse in-memory uploads (e.g. Streamlit's UploadedFile name and getvalue())."""
    config = config or DocumentsConfig()
    jobs = [(name, partial(parse_bytes, name, data, config)) for name, data in files]
    return _run(jobs, progress)
