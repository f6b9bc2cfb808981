"""Shared guard for Office Open XML files (.docx, .pptx): turn library errors into clear messages."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import TypeVar

from docx.opc.exceptions import OpcError
from lxml.etree import XMLSyntaxError
from pptx.exc import PythonPptxError

from rag.documents.errors import DocumentError

T = TypeVar("T")
# Legacy .doc/.ppt files and password-protected OOXML files are both OLE compound files.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def open_package(data: bytes, kind: str, opener: Callable[[io.BytesIO], T]) -> T:
    """Run python-docx/python-pptx's opener; any failure becomes a DocumentError naming `kind`."""
    if data.startswith(_OLE_MAGIC):
        raise DocumentError(
            f"not a .{kind} package: an old binary Office file or a password-protected one",
            f"remove the password, or open it in Office/LibreOffice and save as .{kind}",
        )
    try:
        return opener(io.BytesIO(data))
    except (zipfile.BadZipFile, OpcError, PythonPptxError, KeyError, ValueError, XMLSyntaxError) as exc:
        # KeyError: a part is missing from the zip; ValueError: e.g. a .pptx renamed to .docx
        raise DocumentError(
            f"not a valid .{kind} file ({type(exc).__name__}: {exc})",
            f"open it in Office/LibreOffice and save it again as .{kind}",
        ) from None
