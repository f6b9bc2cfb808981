"""Shapes of the context stage: numbered blocks, the token budget, and what each step did."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Protocol

from rag.llm.base import Message
from rag.records.chunk import Chunk
from rag.steps import StepReport, StepStatus

BlockOrigin = Literal["retrieved", "parent", "document", "summary"]
FlaggedPolicy = Literal["withhold", "fence"]


class ChunkLookup(Protocol):
    """Where context expansion finds parents and siblings (a collection, or a ChunkTable)."""

    def get_chunk(self, chunk_id: str) -> Chunk | None: ...

    def document_chunks(self, doc_id: str) -> Sequence[Chunk]: ...  # in document order


class ChunkTable:
    """A ChunkLookup over an iterable of chunks, e.g. `ChunkTable(collection.chunks())`."""

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        self._by_id: dict[str, Chunk] = {}
        self._by_doc: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            self._by_id[chunk.chunk_id] = chunk
            self._by_doc.setdefault(chunk.doc_id, []).append(chunk)
        for doc_chunks in self._by_doc.values():
            doc_chunks.sort(key=lambda c: (c.start, -c.end))  # a parent before its first child

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        return self._by_id.get(chunk_id)

    def document_chunks(self, doc_id: str) -> Sequence[Chunk]:
        return tuple(self._by_doc.get(doc_id, ()))


@dataclass(frozen=True)
class ContextBlock:
    """One block of the prompt, cited as `[Source n]` once numbered.

    `text` is what the model reads. When `verbatim`, it equals the document text at
    [start, end); compression and de-duplication make it a subset of those sentences instead.
    """

    text: str
    doc_id: str
    chunk_id: str  # the chunk whose text this is (a parent, a sibling or the hit itself)
    start: int
    end: int
    score: float  # the retrieval/rerank score of the best hit it stands for
    rank: int  # 1-based rank of that hit in the candidate list
    origin: BlockOrigin = "retrieved"
    hit_ids: tuple[str, ...] = ()  # retrieved chunk ids folded into this block
    title: str = ""
    page: int | None = None
    verbatim: bool = True
    markers: tuple[str, ...] = ()  # "[Partial]", "[Conflicting]" (EchoMind compression)
    n: int = 0  # citation number, assigned after ordering
    tokens: int = 0

    @property
    def label(self) -> str:
        """Axiom's block header: `[Source 1: file.pdf (page 5)]`."""
        where = f" (page {self.page})" if self.page is not None else ""
        name = f": {self.title}{where}" if self.title else ""
        return f"[Source {self.n}{name}]"


@dataclass(frozen=True)
class TokenBudget:
    """Adaptive's split of the context window; `allotted` and `used` are token counts per part."""

    window: int
    tokenizer: str  # which tokenizer counted (exact MiniLM word-piece, or an estimate)
    shares: Mapping[str, float]
    allotted: Mapping[str, int]
    used: Mapping[str, int]
    dropped_blocks: int = 0
    truncated_blocks: int = 0

    def rows(self) -> list[dict[str, float | int | str]]:
        """One row per part (system, history, chunks, generation) for a table or a bar chart."""
        return [
            {
                "part": part,
                "share": self.shares[part],
                "allotted": self.allotted[part],
                "used": self.used.get(part, 0),
            }
            for part in self.shares
        ]


def context_step(
    name: str, blocks_in: int, blocks_out: int, detail: str = "", warnings: tuple[str, ...] = ()
) -> StepReport:
    """A context step's report: blocks in and out, what it did (fell back when it warned)."""
    status: StepStatus = "fallback" if warnings else "ok"
    return StepReport(name, status, detail, n_in=blocks_in, n_out=blocks_out, warnings=warnings)


@dataclass(frozen=True)
class HeldBack:
    """A passage the screen flagged: which chunk, the families found and what was done."""

    chunk_id: str
    doc_id: str
    title: str
    findings: tuple[str, ...]  # "fake_delimiter (text)", "hidden_text (tags)", …
    snippet: str
    action: FlaggedPolicy

    def describe(self) -> str:
        verb = "withheld from generation" if self.action == "withhold" else "kept, fenced and marked"
        name = self.title or self.doc_id
        found = ", ".join(self.findings)
        return f"passage {self.chunk_id} ({name}) {verb}: {found} \u2026{self.snippet}\u2026"


@dataclass(frozen=True)
class BuiltContext:
    """The context as sent: numbered blocks, budget, steps; `no_rag` when nothing was relevant."""

    query: str
    blocks: tuple[ContextBlock, ...]
    budget: TokenBudget
    steps: tuple[StepReport, ...] = ()
    no_rag: bool = False
    reason: str = ""
    best_score: float | None = None
    settings: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    history: tuple[Message, ...] = ()  # the conversation messages that fit the history share
    held_back: tuple[HeldBack, ...] = ()  # passages the injection screen flagged (rag.context.screen)

    def block(self, n: int) -> ContextBlock | None:
        """The block cited as [Source n], if any."""
        return next((b for b in self.blocks if b.n == n), None)

    def render(self) -> str:
        """The context text exactly as the prompt carries it (Axiom's format)."""
        parts = []
        for b in self.blocks:
            marker = " ".join(b.markers)
            parts.append(f"{b.label}\n{marker + ' ' if marker else ''}{b.text}")
        return "\n---\n".join(parts)

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for s in self.steps for w in s.warnings)
