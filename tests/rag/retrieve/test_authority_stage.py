"""EchoMind's authoritative sort: documents before transcripts among tied scores only."""

from types import MappingProxyType

from rag.chunking.base import Chunk
from rag.index.hits import Candidate
from rag.retrieve.authority import is_transcript, prefer_authoritative


def cand(cid: str, score: float, **meta: object) -> Candidate:
    return Candidate(Chunk(cid, f"doc-{cid}", 0, 4, "text", metadata=MappingProxyType(meta)), score)


def test_transcripts_are_told_by_type_tag_or_name() -> None:
    assert is_transcript(cand("a", 1, type="transcript").chunk)
    assert is_transcript(cand("b", 1, tags=("meeting", "transcript")).chunk)
    assert is_transcript(cand("c", 1, tags="x, transcript").chunk)
    assert is_transcript(cand("d", 1, source="/up/transcript_42.txt").chunk)
    assert not is_transcript(cand("e", 1, source="handbook.pdf", tags=("policy",)).chunk)


def test_a_document_tied_with_a_transcript_moves_ahead_and_scores_stay() -> None:
    items = (cand("talk", 0.5, type="transcript"), cand("doc", 0.5, source="a.pdf"),
             cand("low", 0.2, source="b.pdf"))
    out = prefer_authoritative(items)
    assert [c.chunk_id for c in out.candidates] == ["doc", "talk", "low"]
    assert [c.score for c in out.candidates] == [0.5, 0.5, 0.2]
    assert out.moved == ("doc",) and out.tie_groups == 1
    assert "authority" in out.candidates[0].notes[0]
    assert items[0].chunk_id == "talk" and not items[1].notes  # inputs untouched


def test_only_near_ties_reorder_and_the_tolerance_decides() -> None:
    items = (cand("talk", 0.50, type="transcript"), cand("doc", 0.497, source="a.pdf"))
    assert [c.chunk_id for c in prefer_authoritative(items).candidates] == ["talk", "doc"]
    loose = prefer_authoritative(items, tolerance=0.01)
    assert [c.chunk_id for c in loose.candidates] == ["doc", "talk"]


def test_empty_and_single_inputs() -> None:
    assert prefer_authoritative(()).candidates == ()
    assert prefer_authoritative((cand("x", 1),)).moved == ()
