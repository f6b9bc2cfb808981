"""Zero leaks: every preset × (owner, other user, anonymous, case-changed name) × (BM25, dense,
hybrid) through the Systems page's path (every system in one process, the semantic cache warmed by
another user first), plus the retrievers asked directly. A leak is a private secret of someone
other than the asking user anywhere in a run's trace or a search's results.

The hashing embedder stands in for the model: what is checked is who sees what, not ranking.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator

import numpy as np
import pytest

from rag.config import PipelineConfig, available_presets, load_preset, with_overrides
from rag.documents.base import Document, DocumentMetadata
from rag.embed import get_embedder
from rag.index import Access, Collection, open_collection
from rag.index.derived import index_for
from rag.privacy import normalize_user
from rag.query.stage import collection_vocabulary
from rag.retrieve.search import clear_candidate_cache
from rag.settings.retrieval import FilterConfig
from rag.systems import compare

PRESETS = available_presets()
QUERY = "What is the vault code of the archive?"
PUBLIC = "Handbook: every vault code of the archive is kept on the recovery sheet in the safe."
SECRETS = {"alice": "AZURE4471", "bob": "ZEBRA9902"}
USERS = ("alice", "bob", None, "ALICE")  # owner, other user, anonymous, case-changed owner
MODES = {"bm25": ["bm25"], "dense": ["dense"], "hybrid": ["bm25", "dense"]}
OFFLINE = {
    "embedding.backend": "hashing", "generation.mode": "extractive",
    "grounding.model_check": "none", "rerank.enabled": False,  # no model loads: not the point
    "query.guard.rate_limit": None, "query.cache.enabled": True,  # every preset caches answers
    "retrieval.depth": 20, "retrieval.top_k": 5, "postprocess.threshold": None,
}


def doc(source: str, text: str) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    meta = DocumentMetadata(source=source, title=source.split(".")[0], content_hash=digest,
                            format="txt")
    return Document(f"{source}#{digest[:8]}", text, meta)


FILLER = ("APT resolves package dependencies.", "systemd restarts failed services.",
          "rsync copies only the changed parts of files.", "DNS resolves host names.",
          "A cron job runs a command on a schedule.")  # so BM25 finds the vault terms rare
DOCUMENTS = {
    "handbook.txt": (doc("handbook.txt", PUBLIC), Access()),
    **{f"filler{i}.txt": (doc(f"filler{i}.txt", text), Access()) for i, text in enumerate(FILLER)},
    **{f"{user}.txt": (doc(f"{user}.txt", f"Private note: the vault code of the archive is "
                                          f"{secret}. Keep the vault code secret."),
                       Access(owner=user.capitalize(), visibility="private"))
       for user, secret in SECRETS.items()},
}


def leaked(text: str, user: str | None) -> list[str]:
    """The secrets in `text` that `user` may not see."""
    me = normalize_user(user)
    return [secret for owner, secret in SECRETS.items() if owner != me and secret in text]


def config_for(preset: str, mode: str) -> PipelineConfig:
    config = with_overrides(load_preset(preset), {**OFFLINE, "retrieval.retrievers": MODES[mode]})
    return config.model_copy(update={"name": f"{preset}-{mode}"})


@pytest.fixture(scope="module")
def collections() -> Iterator[dict[str, Collection]]:
    """One collection of the documents (each with its access); every preset reads the index its
    settings need — the collection's own, or one derived from it — by preset."""
    clear_candidate_cache()
    documents = open_collection(f"privacy-{uuid.uuid4().hex[:8]}", create=True)
    for document, access in DOCUMENTS.values():
        documents.add_documents([document], config_for("hybrid", "hybrid"), access=access,
                                progress=False)
    yield {preset: index_for(documents, config_for(preset, "hybrid")) for preset in PRESETS}
    clear_candidate_cache()


def pointed(collections: dict[str, Collection], config: PipelineConfig
            ) -> tuple[PipelineConfig, Collection]:
    collection = collections[config.name.rsplit("-", 1)[0]]
    return with_overrides(config, {"index.collection": collection.name}), collection


@pytest.mark.parametrize("mode", list(MODES))
def test_no_preset_leaks_through_the_systems_path_even_with_a_warm_cache(
    collections: dict[str, Collection], mode: str
) -> None:
    configs = [config_for(p, mode) for p in PRESETS]
    shown: dict[str | None, str] = {}
    for user in USERS:  # alice first: every system's semantic cache holds her answer after
        result = compare(QUERY, configs, lambda c: pointed(collections, c), user=user)
        for run in result.runs:
            exported = run.trace.to_json()
            assert leaked(exported, user) == [], (run.preset, user)
            shown[user] = shown.get(user, "") + exported
            if user in ("bob", None):  # another scope: alice's cached answer is never served
                assert run.trace.stage("understand") is None or \
                    run.trace.stage("understand").status != "cache_hit", (run.preset, user)
    # the suite can fail: the owner (in either spelling) does see her own secret
    assert SECRETS["alice"] in shown["alice"] and SECRETS["alice"] in shown["ALICE"]
    assert SECRETS["bob"] in shown["bob"]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_retrievers_asked_directly_never_return_another_users_chunk(
    collections: dict[str, Collection], preset: str
) -> None:
    collection = collections[preset]
    vector = get_embedder(config_for(preset, "dense").embedding).embed_query(QUERY)
    for user in USERS:
        filters = FilterConfig(owner=user)
        for ranked in (collection.sparse_search(QUERY, 20, filters),
                       collection.dense_search(np.asarray(vector), 20, filters)):
            texts = " ".join(c.chunk.text for c in ranked.candidates)
            assert leaked(texts, user) == [], (preset, ranked.retriever, user)
            if normalize_user(user) == "alice":
                assert SECRETS["alice"] in texts


def test_a_spelling_correction_never_spells_out_another_users_private_word(
    collections: dict[str, Collection],
) -> None:
    collection = collections["adaptive"]  # spelling is on in adaptive
    bob, anonymous = collection_vocabulary(collection, "bob"), collection_vocabulary(collection, None)
    assert "azure" not in bob and "azure" not in anonymous and "zebra" in bob
    assert "azure" in collection_vocabulary(collection, "Alice")


def test_changing_a_documents_owner_or_visibility_re_indexes_it(
    collections: dict[str, Collection],
) -> None:
    config = config_for("hybrid", "hybrid")
    collection = open_collection("privacy-owner-change", create=True)
    handbook, _ = DOCUMENTS["handbook.txt"]
    collection.add_documents([handbook], config, progress=False)
    again = collection.add_documents([handbook], config, progress=False,
                                     access=Access(owner="carol", visibility="private"))
    assert again.unchanged == () and again.replaced == ("handbook.txt",)
    vector = np.asarray(get_embedder(config.embedding).embed_query(QUERY))
    anonymous = collection.dense_search(vector, 10, FilterConfig())
    carol = collection.dense_search(vector, 10, FilterConfig(owner="Carol"))
    assert anonymous.candidates == () and len(carol.candidates) >= 1
    same = collection.add_documents([handbook], config, progress=False,
                                    access=Access(owner="CAROL", visibility="private"))
    assert same.unchanged == ("handbook.txt",)  # one user, however the name is typed
