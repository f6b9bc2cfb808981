"""What the Query Lab page draws from an Understanding: tables and figures, no decisions."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

import pandas as pd
import plotly.graph_objects as go

from eval.scoring.guard import GuardScore
from rag.llm import Message
from rag.query import INTENTS, IntentEvaluation, IntentResult, SpellResult, Understanding

_SPEAKER = re.compile(r"^\s*(user|assistant|u|a)\s*:\s*(.*)$", re.I)


def parse_conversation(text: str) -> tuple[Message, ...]:
    """Messages from lines "user: …" / "assistant: …" ("u:"/"a:" too); other lines continue the
    message above them."""
    messages: list[Message] = []
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match:
            role: Literal["user", "assistant"] = (
                "user" if match.group(1).lower() in ("user", "u") else "assistant")
            messages.append(Message(role, match.group(2).strip()))
        elif messages and line.strip():
            last = messages[-1]
            messages[-1] = Message(last.role, f"{last.content} {line.strip()}")
    return tuple(messages)


def _semantic_saw(result: IntentResult) -> str:
    if result.layer == "rules":
        return "not reached"
    if result.semantic_best is None or result.semantic_score is None:
        return "skipped (no embedder)"
    return f"{result.semantic_best} {result.semantic_score:.3f} vs threshold {result.threshold:.2f}"


def _llm_saw(result: IntentResult, llm: bool) -> str:
    if not llm:
        return "no LLM configured"
    if result.layer == "llm":
        return f"replied {result.llm_reply!r}"
    if result.layer == "default" and result.warnings:
        return f"failed: {result.warnings[0]}"
    return "not reached"


def intent_layers(result: IntentResult, llm: bool) -> pd.DataFrame:
    """One row per layer: what it saw and whether it decided."""
    rows = [
        {"layer": "rules", "saw": result.rule or "no rule fired", "decided": result.layer == "rules"},
        {"layer": "semantic", "saw": _semantic_saw(result), "decided": result.layer == "semantic"},
        {"layer": "llm", "saw": _llm_saw(result, llm), "decided": result.layer == "llm"},
        {"layer": "default", "saw": result.reason if result.layer == "default" else "",
         "decided": result.layer == "default"},
    ]
    return pd.DataFrame(rows, columns=["layer", "saw", "decided"])


def semantic_bars(result: IntentResult) -> go.Figure:
    """Best exemplar cosine per intent (the semantic layer's pick in green), the threshold line."""
    scores = [result.semantic_scores.get(i, 0.0) for i in INTENTS]
    colors = ["#16a34a" if i == result.semantic_best else "#94a3b8" for i in INTENTS]
    fig = go.Figure(go.Bar(x=list(INTENTS), y=scores, marker_color=colors))
    if result.threshold is not None:
        fig.add_hline(y=result.threshold, line_dash="dash", line_color="#dc2626",
                      annotation_text=f"threshold {result.threshold:.2f}")
    fig.update_layout(height=280, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      title="Semantic layer: best exemplar cosine per intent", yaxis_range=[0, 1])
    return fig


def steps_table(found: Understanding) -> pd.DataFrame:
    """Each step: which path ran and why."""
    rows: list[dict[str, object]] = [{"step": "spell", "path": found.spell.path,
                                      "result": found.spell.corrected, "why": found.spell.reason}]
    if found.intent is not None:
        rows.append({"step": "intent", "path": found.intent.layer, "result": found.intent.intent,
                     "why": found.intent.reason})
    if found.rewrite is not None:
        rows.append({"step": "rewrite", "path": found.rewrite.path,
                     "result": found.rewrite.rewritten, "why": found.rewrite.reason})
    if found.classification is not None:
        c = found.classification
        rows.append({"step": "classify", "path": c.path, "result": c.label, "why": c.reason})
    if found.route is not None:
        r = found.route
        rows.append({"step": "route", "path": r.path, "result": f"{r.complexity} / {r.query_type}",
                     "why": "; ".join(r.reasons)})
    rows += [{"step": f"expand:{e.method}", "path": e.path, "result": len(e.queries),
              "why": e.reason} for e in found.expansions]
    rows += [{"step": s.split(":", 1)[0], "path": "skipped", "result": "", "why": s.split(": ", 1)[-1]}
             for s in found.skipped]
    return pd.DataFrame(rows, columns=["step", "path", "result", "why"]).astype({"result": str})


def queries_table(found: Understanding) -> pd.DataFrame:
    """The queries retrieval will run, with the retrievers each goes to."""
    return pd.DataFrame(
        [{"label": q.label or "(main)", "query": q.text,
          "retrievers": ", ".join(q.retrievers) if q.retrievers else "all"}
         for q in found.search_queries],
        columns=["label", "query", "retrievers"],
    )


def spell_table(spell: SpellResult) -> pd.DataFrame:
    return pd.DataFrame(
        [{"word": c.word, "replacement": c.replacement, "edits": c.distance,
          "count in collection": c.count} for c in spell.changes],
        columns=["word", "replacement", "edits", "count in collection"],
    )


def exemplar_frame(exemplars: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    return pd.DataFrame([{"intent": i, "exemplar": t} for i, texts in exemplars.items() for t in texts],
                        columns=["intent", "exemplar"])


def exemplars_from_frame(frame: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Edited rows back to intent -> exemplars; blank rows and unknown intents are dropped."""
    grouped: dict[str, list[str]] = {}
    for intent, text in zip(frame["intent"], frame["exemplar"], strict=True):
        if isinstance(intent, str) and intent in INTENTS and isinstance(text, str) and text.strip():
            grouped.setdefault(intent, []).append(text.strip())
    return {intent: tuple(texts) for intent, texts in grouped.items()}


def accuracy_curve(curve: Sequence[tuple[float, float]], current: float, calibrated: float) -> go.Figure:
    fig = go.Figure(go.Scatter(x=[t for t, _ in curve], y=[a for _, a in curve], mode="lines+markers",
                               name="accuracy"))
    fig.add_vline(x=current, line_dash="dash", line_color="#dc2626", annotation_text="current")
    fig.add_vline(x=calibrated, line_dash="dot", line_color="#2563eb",
                  annotation_text="leave-one-out", annotation_position="bottom right")
    fig.update_layout(height=280, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      title="Rules + semantic accuracy on the labeled set by threshold",
                      xaxis_title="semantic threshold", yaxis_title="accuracy", yaxis_range=[0, 1])
    return fig


def recall_table(evaluation: IntentEvaluation) -> pd.DataFrame:
    return pd.DataFrame(
        [{"intent": i, "queries": n, "recall": r} for i, (r, n) in evaluation.recall_by_intent().items()],
        columns=["intent", "queries", "recall"],
    )


def mistakes_table(evaluation: IntentEvaluation) -> pd.DataFrame:
    return pd.DataFrame(
        [{"query": p.query, "gold": p.gold, "predicted": p.predicted, "layer": p.layer,
          "score": round(p.score, 3)} for p in evaluation.predictions if not p.correct],
        columns=["query", "gold", "predicted", "layer", "score"],
    )


def guard_rates_table(score: GuardScore) -> pd.DataFrame:
    """One row per (set, split, category or language): the share blocked with its Wilson 95%
    interval."""
    rows = [("attacks", name, rate) for name, rate in score.block_rate.items()]
    rows += [("benign", name, rate) for name, rate in score.false_positive_rate.items()]
    rows += [("attack category", name, rate) for name, rate in score.by_category.items()]
    rows += [("attack language", name, rate) for name, rate in score.by_language.items()]
    rows += [("benign category", name, rate) for name, rate in score.benign_by_category.items()]
    rows += [("benign language", name, rate) for name, rate in score.benign_by_language.items()]
    return pd.DataFrame([{"set": kind, "split / category": name, "blocked": f"{r.hits}/{r.n}",
                          "share": round(r.value, 3), "95% CI": f"[{r.low:.3f}, {r.high:.3f}]"}
                         for kind, name, r in rows])


def guard_mistakes_table(score: GuardScore) -> pd.DataFrame:
    """Attacks let through and benign questions blocked."""
    rows = [{"kind": "missed attack", "split": p.split, "category": p.category, "text": p.text}
            for p in score.missed]
    rows += [{"kind": "benign blocked", "split": p.split, "category": why, "text": p.text}
             for p, why in score.false_alarms]
    return pd.DataFrame(rows, columns=["kind", "split", "category", "text"])
