"""HTML for text with marked spans: PII highlights, query-term highlights, chunk boundaries.

All text is escaped; styling is inline so the snippets render the same in `st.html` and a file.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from rag.chunking import Chunk

BOX_STYLE = (
    "font-family: ui-monospace, monospace; font-size: 0.8rem; line-height: 1.9; "
    "white-space: pre-wrap; word-break: break-word; max-height: 34rem; overflow-y: auto; "
    "padding: 0.5rem; border: 1px solid rgba(128,128,128,0.35); border-radius: 0.4rem;"
)
MARK_COLOR = "rgba(250, 204, 21, 0.55)"  # query terms
PII_COLOR = "rgba(239, 68, 68, 0.30)"
LEAF_COLORS = ("rgba(59, 130, 246, 0.20)", "rgba(16, 185, 129, 0.22)")  # alternating chunks
OVERLAP_COLOR = "rgba(245, 158, 11, 0.55)"  # text inside two or more chunks of one level
PARENT_COLORS = ("#6366f1", "#db2777")  # alternating underline of the enclosing level
SELECTED_COLOR = "rgba(244, 63, 94, 0.30)"  # the chunk picked in the inspector
GAP_STYLE = "color: rgba(128,128,128,0.75); text-decoration: line-through;"  # uncovered text


@dataclass(frozen=True)
class Mark:
    """Highlight `text[start:end]`; `label` becomes the hover title."""

    start: int
    end: int
    label: str = ""
    color: str = MARK_COLOR


def _boundaries(lo: int, hi: int, spans: Iterable[tuple[int, int]]) -> list[int]:
    points = {lo, hi}
    for start, end in spans:
        points.update(p for p in (start, end) if lo < p < hi)
    return sorted(points)


def highlight_spans(text: str, marks: Sequence[Mark], limit: int | None = None) -> str:
    """`text` (cut at `limit` chars) as escaped HTML with each mark wrapped in a coloured <mark>."""
    hi = len(text) if limit is None else min(limit, len(text))
    points = _boundaries(0, hi, ((m.start, m.end) for m in marks))
    parts: list[str] = []
    for start, end in pairwise(points):
        piece = html.escape(text[start:end])
        covering = [m for m in marks if m.start <= start and end <= m.end]
        if covering:
            mark = covering[0]
            title = html.escape(" / ".join(m.label for m in covering if m.label), quote=True)
            piece = (
                f'<mark title="{title}" style="background: {mark.color}; padding: 0 1px; '
                f'border-radius: 2px;">{piece}</mark>'
            )
        parts.append(piece)
    suffix = "…" if hi < len(text) else ""
    return f'<div style="{BOX_STYLE}">{"".join(parts)}{suffix}</div>'


def term_marks(text: str, terms: Iterable[str]) -> list[Mark]:
    """Whole-word, case-insensitive occurrences of `terms` in `text`."""
    words = sorted({t for t in terms if t}, key=len, reverse=True)
    if not words:
        return []
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    return [Mark(m.start(), m.end(), m.group(0).lower()) for m in pattern.finditer(text)]


def pattern_marks(text: str, pattern: str, color: str = MARK_COLOR) -> list[Mark]:
    """Every match of regex `pattern` in `text` (e.g. redaction placeholders)."""
    return [Mark(m.start(), m.end(), m.group(0), color) for m in re.finditer(pattern, text)]


def highlight_terms(text: str, terms: Iterable[str], limit: int | None = None) -> str:
    """`text` with every whole-word occurrence of a query term highlighted."""
    return highlight_spans(text, term_marks(text, terms), limit)


def chunk_depths(chunks: Sequence[Chunk]) -> dict[str, int]:
    """Nesting depth of each chunk: 0 for a chunk without a parent among `chunks`."""
    by_id = {c.chunk_id: c for c in chunks}
    depths: dict[str, int] = {}
    for chunk in chunks:
        depth, seen, node = 0, {chunk.chunk_id}, chunk
        while node.parent_id in by_id and node.parent_id not in seen:  # guard against cycles
            seen.add(node.parent_id)
            node = by_id[node.parent_id]
            depth += 1
        depths[chunk.chunk_id] = depth
    return depths


def chunk_labels(chunks: Sequence[Chunk]) -> dict[str, str]:
    """Short display labels: "3" for flat chunks, "P2"/"C7" style (level initial + index) when nested."""
    nested = any(c.parent_id for c in chunks)
    counters: dict[str, int] = {}
    labels: dict[str, str] = {}
    for chunk in sorted(chunks, key=lambda c: (c.level, c.start, c.end)):
        counters[chunk.level] = counters.get(chunk.level, 0) + 1
        prefix = chunk.level[:1].upper() if nested else ""
        labels[chunk.chunk_id] = f"{prefix}{counters[chunk.level]}"
    return labels


def _order_within_level(chunks: Sequence[Chunk], depths: dict[str, int]) -> dict[str, int]:
    """Position of each chunk among the chunks of its own depth, so colours alternate per level."""
    order: dict[str, int] = {}
    counters: dict[int, int] = {}
    for chunk in sorted(chunks, key=lambda c: (c.start, c.end)):
        depth = depths[chunk.chunk_id]
        order[chunk.chunk_id] = counters.get(depth, 0)
        counters[depth] = order[chunk.chunk_id] + 1
    return order


def _badge(label: str, color: str) -> str:
    return (
        f'<sup style="font-size: 0.62rem; font-weight: 600; color: white; background: {color}; '
        f'border-radius: 3px; padding: 0 3px; margin-right: 1px;">{html.escape(label)}</sup>'
    )


def chunk_boundaries_html(
    text: str, chunks: Sequence[Chunk], selected: str | None = None, limit: int | None = None
) -> str:
    """`text` with chunk spans drawn: the finest level as alternating backgrounds (overlaps in
    amber), the enclosing level as alternating underlines, a badge at every chunk start, text
    outside every chunk struck through, and the `selected` chunk in rose."""
    hi = len(text) if limit is None else min(limit, len(text))
    visible = [c for c in chunks if c.start < hi and c.end > 0]
    depths = chunk_depths(chunks)
    leaf_depth = max((depths[c.chunk_id] for c in visible), default=0)
    order = _order_within_level(chunks, depths)
    labels = chunk_labels(chunks)
    leaves = [c for c in visible if depths[c.chunk_id] == leaf_depth]
    outers = [c for c in visible if depths[c.chunk_id] == leaf_depth - 1]
    starts: dict[int, list[Chunk]] = {}
    for chunk in visible:
        starts.setdefault(chunk.start, []).append(chunk)

    points = _boundaries(0, hi, ((c.start, c.end) for c in visible))
    parts: list[str] = []
    for start, end in pairwise(points):
        for chunk in sorted(starts.get(start, []), key=lambda c: depths[c.chunk_id]):
            is_leaf = depths[chunk.chunk_id] == leaf_depth
            color = "#2563eb" if is_leaf else PARENT_COLORS[order[chunk.chunk_id] % 2]
            parts.append(_badge(labels[chunk.chunk_id], color))
        in_leaves = [c for c in leaves if c.start <= start and end <= c.end]
        in_outers = [c for c in outers if c.start <= start and end <= c.end]
        style: list[str] = []
        if selected and any(c.chunk_id == selected for c in (*in_leaves, *in_outers)):
            style.append(f"background: {SELECTED_COLOR};")
        elif len(in_leaves) > 1:
            style.append(f"background: {OVERLAP_COLOR};")
        elif in_leaves:
            style.append(f"background: {LEAF_COLORS[order[in_leaves[0].chunk_id] % 2]};")
        if in_outers:
            line = "double" if len(in_outers) > 1 else "solid"
            color = PARENT_COLORS[order[in_outers[0].chunk_id] % 2]
            style.append(f"border-bottom: 3px {line} {color};")
        if not in_leaves and not in_outers and text[start:end].strip():
            style.append(GAP_STYLE)
        piece = html.escape(text[start:end])
        parts.append(f'<span style="{" ".join(style)}">{piece}</span>' if style else piece)
    suffix = f"\n… ({len(text) - hi:,} more characters)" if hi < len(text) else ""
    return f'<div style="{BOX_STYLE}">{"".join(parts)}{html.escape(suffix)}</div>'


def chunk_legend_html(nested: bool) -> str:
    """A one-line key for chunk_boundaries_html."""
    items = [
        f'<span style="background: {LEAF_COLORS[0]}; padding: 0 4px;">chunk</span>',
        f'<span style="background: {LEAF_COLORS[1]}; padding: 0 4px;">next chunk</span>',
        f'<span style="background: {OVERLAP_COLOR}; padding: 0 4px;">overlap</span>',
        f'<span style="{GAP_STYLE}">not in any chunk</span>',
        f'<span style="background: {SELECTED_COLOR}; padding: 0 4px;">selected chunk</span>',
    ]
    if nested:
        items.insert(
            3, f'<span style="border-bottom: 3px solid {PARENT_COLORS[0]};">parent span</span>'
        )
    return '<div style="font-size: 0.8rem;">' + " &nbsp; ".join(items) + "</div>"
