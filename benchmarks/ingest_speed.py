"""`python -m benchmarks ingest_speed`: the whole `python -m rag ingest` of N real passages against
in-process fp32 sentence-transformers `encode` of the same passages (issue 25: ≥ 2×).

The passages (a BEIR corpus.jsonl, e.g. the Debian set of datasets/build_beir_debian.py) are
written one per .txt file. A warm-up ingest of a few of them in a throw-away data folder makes
sure the ONNX build and this CPU's int8 check are cached (they are once per machine, in
~/.cache/rag-workbench/onnx) and fills a bytecode cache, as on a user's machine after install.
Then each round runs, in alternating order:

- ingest: `python -m rag ingest DOCS --collection bench` as a subprocess on a fresh, empty
  RAG_WORKBENCH_DATA (so nothing comes from the embedding or parse caches), the default preset;
  wall time from just before the process starts to its exit, and its CPU seconds;
- reference: `SentenceTransformer(all-MiniLM-L6-v2).encode(passages)` (fp32 torch, batch 32) in
  this process, the model loaded once before the rounds (as the issue's figure: encode time only).

The best and the median round of each side are reported, with the load average before each
(the machine is shared). One more ingest run, through benchmarks/ingest_stages.py, splits the
process into stages (start-up, imports, parse, chunk, model load, embed, upsert, HNSW build,
BM25, …). The ingest embeds its chunks, not whole passages: the work of both sides is counted
in tokens.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.paths import PROJECT_ROOT

COLLECTION = "bench"
WARM_DOCS = 16
TARGET_RATIO = 2.0
REFERENCE = "SentenceTransformer(all-MiniLM-L6-v2).encode, fp32 torch, default batch (32), in process"
_SUMMARY = re.compile(r"(\d+) chunks added.*?; ([\d.]+) s$", re.MULTILINE)
_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Round:
    """One timed run of one side."""

    wall_s: float
    cpu_s: float  # CPU seconds of all its threads (user + system)
    load_1min: float  # the load average just before it started


@dataclass(frozen=True)
class Side:
    rounds: tuple[Round, ...]

    @property
    def best(self) -> Round:
        return min(self.rounds, key=lambda r: r.wall_s)

    @property
    def median_wall_s(self) -> float:
        return statistics.median(r.wall_s for r in self.rounds)

    def summary(self) -> dict[str, Any]:
        return {
            "wall_s_best": round(self.best.wall_s, 2),
            "wall_s_median": round(self.median_wall_s, 2),
            "cpu_s_of_best": round(self.best.cpu_s, 2),
            "cpu_s_min": round(min(r.cpu_s for r in self.rounds), 2),
            "rounds": [dataclasses.asdict(r) for r in self.rounds],
        }


def write_documents(texts: Sequence[tuple[str, str]], folder: Path) -> Path:
    """One .txt file per (id, text), named so the folder lists them in corpus order."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, (doc_id, text) in enumerate(texts):
        (folder / f"{i:05d}-{_NAME.sub('_', doc_id)[:80]}.txt").write_text(text, encoding="utf-8")
    return folder


def read_passages(corpus: Path, n: int) -> list[tuple[str, str]]:
    """The first `n` (id, text) rows of a BEIR corpus.jsonl; fewer is an error, not a quiet run."""
    rows: list[tuple[str, str]] = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                rows.append((str(row["_id"]), str(row["text"])))
            if len(rows) == n:
                return rows
    raise ValueError(f"{corpus} holds {len(rows)} passages; the ingest bench asked for {n}")


def ingest_env(data: Path, pycache: Path | None) -> dict[str, str]:
    """The environment of one ingest: its own data folder, offline, the chosen bytecode mode."""
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(data), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    if pycache is None:  # every module compiled from source in every process
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:  # a bytecode cache outside the checkout, filled by the warm-up run
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def run_ingest(docs: Path, data: Path, pycache: Path | None,
               timings: Path | None = None, checkout: Path = PROJECT_ROOT) -> tuple[Round, str]:
    """One whole `python -m rag ingest` on a fresh `data` folder: its Round and its stdout.
    With `timings`, the same CLI through benchmarks/ingest_stages.py, run as a script (not with
    -m, which would import the benchmarks package first), writing its stage times there."""
    if data.exists():
        shutil.rmtree(data)
    env = ingest_env(data, pycache)
    if timings is None:
        runner = ["-m", "rag"]
    else:
        runner = [str(Path(__file__).with_name("ingest_stages.py")), str(timings), str(time.time())]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, *runner, "ingest", str(docs), "--collection", COLLECTION]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Round(round(wall, 3), round(cpu, 3), round(load, 2)), done.stdout


def reported(stdout: str) -> tuple[int, float]:
    """(chunks added, seconds) from the ingest's own summary line."""
    found = _SUMMARY.search(stdout)
    if not found:
        raise RuntimeError(f"no ingest summary line in its output:\n{stdout[-1000:]}")
    return int(found.group(1)), float(found.group(2))


def chosen_graph(data: Path) -> dict[str, Any]:
    """What the collection recorded: the embedding settings its first ingest pinned."""
    manifest = json.loads((data / "collections" / COLLECTION / "manifest.json").read_text())
    return dict(manifest["settings"]["embedding"])


def stage_split(timings: dict[str, Any], wall_s: float) -> dict[str, float]:
    """Seconds per stage of one instrumented ingest (benchmarks/ingest_stages.py), each counted
    once: nested stopwatches (model load inside embed, store create inside upsert) subtracted;
    `other` is what no stopwatch covered (argument parsing, locks, the reports printed). Stages
    run in a second thread during the embedding are left out (`beside_embed` has them)."""
    marks, sec = timings["marks"], {k: v for k, v in timings["seconds"].items()
                                    if k not in beside_embed(timings)}
    inside_cli = marks["cli_done"] - marks["cli_start"]
    sec["embed (incl. model load)"] = sec.get("embed (incl. model load)", 0.0) - sec.get("model load", 0.0)
    sec["upsert (incl. store create)"] = (sec.get("upsert (incl. store create)", 0.0)
                                          - sec.get("store create", 0.0))
    closing = sec.pop("store close (flush)", 0.0)  # runs at exit, after the CLI returned
    split = {
        "interpreter start": marks["first_line"] - marks["launched"],
        "imports (rag.cli + ingest command)": marks["imported"] - marks["first_line"],
        **{k.replace(" (incl. model load)", "").replace(" (incl. store create)", ""): v
           for k, v in sec.items()},
        "other inside the CLI": inside_cli - sum(sec.values()),
        "store close (flush)": closing,
        "exit (teardown after close)": wall_s - (marks["cli_done"] - marks["launched"]) - closing,
    }
    return {k: round(v, 3) for k, v in split.items()}


def beside_embed(timings: dict[str, Any]) -> dict[str, float]:
    """Seconds of the stages that run in a second thread while the model embeds (not in the
    wall-time split: they overlap it)."""
    return {k: round(v, 3) for k, v in timings["seconds"].items() if "beside embed" in k}


def token_work(passages: Sequence[str], docs: Path) -> dict[str, Any]:
    """Tokens each side runs the model on: the reference the passages (cut at 256 tokens), the
    ingest the default preset's chunks of them (every chunk short of 256 tokens is whole)."""
    from tokenizers import Tokenizer

    from rag.config import PipelineConfig
    from rag.documents import ingest_paths
    from rag.embed.local_models import minilm_folder
    from rag.embed.onnx_minilm import MAX_TOKENS
    from rag.index.ingest import chunk_documents

    tokenizer = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    report = ingest_paths([docs])
    _, pairs = chunk_documents(list(report.documents), PipelineConfig())
    chunks = [chunk.text for _, chunk in pairs]

    def counted(texts: Sequence[str]) -> dict[str, Any]:
        lengths = [len(e.ids) for e in tokenizer.encode_batch(list(texts))]
        return {"texts": len(texts), "tokens": sum(lengths),
                "cut_at_256": sum(1 for n in lengths if n >= MAX_TOKENS),
                "mean_chars": round(sum(map(len, texts)) / max(len(texts), 1), 1)}

    return {"reference_passages": counted(passages), "ingest_chunks": counted(chunks)}


def machine() -> dict[str, Any]:
    import onnxruntime

    from rag.embed.cpu_check import cpu_identity
    from rag.embed.onnx_minilm import onnx_threads

    cpu = cpu_identity()
    return {"cpu_model": cpu.model, "int8_flags": list(cpu.flags), "vnni": cpu.has_vnni,
            "cpu_count": os.cpu_count(), "onnx_workers": onnx_threads(),
            "onnxruntime": onnxruntime.__version__, "python": sys.version.split()[0]}


def cpu_check_verdict(variant: str) -> str:
    """The int8 check's own line for this CPU (read from its cache, measured there by the warm-up)."""
    from rag.embed.cpu_check import checked

    return checked(variant).reason  # type: ignore[arg-type]


def git_state() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT,
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "rag", "benchmarks"],
                           cwd=PROJECT_ROOT, capture_output=True, text=True).stdout.strip()
    return f"{head}{' (with uncommitted changes)' if dirty else ''}"


def ingest_speed(corpus: Path, work: Path, passages: int = 1000, rounds: int = 3,
                 bytecode_cache: bool = True, command: str = "",
                 others: dict[str, Path] | None = None) -> dict[str, Any]:
    """The whole measurement (module docstring); returns the results as a JSON-ready dict.
    `others`: more checkouts (label -> folder) whose `python -m rag ingest` runs in the same
    rounds, right after this one's, so a before/after comparison sees the same machine load."""
    others = {label: path.resolve() for label, path in (others or {}).items()}
    import torch

    from benchmarks.embed_throughput import reference_model

    if rounds < 1:
        raise ValueError("the ingest bench needs at least one round")
    rows = read_passages(corpus, passages)
    texts = [text for _, text in rows]
    if work.exists():
        shutil.rmtree(work)
    docs = write_documents(rows, work / "docs")
    warm = write_documents(rows[:WARM_DOCS], work / "warm-docs")
    pycache = work / "pycache" if bytecode_cache else None
    warm_round, _ = run_ingest(warm, work / "data-warm", pycache)  # builds, checks, compiles once
    for label, path in others.items():  # each checkout's own bytecode cache
        run_ingest(warm, work / "data-warm", work / f"pycache-{label}" if pycache else None,
                   checkout=path)

    load_before = os.getloadavg()
    model_started = time.perf_counter()
    model = reference_model()
    model.encode(texts[:8])  # first-call allocations are not throughput
    model_load_s = time.perf_counter() - model_started

    def reference_round() -> Round:
        load = os.getloadavg()[0]
        cpu, started = time.process_time(), time.perf_counter()
        model.encode(texts, normalize_embeddings=True)
        return Round(round(time.perf_counter() - started, 3), round(time.process_time() - cpu, 3),
                     round(load, 2))

    ingests: list[Round] = []
    other_rounds: dict[str, list[Round]] = {label: [] for label in others}
    references: list[Round] = []
    outputs: list[str] = []
    for r in range(rounds):  # alternate who goes first, so a burst of load hits both alike
        if r % 2:
            references.append(reference_round())
        measured, stdout = run_ingest(docs, work / f"data-{r}", pycache)
        ingests.append(measured)
        outputs.append(stdout)
        for label, path in others.items():
            other_rounds[label].append(run_ingest(
                docs, work / f"data-{label}-{r}", work / f"pycache-{label}" if pycache else None,
                checkout=path)[0])
        if not r % 2:
            references.append(reference_round())
    graph = chosen_graph(work / "data-0")

    timings_file = work / "stages.json"
    staged, _ = run_ingest(docs, work / "data-stages", pycache, timings=timings_file)
    timings = json.loads(timings_file.read_text())
    split = stage_split(timings, staged.wall_s)

    ingest, reference = Side(tuple(ingests)), Side(tuple(references))
    chunks, _ = reported(outputs[0])
    variant = str(graph.get("onnx_variant"))
    return {
        "command": command,
        "checkout": git_state(),
        "corpus": str(corpus),
        "passages": len(rows),
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
        "target_ratio": TARGET_RATIO,
        "ratio_best": round(reference.best.wall_s / ingest.best.wall_s, 2),
        "ratio_median": round(reference.median_wall_s / ingest.median_wall_s, 2),
        "cpu_ratio": round(min(r.cpu_s for r in references) / min(r.cpu_s for r in ingests), 2),
        "ingest": {
            "command": f"python -m rag ingest DOCS --collection {COLLECTION} (default preset, "
                       "fresh RAG_WORKBENCH_DATA per round)",
            "chunks_added": chunks,
            "reported_seconds": [reported(out)[1] for out in outputs],
            **ingest.summary(),
        },
        "other_checkouts": {
            label: {"checkout": str(others[label]),
                    "ratio_best": round(reference.best.wall_s / Side(tuple(got)).best.wall_s, 2),
                    "ratio_median": round(reference.median_wall_s / Side(tuple(got)).median_wall_s, 2),
                    **Side(tuple(got)).summary()}
            for label, got in other_rounds.items()
        },
        "reference": {"what": REFERENCE, "model_load_s": round(model_load_s, 2),
                      "torch_threads": torch.get_num_threads(), **reference.summary()},
        "stages": {"wall_s": staged.wall_s, "cpu_s": staged.cpu_s, "load_1min": staged.load_1min,
                   "seconds": split, "beside_embed": beside_embed(timings)},
        "work": token_work(texts, docs),
        "embedding": graph,
        "cpu_check": cpu_check_verdict(variant) if variant.startswith("int8") else "not an int8 graph",
        "machine": machine(),
        "bytecode": "cached (filled by the warm-up run)" if bytecode_cache else "compiled every run",
        "warm_up_ingest_s": warm_round.wall_s,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def summary_line(result: dict[str, Any]) -> str:
    ingest, ref = result["ingest"], result["reference"]
    return (f"ingest {ingest['wall_s_best']} s (median {ingest['wall_s_median']}) vs fp32 encode "
            f"{ref['wall_s_best']} s (median {ref['wall_s_median']}): {result['ratio_best']}× best, "
            f"{result['ratio_median']}× median, {result['cpu_ratio']}× CPU "
            f"(target {result['target_ratio']}×; graph {result['embedding'].get('onnx_variant')}; "
            f"load {result['load_average_before'][0]} → {result['load_average_after'][0]})")
