"""Format parsers, one module each, registered in PARSERS by file extension."""

from rag.documents.parsers import csv_rows, html, pdf, slides, text, word  # noqa: F401  (registration)
from rag.documents.parsers.base import PARSERS, ParsedText, Parser

__all__ = ["PARSERS", "ParsedText", "Parser"]
