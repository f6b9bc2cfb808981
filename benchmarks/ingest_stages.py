"""`PYTHONPATH=. python benchmarks/ingest_stages.py TIMINGS.json LAUNCHED ARGS…`: `python -m rag
ingest ARGS…` with a stopwatch around each stage, for `python -m benchmarks ingest_speed`'s split.

It runs the real CLI (rag.cli.main) in this process after wrapping the functions each stage
calls once or a few times (parse, chunk, model load, embed, upsert, HNSW build, BM25, …), so
the split costs no measurable time; the plain `python -m rag ingest` rounds of the benchmark
give the headline figure. LAUNCHED is the parent's `time.time()` just before it started this
process (interpreter start-up is the gap to this module's first line). The file is written at
exit, after the store's own exit handler has flushed and closed it.
"""

from __future__ import annotations

import time

_FIRST_LINE = time.time()

import atexit  # noqa: E402  (the first line above is the point: nothing imported before it)
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

# what each stage's wrapped function is: (stage, module, attribute path)
WRAPPED = (
    ("parse", "rag.ingestion.parse", "ingest_paths"),
    ("open collection", "rag.ingestion.run", "open_collection"),
    ("choose graph (cpu check read)", "rag.index.catalogue", "Catalogue.pinned"),
    ("redact", "rag.index.ingest", "redact_documents"),
    ("chunk", "rag.index.ingest", "chunk_pairs"),
    ("embed (incl. model load)", "rag.index.ingest", "embed_texts"),
    ("model load", "rag.embed", "load_backend"),
    ("prepare (BM25 tokens and vectors, payloads; beside embed)", "rag.index.writer",
     "CollectionWriter.prepare"),
    ("upsert (incl. store create)", "rag.index.writer", "CollectionWriter._write_points"),
    ("store create", "rag.index.edge_client", "EdgeClient.create"),
    ("index build (HNSW optimize)", "rag.index.edge_client", "EdgeClient.optimize"),
    ("BM25 index add", "rag.index.sparse.in_process", "InProcessBM25.add"),
    ("BM25 index save", "rag.index.sparse.in_process", "InProcessBM25.save"),
    ("keep document texts", "rag.index.document_texts", "DocumentTexts.put"),
    ("manifest commit", "rag.index.writer", "CollectionWriter._record"),
    ("derived index sync", "rag.ingestion.run", "resolve"),
    ("store close (flush)", "rag.index.edge_client", "EdgeClient.close"),
)


def _wrap(seconds: dict[str, float], calls: dict[str, int], stage: str,
          fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - started
            calls[stage] = calls.get(stage, 0) + 1

    return timed


def install(seconds: dict[str, float], calls: dict[str, int]) -> None:
    """Wrap every WRAPPED function; a renamed one fails here, loudly, not as a silent zero."""
    import importlib

    for stage, module_name, path in WRAPPED:
        owner: Any = importlib.import_module(module_name)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        original = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name)
        if original is None:
            raise AttributeError(f"ingest_stages: {module_name}.{path} no longer exists")
        setattr(owner, name, _wrap(seconds, calls, stage, original))


def main(argv: list[str]) -> int:
    out, launched, rag_args = argv[0], float(argv[1]), argv[2:]
    seconds: dict[str, float] = {}
    calls: dict[str, int] = {}
    marks: dict[str, float] = {"launched": launched, "first_line": _FIRST_LINE}

    def write() -> None:  # registered first, so it runs last: after the store's own close
        marks["exit_handlers_done"] = time.time()
        payload = {"marks": marks, "seconds": seconds, "calls": calls}
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=1)

    atexit.register(write)
    import rag.cli.ingest
    import rag.ingestion  # noqa: F401  (the pipeline it imports when it runs)
    from rag.cli import main as rag_main  # what `python -m rag` imports first

    marks["imported"] = time.time()
    install(seconds, calls)
    marks["cli_start"] = time.time()
    code = rag_main(rag_args)
    marks["cli_done"] = time.time()
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
