"""`python -m benchmarks ingest_speed`: the whole `python -m rag ingest` against in-process fp32
encode. No timing is asserted (speed lives in the JSON); the tests check that the JSON is whole
and consistent, and that the stage split counts each second once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.ingest_speed import beside_embed, read_passages, stage_split

PASSAGES = [
    "apt-get install fetches a package and the packages it depends on.",
    "journalctl -u ssh shows the log of the ssh service since the last boot.",
    "dpkg-reconfigure asks the configuration questions of an installed package again.",
    "The sources.list file names the repositories apt reads its package lists from.",
]


def _corpus(folder: Path) -> Path:
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"p/{i}", "text": t}) + "\n"
                              for i, t in enumerate(PASSAGES)))
    return corpus


def test_asking_for_more_passages_than_the_corpus_holds_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="holds 4 passages"):
        read_passages(_corpus(tmp_path), 5)


def test_the_stage_split_counts_nested_stopwatches_once_and_adds_up_to_the_wall() -> None:
    marks = {"launched": 100.0, "first_line": 100.1, "imported": 100.6, "cli_start": 100.6,
             "cli_done": 110.6, "exit_handlers_done": 110.9}
    seconds = {"parse": 1.0, "embed (incl. model load)": 7.0, "model load": 0.5,
               "upsert (incl. store create)": 0.4, "store create": 0.1, "store close (flush)": 0.2,
               "prepare (beside embed)": 0.6}
    split = stage_split({"marks": marks, "seconds": seconds}, wall_s=11.0)
    assert "prepare (beside embed)" not in split  # it overlaps the embedding: not in the sum
    assert beside_embed({"marks": marks, "seconds": seconds}) == {"prepare (beside embed)": 0.6}
    assert split["embed"] == 6.5 and split["model load"] == 0.5
    assert split["upsert"] == pytest.approx(0.3) and split["store create"] == 0.1
    assert split["interpreter start"] == pytest.approx(0.1)
    assert split["other inside the CLI"] == pytest.approx(10.0 - 1.0 - 7.0 - 0.4)
    assert sum(split.values()) == pytest.approx(11.0)


@pytest.mark.slow  # three ingest processes and fp32 sentence-transformers (torch)
def test_bench_ingest_speed_writes_both_sides_the_ratio_and_the_stages(tmp_path: Path) -> None:
    out = tmp_path / "ingest.json"
    code = main(["ingest_speed", "--corpus", str(_corpus(tmp_path)), "--out", str(out),
                 "--ingest-passages", "3", "--ingest-rounds", "1",
                 "--ingest-work", str(tmp_path / "work")])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["passages"] == 3 and result["ingest"]["chunks_added"] == 3
    ingest, reference = result["ingest"], result["reference"]
    # the file's wall times are rounded to 0.01 s; the ratio is computed before rounding
    ref_s, ingest_s, half = reference["wall_s_best"], ingest["wall_s_best"], 0.005
    assert (ref_s - half) / (ingest_s + half) - 0.01 <= result["ratio_best"] \
        <= (ref_s + half) / max(ingest_s - half, 1e-9) + 0.01
    assert result["embedding"]["onnx_variant"] in ("fp32", "int8", "int8-smooth", "int8-smooth-u8",
                                                     "int8-smooth-rows")
    assert result["work"]["reference_passages"]["texts"] == 3
    assert result["work"]["ingest_chunks"]["texts"] == 3
    stages = result["stages"]
    assert stages["seconds"]["embed"] > 0 and stages["seconds"]["parse"] > 0
    assert sum(stages["seconds"].values()) == pytest.approx(stages["wall_s"], abs=0.05)
    assert len(result["load_average_before"]) == 3 and result["machine"]["cpu_count"] >= 1
