"""LLM question generation against the fake OpenAI server: the pipeline's rows (answer = the
chunk's own sentences, provenance, exact spans), each filter's count, and the failure modes — a
failed call or a junk reply drops one row with its reason and the batch goes on."""

from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, reply, status
from fake_openai import fake_openai as fake_openai
from fake_openai import llm as llm

from eval.testsets.generate import (
    FILTERS,
    GenerationError,
    GenerationProgress,
    generate_from_chunks,
    generate_questions,
)
from rag.chunking.base import Chunk
from rag.config import load_preset, with_overrides
from rag.llm.client import Endpoint, LLMClient
from rag.paths import SAMPLES_DIR
from rag.settings.generation import GenerationConfig

DOCS = {
    "a.txt": ("Lumen keeps deleted notes in the Trash for thirty days. After that they are erased. "
              "An administrator can empty the Trash at any time from the settings page of the vault. "
              "Nothing emptied can be brought back by support. ") * 1,
    "b.txt": ("Attachments up to 250 MB each can be dropped into a note. Larger files are refused "
              "with a message naming the limit. Images are shown inline while other files become "
              "cards. Syncing large attachments happens in the background on Wi-Fi only. "),
    "c.txt": ("The Plus plan costs four dollars per month and adds version history. Teams pay per "
              "seat and get an admin console. Every plan includes end-to-end encrypted vaults. "
              "Billing happens on the first day of each month, prorated for new seats. "),
}


def _by_doc() -> dict[str, list[Chunk]]:
    return {doc: [Chunk(f"{doc}#0", doc, 0, len(text), text)] for doc, text in DOCS.items()}


def smart(body: dict[str, Any]) -> str:
    """A model that writes a fresh question per passage and picks sentence 2 as the answer."""
    prompt = str(body["messages"][-1]["content"])
    if "Write one question" in prompt:
        first = re.search(r"<passage>\n(\w+) (\w+)", prompt)
        assert first is not None
        return json.dumps({"question": f"What should a reader know about {first.group(1)} "
                                       f"{first.group(2)} here?"})
    if "numbered sentence per line" in prompt:
        return json.dumps({"sentences": [2], "coverage": "full"})
    return "OK."


def _client(server: FakeOpenAI, **settings: Any) -> LLMClient:
    config = GenerationConfig(**{"mode": "llm", "model": "fake-model", "retries": 0, "timeout_s": 2,
                                 **settings})
    return LLMClient(config, [Endpoint("primary", server.base_url, "fake-model")], sleep=lambda _: None)


def test_rows_carry_the_chunks_own_sentences_spans_and_provenance(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = smart
    seen: list[GenerationProgress] = []
    report = generate_from_chunks(_by_doc(), _client(fake_openai), "fake-model", 3, seed=0,
                                  progress=seen.append)
    assert report.sampled == 3 and report.per_document == dict.fromkeys(DOCS, 1)
    assert len(report.rows) == 3 and not any(report.filtered.values())
    assert "consistency" not in report.filtered and report.consistency_retriever is None
    for row in report.rows:
        (span,) = row["spans"]
        text = DOCS[span["doc"]]
        assert span["text"] == text[span["start"]:span["end"]]
        # sentence 2 of the chunk, verbatim: never model prose
        assert row["answer"] == re.split(r"(?<=\.) ", text.strip())[1]
        assert row["answerable"] is True and row["question"].endswith("?")
        prov = row["provenance"]
        assert prov["method"] == "llm" and prov["model"] == "fake-model"
        assert prov["source"]["doc"] == span["doc"] and "copies_passage" in prov["filters_passed"]
    assert [p.done for p in seen] == [1, 2, 3] and seen[-1].kept == 3 and seen[-1].eta_s == 0
    assert seen[-1].tokens_per_s is not None and seen[-1].tokens_per_s > 0


def test_each_filter_counts_what_it_removes(fake_openai: FakeOpenAI) -> None:
    bad = {"Lumen": "Tell me about the Trash.",                        # not a question
           "Attachments": DOCS["b.txt"].split(". ")[0] + "?",          # copies the passage
           "The": "Why?"}                                              # too short

    def per_passage(body: dict[str, Any]) -> str:
        first = re.search(r"<passage>\n(\w+)", str(body["messages"][-1]["content"]))
        assert first is not None
        return json.dumps({"question": bad[first.group(1)]})

    fake_openai.responder = per_passage
    report = generate_from_chunks(_by_doc(), _client(fake_openai), "fake-model", 3, seed=0)
    removed = {k: v for k, v in report.filtered.items() if v}
    assert removed == {"not_a_question": 1, "copies_passage": 1, "too_short": 1} and not report.rows
    assert sorted(d["reason"] for d in report.dropped) == sorted(removed)


def test_duplicates_and_no_answer_sentence(fake_openai: FakeOpenAI) -> None:
    same = json.dumps({"question": "How are notes kept safe in Lumen?"})
    fake_openai.script(reply(same), reply(json.dumps({"sentences": [1], "coverage": "full"})),
                       reply(same),  # exact duplicate of the kept one
                       reply(json.dumps({"question": "How are the notes kept safe in Lumen?"})),  # near
                       )
    report = generate_from_chunks(_by_doc(), _client(fake_openai), "fake-model", 3)
    assert len(report.rows) == 1
    assert report.filtered["exact_duplicate"] == 1 and report.filtered["near_duplicate"] == 1
    fake_openai.reset()
    fake_openai.script(reply(json.dumps({"question": "How are notes kept safe in Lumen?"})),
                       reply(json.dumps({"sentences": [], "coverage": "none"})))
    report = generate_from_chunks({"a.txt": _by_doc()["a.txt"]}, _client(fake_openai), "m", 1)
    assert report.filtered["no_answer_sentence"] == 1 and not report.rows


def test_a_failed_call_or_junk_drops_one_row_and_the_batch_goes_on(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = smart
    fake_openai.script(status(500), reply("I like turtles"))
    report = generate_from_chunks(_by_doc(), _client(fake_openai), "fake-model", 3)
    assert report.filtered["llm_failed"] == 1 and report.filtered["unusable_reply"] == 1
    assert len(report.rows) == 1
    failed = next(d for d in report.dropped if d["reason"] == "llm_failed")
    assert failed["detail"].startswith("server")


def test_a_timeout_is_counted_too(fake_openai: FakeOpenAI) -> None:
    from fake_openai import hang

    fake_openai.responder = smart
    fake_openai.script(hang(5))
    report = generate_from_chunks(_by_doc(), _client(fake_openai, timeout_s=0.3), "m", 2)
    assert report.filtered["llm_failed"] == 1 and len(report.rows) == 1
    assert "timeout" in next(d["detail"] for d in report.dropped)


def test_cancel_stops_between_chunks(fake_openai: FakeOpenAI) -> None:
    fake_openai.responder = smart
    done: list[int] = []
    report = generate_from_chunks(_by_doc(), _client(fake_openai), "m", 3,
                                  progress=lambda p: done.append(p.done), cancelled=lambda: len(done) >= 1)
    assert report.cancelled and len(report.rows) == 1 and report.sampled == 3


@pytest.fixture
def samples(tmp_path: Path, hashing_presets: None) -> str:
    from rag.cli import main as rag_main

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("lumen-notes-faq.txt", "lumen-notes-handbook.md"):
        shutil.copy(SAMPLES_DIR / name, docs / name)
    name = f"gen-{uuid.uuid4().hex[:8]}"
    assert rag_main(["ingest", str(docs), "--collection", name, "--preset", "bm25"]) == 0
    return name


def test_generate_questions_over_a_collection_with_bm25_consistency(
    samples: str, llm: FakeOpenAI
) -> None:
    def copycat(body: dict[str, Any]) -> str:
        """Questions built from the passage's rarest words: bm25 finds most sources again."""
        prompt = str(body["messages"][-1]["content"])
        if "Write one question" in prompt:
            passage = prompt.split("<passage>")[1].split("</passage>")[0]
            words = sorted(set(re.findall(r"[A-Za-z]{7,}", passage)))[:4]
            return json.dumps({"question": f"What does the guide say about {' and '.join(words)}?"})
        return json.dumps({"sentences": [1], "coverage": "full"})

    llm.responder = copycat
    config = with_overrides(load_preset("bm25"), {"generation.model": "fake-model"})
    report = generate_questions(samples, config, 6, seed=2)
    assert report.consistency_retriever == "bm25" and report.sampled == 6
    assert set(report.per_document) == {"lumen-notes-faq.txt", "lumen-notes-handbook.md"}
    assert set(report.filtered) == set(FILTERS)
    kept_or_checked = report.rows + tuple(d for d in report.dropped if d["reason"] == "consistency")
    assert len(kept_or_checked) >= 4
    for row in report.rows:
        rank = row["provenance"]["consistency"]["rank"]
        assert 1 <= rank <= 10 and "consistency" in row["provenance"]["filters_passed"]
    for row in kept_or_checked:
        span = row["spans"][0]
        text = (SAMPLES_DIR / span["doc"]).read_text(encoding="utf-8")
        assert span["text"] == text[span["start"]:span["end"]]


def test_no_endpoint_is_a_clear_error(samples: str) -> None:
    with pytest.raises(GenerationError, match="OPENAI_BASE_URL"):
        generate_questions(samples, load_preset("bm25"), 3)


def test_unfiltered_diagnostic_set_labels_every_written_question_with_its_chunk(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from eval.testsets.generate import write_set
    from eval.testsets.validation_sets import unfiltered_set

    fake_openai.responder = smart
    fake_openai.script(reply(json.dumps({"question": "What is this passage about?"})), status(500))
    report = generate_from_chunks(_by_doc(), _client(fake_openai), "m", 3)
    stem = tmp_path / "llm_x"
    write_set(report, stem.with_suffix(".jsonl"))
    (tmp_path / "llm_x.dropped.jsonl").write_text("".join(json.dumps(d) + "\n" for d in report.dropped))
    assert unfiltered_set(stem) == 2  # the kept row and the not-standalone one; the failed call wrote none
    rows = [json.loads(line) for line in (tmp_path / "llm_x_unfiltered.jsonl").read_text().splitlines()]
    removed = next(r for r in rows if r["provenance"]["removed_by"] == "not_standalone")
    source = next(d for d in report.dropped if d["reason"] == "not_standalone")["provenance"]["source"]
    assert removed["spans"] == [{"doc": source["doc"], "start": source["start"], "end": source["end"]}]
