"""CSV: the header line kept, then each row as a readable `column: value | column: value` line."""

from __future__ import annotations

import csv
import io
from types import MappingProxyType

from rag.documents.decode import decode_notes, decode_text
from rag.documents.errors import DocumentError
from rag.documents.parsers.base import PARSERS, ParsedText

_DELIMITERS = ",;\t|"
_SNIFF_CHARS = 16_384


def _dialect(sample: str) -> type[csv.Dialect] | csv.Dialect:
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS)
    except csv.Error:  # one-column files give the sniffer nothing to find
        return csv.excel


def _row_line(header: list[str], row: list[str]) -> str:
    """`name: value` pairs for non-empty cells; cells beyond the header get `column N` names."""
    pairs = []
    for index, cell in enumerate(row):
        value = " ".join(cell.split())
        if value:
            column = header[index] if index < len(header) and header[index] else f"column {index + 1}"
            pairs.append(f"{column}: {value}")
    return " | ".join(pairs)


@PARSERS.register(".csv")
def parse_csv(data: bytes, name: str) -> ParsedText:
    """Rows keep their order; a row's own line answers "what is X's Y" without the header nearby."""
    decoded = decode_text(data)
    try:
        rows = list(csv.reader(io.StringIO(decoded.text), _dialect(decoded.text[:_SNIFF_CHARS])))
    except csv.Error as exc:
        raise DocumentError(f"CSV cannot be read: {exc}", "check quoting, or export it again") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise DocumentError("CSV has no rows", "check that the export contains data")
    header = [" ".join(cell.split()) for cell in rows[0]]
    lines = [" | ".join(header)] + [line for line in (_row_line(header, r) for r in rows[1:]) if line]
    extra = {"rows": len(rows) - 1, "columns": tuple(header), **decode_notes(decoded)}
    return ParsedText("\n".join(lines), None, (), decoded.encoding, None, MappingProxyType(extra))
