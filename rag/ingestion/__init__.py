"""Ingestion as a pipeline on the query's runner: parse → redact → chunk → embed → write, each a
registered stage with a typed output and declared inputs, recorded in a Trace (rag.ingestion.run).
Every way documents enter an index goes through it: `python -m rag ingest`, the Documents page,
the sample collection, and every index derived from a collection's kept text (rag.index.derived).
"""

from rag.ingestion.registry import INGEST_ORDER, INGEST_STAGES, FilePaths, Parsed, Uploads
from rag.ingestion.run import IngestRun, ingest_files, write_documents

__all__ = ["INGEST_ORDER", "INGEST_STAGES", "FilePaths", "IngestRun", "Parsed", "Uploads",
           "ingest_files", "write_documents"]
