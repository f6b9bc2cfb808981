"""The embedded entity graph: entity spotting, leaf-only co-occurrence, the walk, hubs, filters."""

from types import MappingProxyType

from rag.chunking.base import Chunk
from rag.context.graph import EntityGraph, chunk_entities, enrich
from rag.context.graph_stage import allowed
from rag.settings.enrich import GraphConfig
from rag.settings.retrieval import FilterConfig


def chunk(cid: str, text: str, parent: str | None = None, **meta: object) -> Chunk:
    return Chunk(cid, f"doc-{cid}", 0, len(text), text, parent_id=parent,
                 metadata=MappingProxyType(meta))


CHUNKS = [
    chunk("a", "Install it with the APT tool. Then LumenSync copies every vault."),
    chunk("b", "The vault key lives in the Secure Enclave on devices with LumenSync."),
    chunk("c", "The Secure Enclave never exports the key to Android phones."),
    chunk("d", "Android phones without Secure Enclave use KeyStore."),
    chunk("e", "Nothing to see here, no names at all."),
]


def test_entities_are_names_not_sentence_openers() -> None:
    found = chunk_entities("Setting up: open the Admin Console. Lumen Notes 4.0 uses BM25 and SSO.")
    assert {"admin console", "lumen notes", "bm25", "sso"} <= set(found)
    assert "setting" not in found and "open" not in found


def test_walk_reaches_two_hops_nearest_first_and_excludes_retrieved() -> None:
    graph = EntityGraph.build(CHUNKS)
    cfg = GraphConfig(enabled=True, max_depth=2, max_chunks=10)
    found = enrich(graph, ["LumenSync"], [], exclude={"a"}, cfg=cfg)
    assert found.seeds == ("lumensync",)
    assert found.reached["secure enclave"] == 1 and found.reached["android"] == 2
    ids = [r.chunk.chunk_id for r in found.related]
    assert ids[0] == "b"  # names the query entity itself (0 hops)
    assert "a" not in ids and "e" not in ids  # retrieved already / mentions nothing reached
    assert {"c", "d"} <= set(ids)
    one_hop = enrich(graph, ["LumenSync"], [], exclude=(), cfg=GraphConfig(max_depth=1))
    assert "android" not in one_hop.reached


def test_unknown_entities_and_hubs_are_reported() -> None:
    graph = EntityGraph.build(CHUNKS)
    found = enrich(graph, ["Qdrant"], [], exclude=(), cfg=GraphConfig(max_depth=2))
    assert found.unknown == ("qdrant",) and found.related == ()
    hub = enrich(graph, ["Secure Enclave"], [], exclude=(), cfg=GraphConfig(max_entity_chunks=2))
    assert "secure enclave" in hub.skipped_hubs and hub.related == ()


def test_parents_do_not_link_their_childrens_names() -> None:
    parent = chunk("p", "Alpha Corp and Beta Labs and Gamma Inc.")
    kids = [chunk("k1", "We met Alpha Corp.", "p"), chunk("k2", "Gamma Inc called.", "p")]
    graph = EntityGraph.build([parent, *kids])
    assert "gamma inc" not in graph.edges.get("alpha corp", {})
    assert set(graph.mentions) == {"alpha corp", "gamma inc"}


def test_allowed_follows_the_payload_filter_rules() -> None:
    private = chunk("x", "t", visibility="private", owner="alice", source="s.md")
    public = chunk("y", "t", visibility="public", source="s.md")
    assert allowed(private, FilterConfig(owner="alice"))
    assert not allowed(private, FilterConfig(owner="bob")) and not allowed(private, FilterConfig())
    assert allowed(public, FilterConfig(owner="bob"))
    assert not allowed(public, FilterConfig(sources=["other.md"]))
    assert not allowed(public, FilterConfig(levels=["paragraph"]))
