"""How usable, and how right, an LLM's replies are at each stage that parses one — with
structured replies (rag.llm.structured) and without, in the same run.

Each task calls the stage's own function on labelled inputs, so a reply that parses can also be
checked: intents against `datasets/intents.csv`, Self-RAG grades and LLM rerank against BEIR
qrels (a relevant passage should outrank others), LLM grounding against
`datasets/grounding_labels.jsonl`. The query class and route have no labels: only whether they
parsed. The two modes alternate item by item, so load from other jobs falls on both alike.
"""

from __future__ import annotations

import csv
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from eval.data.beir import BeirDataset
from rag.context.compress import Compressor, compression_signal, llm_compression
from rag.context.select import llm_selection
from rag.context.self_rag import relevance_pair_signal
from rag.grounding.model_checks import support_signal
from rag.llm.base import ChatModel
from rag.llm.judge_check import p_above_chance
from rag.llm.usability import UsabilityTally, counting
from rag.query.classify import classify
from rag.query.expand import EXPANDERS
from rag.query.intent.llm import IntentLLMError, llm_intent
from rag.query.route import route
from rag.rerank.llm import ranking_signal
from rag.settings.query import ExpandConfig, RouteConfig

COMPRESS_TASKS: Mapping[str, Compressor] = {"compress_copy": llm_compression,
                                            "compress_select": llm_selection}

MODES = ("text", "structured")
EXPAND_TASKS = ("multi_query", "step_back", "rag_fusion")
# no labels: only whether the reply parsed
UNJUDGED = frozenset({"classify", "route", *EXPAND_TASKS})
Signal = float | None  # 1 right, 0 wrong, between for ties; None when the reply was unusable
# what guessing scores on each judged task (rerank: two relevant among six)
CHANCE: Mapping[str, float] = {"intent": 0.1, "self_rag_grade": 0.5, "rerank": 2 / 6, "grounding": 0.5,
                               "compress_copy": 0.5, "compress_select": 0.5}


@dataclass(frozen=True)
class Item:
    """One labelled input of one task."""

    task: str
    run: Callable[[ChatModel], Signal]


@dataclass
class ModeFigures:
    """One mode's results per task: signals of parsed replies and seconds spent."""

    signals: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    items: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    tally: UsabilityTally = field(default_factory=UsabilityTally)

    def as_json(self) -> dict[str, Any]:
        tasks = sorted(self.items)
        return {"tasks": {t: {
            "items": self.items[t], "scored": len(self.signals[t]),
            "right_share": (round(sum(self.signals[t]) / len(self.signals[t]), 4)
                            if self.signals[t] and t not in UNJUDGED else None),
            # above chance? one-sided binomial test over every item (an unparsed reply is wrong)
            "p_above_chance": (p_above_chance(sum(self.signals[t]), self.items[t], CHANCE[t])
                               if t in CHANCE else None),
            "seconds_per_item": round(self.seconds[t] / self.items[t], 3)} for t in tasks},
            "usability": self.tally.as_json()}


def intent_items(labels_csv: Path, per_intent: int) -> list[Item]:
    """The first `per_intent` messages of each intent in the labelled set."""
    with labels_csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    taken: dict[str, int] = defaultdict(int)
    items = []
    for row in rows:
        if taken[row["intent"]] < per_intent:
            taken[row["intent"]] += 1
            items.append(Item("intent", _intent(row["query"], row["intent"])))
    return items


def _intent(message: str, label: str) -> Callable[[ChatModel], Signal]:
    def run(chat: ChatModel) -> Signal:
        try:
            return float(llm_intent(message, chat, has_history=False)[0] == label)
        except IntentLLMError:
            return None
    return run


def query_items(dataset: BeirDataset, count: int, seed: int = 0) -> list[Item]:
    """Per query: class, route and query expansions (parsed or not), a Self-RAG grade of a relevant and an
    irrelevant passage, an LLM rerank of two relevant passages among four others, and each LLM
    compressor on a relevant and an irrelevant passage."""
    rng = random.Random(seed)
    items = []
    text = {d: doc["text"] for d, doc in dataset.corpus.items()}
    for qid, query in list(dataset.queries.items())[:count]:
        relevant = [d for d, s in dataset.qrels[qid].items() if s > 0]
        others = sorted(d for d in dataset.corpus if d not in dataset.qrels[qid])
        picked_rel, picked_other = relevant[:2], rng.sample(others, 4)
        candidates = picked_rel + picked_other
        rng.shuffle(candidates)
        relevant_text, other_text = text[picked_rel[0]], text[picked_other[0]]
        items += [
            Item("classify", lambda chat, q=query: _parsed(classify(q, chat).path == "llm")),
            Item("route", lambda chat, q=query: _parsed(route(q, RouteConfig(), chat=chat).path == "llm")),
            *(Item(method, _expand(method, query)) for method in EXPAND_TASKS),
            Item("self_rag_grade", partial(relevance_pair_signal, question=query, relevant=relevant_text,
                                           irrelevant=other_text)),
            Item("rerank", partial(ranking_signal, question=query, passages=[text[d] for d in candidates],
                                   relevant={i for i, d in enumerate(candidates) if d in picked_rel})),
            *(Item(task, partial(compression_signal, compressor, query, relevant_text, other_text))
              for task, compressor in COMPRESS_TASKS.items()),
        ]
    return items


def _expand(method: str, query: str) -> Callable[[ChatModel], Signal]:
    def run(chat: ChatModel) -> Signal:
        return _parsed(EXPANDERS.get(method)(query, ExpandConfig(), chat).path == "llm")
    return run


def _parsed(ok: bool) -> Signal:
    return 1.0 if ok else None  # no label: a parsed reply counts, nothing is judged


def grounding_items(labels_jsonl: Path, count: int) -> list[Item]:
    """Labelled sentences (supported or not by their context), alternating labels."""
    rows = [json.loads(line) for line in labels_jsonl.read_text(encoding="utf-8").splitlines() if line]
    by_label = {label: [r for r in rows if r["label"] == label] for label in ("supported", "unsupported")}
    mixed = [r for pair in zip(by_label["supported"], by_label["unsupported"], strict=False) for r in pair]
    return [Item("grounding", partial(support_signal, claim=r["sentence"], context="\n".join(r["context"]),
                                      supported=r["label"] == "supported"))
            for r in mixed[:count]]


def run_items(items: Sequence[Item], clients: Mapping[str, ChatModel]) -> dict[str, ModeFigures]:
    """Every item in every mode, modes alternating item by item."""
    figures = {mode: ModeFigures() for mode in clients}
    for item in items:
        for mode, chat in clients.items():
            mine = figures[mode]
            with counting(mine.tally):
                started = time.perf_counter()
                signal = item.run(chat)
                mine.seconds[item.task] += time.perf_counter() - started
            mine.items[item.task] += 1
            if signal is not None:
                mine.signals[item.task].append(signal)
    return figures


def summary_lines(report: Mapping[str, Any]) -> Iterator[str]:
    yield f"model {report['model']} · {report['load']}"
    for task in sorted(report["modes"]["text"]["tasks"]):
        cells = []
        for mode in MODES:
            t = report["modes"][mode]["tasks"][task]
            right = "–" if t["right_share"] is None else f"{t['right_share']:.2f}"
            p = "" if t.get("p_above_chance") is None else f" p {t['p_above_chance']:.2f}"
            cells.append(f"{mode}: parsed {t['scored']}/{t['items']} right {right}{p} "
                         f"{t['seconds_per_item']:.1f} s")
        yield f"{task:15} " + " | ".join(cells)
