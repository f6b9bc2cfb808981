"""Ingest stage `parse`: files (paths, uploads) → Documents plus one report line per file. A
broken, encrypted or empty file is skipped with the reason and what to do, and the run goes on;
when no file gives a document the run halts before anything is written. Documents parsed before
the run (the Documents page's parse, a collection's kept text) are passed on as they are."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from rag.documents import ingest_paths, ingest_uploads
from rag.ingestion.registry import INGEST_STAGES, FilePaths, Parsed, Uploads, ingest_env
from rag.records.document import IngestReport
from rag.stages import PipelineState, StageEnv, StageResult, StageSpec, StageStatus
from rag.trace import NOT_IN_TRACE


@dataclass(frozen=True)
class FileProblem:
    """A file that gave no document: what is wrong with it and what to do."""

    source: str
    problem: str
    action: str


@dataclass(frozen=True)
class ParsedFiles:
    """The parse stage's output: counts, every skipped file with its reason, the injection
    flags raised (indexed as data all the same), and the report the later stages read."""

    what: str  # where the documents came from
    files: int
    documents: int
    chars: int
    skipped: tuple[FileProblem, ...] = ()
    flagged: tuple[str, ...] = ()  # "source: warning"
    parse_s: float | None = None  # seconds parsing took, also when it ran before this run
    report: IngestReport = field(default=IngestReport((), ()), metadata=NOT_IN_TRACE)

    def describe(self) -> str:
        flagged = f", {len(self.flagged)} flagged" if self.flagged else ""
        return (f"{self.files} file(s) from {self.what}: {self.documents} parsed, "
                f"{len(self.skipped)} skipped{flagged}; {self.chars:,} characters")


def parsed_files(report: IngestReport, what: str, seconds: float | None) -> ParsedFiles:
    skipped = tuple(FileProblem(line.source, line.problem, line.action) for line in report.skipped)
    flagged = tuple(f"{line.source}: {w}" for line in report.lines for w in line.warnings)
    return ParsedFiles(what, len(report.lines), len(report.documents),
                       sum(len(d.text) for d in report.documents), skipped, flagged,
                       None if seconds is None else round(seconds, 3), report)


def run(state: PipelineState, env: StageEnv) -> StageResult:
    source = ingest_env(env).source
    started = time.perf_counter()
    if isinstance(source, FilePaths):
        report = ingest_paths(source.paths, progress=source.progress, workers=source.workers)
        what = f"{len(source.paths)} path(s)"
    elif isinstance(source, Uploads):
        report = ingest_uploads(list(source.files), progress=source.progress)
        what = f"{len(source.files)} upload(s)"
    else:
        report, what = source.report, source.what
    seconds = source.seconds if isinstance(source, Parsed) else time.perf_counter() - started
    output = parsed_files(report, what, seconds)
    warnings = tuple(f"skipped {p.source}: {p.problem} ({p.action})" for p in output.skipped)
    reason = ""
    if isinstance(source, Parsed):
        took = "" if source.seconds is None else f", in {source.seconds:.1f} s"
        reason = f"parsed before this run{took}; not parsed again"
    if not report.documents:
        halted = (f"nothing to ingest: all {len(report.lines)} file(s) skipped" if report.lines
                  else "nothing to ingest: no files")
        return StageResult(replace(state, halted=halted), output, warnings=warnings, reason=halted)
    status: StageStatus = "cache_hit" if isinstance(source, Parsed) else "ok"
    return StageResult(state, output, inputs={"source": what}, status=status, warnings=warnings,
                       reason=reason)


INGEST_STAGES.add("parse", StageSpec("parse", run, ParsedFiles, settings=lambda c: c.documents))
