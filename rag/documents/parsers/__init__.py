"""Format parsers, one module each, registered in PARSERS by file extension.

A format's module (and its library: pypdf, python-docx, python-pptx, BeautifulSoup) is imported
on the first file of that format, so an ingest of text files does not pay ~0.3 s of imports
for PDF, Office and HTML parsers it never runs."""

from rag.documents.parsers.base import PARSERS, ParsedText, Parser

_MODULES = {  # extension -> the module under rag.documents.parsers that registers it
    ".txt": "text", ".md": "text", ".markdown": "text", ".csv": "csv_rows", ".html": "html",
    ".htm": "html", ".pdf": "pdf", ".pptx": "slides", ".docx": "word",
}
for _extension, _module in _MODULES.items():
    PARSERS.add_lazy(_extension, f"rag.documents.parsers.{_module}")

__all__ = ["PARSERS", "ParsedText", "Parser"]
