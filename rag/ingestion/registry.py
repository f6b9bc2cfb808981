"""The ingest stages' order and registry, where they read from and write to (IngestEnv), and the
sources the parse stage reads. The runner is the query's (rag.pipeline.run_stages): the same
StageSpec, StageRecord and Trace; only the order and the registry are the ingest's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from rag.documents.ingest import Progress  # (files done, files, source), per parsed file
from rag.records.document import IngestReport
from rag.stages import StageEnv, StageRegistry

if TYPE_CHECKING:
    from rag.embed import Embedder
    from rag.index.payload import Access
    from rag.index.writer import CollectionWriter, OnProgress
    from rag.settings.pipeline import PipelineConfig

INGEST_ORDER = ("parse", "redact", "chunk", "embed", "write")

# stage -> module that registers it (imported on first use, like rag.stages.STAGE_MODULES)
INGEST_MODULES: Mapping[str, str] = MappingProxyType({
    "parse": "rag.ingestion.parse",
    "redact": "rag.ingestion.redact",
    "chunk": "rag.ingestion.chunk",
    "embed": "rag.ingestion.embed",
    "write": "rag.ingestion.write",
})  # fmt: skip

INGEST_STAGES = StageRegistry(INGEST_MODULES, order=INGEST_ORDER)


@dataclass(frozen=True)
class FilePaths:
    """Files and folders to parse (folders walked recursively); `workers` > 1 parses in forked
    processes (the CLI only: a server's threads make forking unsafe)."""

    paths: tuple[Path, ...]
    workers: int = 1
    progress: Progress | None = None


@dataclass(frozen=True)
class Uploads:
    """In-memory files (name, bytes), e.g. the Documents page's uploads."""

    files: tuple[tuple[str, bytes], ...]
    progress: Progress | None = None


@dataclass(frozen=True)
class Parsed:
    """Documents parsed before the run (`what` says where from: the Documents page's parse when
    the files were picked, a collection's kept text), with the seconds that took when known."""

    report: IngestReport
    what: str
    seconds: float | None = None


Source = FilePaths | Uploads | Parsed


class IngestEnv(StageEnv):
    """What an ingest's stages read besides the state: the config (StageEnv), what to parse, and
    where it goes — the index's writer (None until the parse stage has found documents), the
    access of what is added, the embedder, and progress reporting."""

    def __init__(
        self,
        config: PipelineConfig,
        source: Source,
        *,
        writer: CollectionWriter | None = None,
        access: Access | None = None,
        embedder: Embedder | None = None,
        progress: bool = True,
        on_progress: OnProgress | None = None,
    ) -> None:
        super().__init__(config)
        self.source = source
        self.writer = writer
        self.access = access
        self.embedder = embedder
        self.progress = progress
        self.on_progress = on_progress


def ingest_env(env: StageEnv) -> IngestEnv:
    """`env` as an ingest's; a query's env here is a wiring error, said plainly."""
    if not isinstance(env, IngestEnv):
        raise TypeError(f"an ingest stage ran with a {type(env).__name__}, not an IngestEnv "
                        "(ingest stages run through rag.ingestion.run)")
    return env


def target(env: IngestEnv) -> CollectionWriter:
    """The writer of the index being written; the stages after parse need one."""
    if env.writer is None:
        raise RuntimeError("no index to write to: rag.ingestion.run opens it after the parse stage")
    return env.writer
