"""Pipeline stage "authority": EchoMind's `_prefer_authoritative_sort` (retrieval step 7).

Candidates stay sorted by score; among equal or near-equal scores, chunks of uploaded documents
come before transcript chunks. Scores are never changed, only the order inside a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from rag.records.chunk import Chunk
from rag.records.hits import Candidate
from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageResult, StageSpec


def is_transcript(chunk: Chunk) -> bool:
    """EchoMind stores transcripts with meta type "transcript" and a `transcript_<id>` name;
    here the type, a "transcript" tag or such a source name marks one."""
    meta = chunk.metadata
    if str(meta.get("type", "")).lower() == "transcript":
        return True
    tags = meta.get("tags") or ()
    tags = tags.split(",") if isinstance(tags, str) else tags
    if any(str(t).strip().lower() == "transcript" for t in tags):
        return True
    name = PurePath(str(meta.get("source") or "")).name.lower()
    return name.startswith("transcript")


def _tied(a: float, b: float, tolerance: float) -> bool:
    """Equal, or within `tolerance` of the larger magnitude ("equal or very close")."""
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


@dataclass(frozen=True)
class AuthorityResult:
    candidates: tuple[Candidate, ...]
    moved: tuple[str, ...]  # chunk ids that moved ahead of a transcript they tied with
    tie_groups: int  # groups of two or more tied candidates
    transcripts: int = 0  # transcript chunks among the candidates
    tolerance: float = 0.0  # relative score gap counted as a tie


def prefer_authoritative(candidates: Sequence[Candidate], tolerance: float = 0.0
                         ) -> AuthorityResult:
    """Within each run of tied scores (best first), documents before transcripts, stably."""
    ordered = sorted(candidates, key=lambda c: -c.score)
    out: list[Candidate] = []
    moved: list[str] = []
    ties = 0
    i = 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and _tied(ordered[i].score, ordered[j].score, tolerance):
            j += 1
        group = ordered[i:j]
        if len(group) > 1:
            ties += 1
            docs = [c for c in group if not is_transcript(c.chunk)]
            talks = [c for c in group if is_transcript(c.chunk)]
            first = next(k for k, c in enumerate(group) if is_transcript(c.chunk)) if talks else 0
            moved += [c.chunk_id for k, c in enumerate(group) if talks and k > first and c in docs]
            group = docs + talks
        out += group
        i = j
    marked = tuple(
        replace(c, notes=(*c.notes, "authority: a document ranked before a tied transcript"))
        if c.chunk_id in moved else c
        for c in out
    )
    transcripts = sum(is_transcript(c.chunk) for c in candidates)
    return AuthorityResult(marked, tuple(moved), ties, transcripts, tolerance)


def run_authority(state: PipelineState, env: StageEnv) -> StageResult:
    tolerance = env.config.postprocess.authoritative_tie
    found = prefer_authoritative(state.candidates, tolerance)
    reason = "" if found.moved else "no document tied with a transcript ranked below it"
    return StageResult(replace(state, candidates=found.candidates), found,
                       {"candidates": len(state.candidates)}, reason=reason)


def _off(config: PipelineConfig) -> str | None:
    return None if config.postprocess.prefer_authoritative else \
        "postprocess.prefer_authoritative is false"


STAGES.add("authority", StageSpec("authority", run_authority, AuthorityResult, _off,
                                  settings=lambda c: c.postprocess))
