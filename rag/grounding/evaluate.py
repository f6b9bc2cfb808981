"""Measure the offline grounding checks on labeled answer sentences (datasets/grounding_labels.jsonl):
precision and recall of the "unsupported" verdict, overall and the flag rate per kind of sentence."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.context.builder import context_from_passages
from rag.grounding.check import check_answer
from rag.grounding.lexical import overlap
from rag.grounding.model_checks import SentenceEmbedder, embedding_scores
from rag.outputs.context import BuiltContext
from rag.paths import PROJECT_ROOT
from rag.settings.grounding import GroundingConfig
from rag.text import split_sentences

LABELS_PATH = PROJECT_ROOT / "datasets" / "grounding_labels.jsonl"


@dataclass(frozen=True)
class LabeledSentence:
    id: str
    question: str
    context: tuple[str, ...]
    sentence: str
    label: str  # "supported" | "unsupported"
    kind: str  # verbatim, paraphrase, heavy_paraphrase, number_swap, negation, fabricated, …


def load_labels(path: Path = LABELS_PATH) -> list[LabeledSentence]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        LabeledSentence(r["id"], r["question"], tuple(r["context"]), r["sentence"], r["label"], r["kind"])
        for r in rows
    ]


@dataclass(frozen=True)
class CheckScore:
    """Confusion counts for "flagged as unsupported" against the label."""

    check: str
    tp: int  # unsupported and flagged
    fp: int  # supported but flagged
    fn: int  # unsupported but passed
    tn: int
    flag_rate_by_kind: Mapping[str, float]

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score(check: str, items: Sequence[LabeledSentence], flagged: Sequence[bool]) -> CheckScore:
    pairs = list(zip((i.label == "unsupported" for i in items), flagged, strict=True))
    kinds: dict[str, list[bool]] = {}
    for item, flag in zip(items, flagged, strict=True):
        kinds.setdefault(item.kind, []).append(flag)
    return CheckScore(
        check,
        tp=sum(u and f for u, f in pairs),
        fp=sum(not u and f for u, f in pairs),
        fn=sum(u and not f for u, f in pairs),
        tn=sum(not u and not f for u, f in pairs),
        flag_rate_by_kind={k: sum(v) / len(v) for k, v in sorted(kinds.items())},
    )


class _Memo:
    """Embeds each distinct text once, in one batch (the set repeats its contexts)."""

    def __init__(self, embedder: SentenceEmbedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}

    def prime(self, texts: Sequence[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embedder.embed_documents(missing), strict=True))

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.prime(texts)
        return np.stack([self._vectors[t] for t in texts])


def evaluate_checks(
    items: Sequence[LabeledSentence],
    embedder: SentenceEmbedder | None = None,
    settings: GroundingConfig | None = None,
) -> list[CheckScore]:
    """Scores for: the lexical layer alone (lenient: only < 0.3 flagged; strict: everything under
    0.8 flagged), embedding similarity alone, and the offline pipeline (lexical, ambiguous band
    settled by embeddings) — the last two only when an embedder is given."""
    settings = settings or GroundingConfig()
    contexts: list[BuiltContext] = [context_from_passages(i.question, i.context) for i in items]
    lexical = [
        overlap(i.sentence, "\n".join(i.context)).score(settings.word_weight, settings.trigram_weight)
        for i in items
    ]
    first = [
        check_answer(i.question, i.sentence, c, settings).sentences[0].verdict
        for i, c in zip(items, contexts, strict=True)
    ]
    scores = [
        score("lexical (< 0.3 flagged)", items, [s < settings.ungrounded_below for s in lexical]),
        score("lexical + number check (ambiguous passed)", items, [v == "unsupported" for v in first]),
        score("lexical strict (< 0.8 flagged)", items, [s < settings.grounded_at for s in lexical]),
    ]
    if embedder is None:
        return scores
    embedder = _Memo(embedder)
    embedder.prime(
        [i.sentence for i in items]
        + [s.text for c in contexts for b in c.blocks for s in split_sentences(b.text)]
    )
    cosines = [
        embedding_scores([i.sentence], c.blocks, embedder)[0] for i, c in zip(items, contexts, strict=True)
    ]
    scores.append(
        score(
            f"embedding (cos < {settings.embedding_threshold})",
            items,
            [c < settings.embedding_threshold for c in cosines],
        )
    )
    verdicts = [
        check_answer(i.question, i.sentence, c, settings, embedder=embedder).sentences[0].verdict
        for i, c in zip(items, contexts, strict=True)
    ]
    scores.append(
        score("lexical + embedding (offline default)", items, [v == "unsupported" for v in verdicts])
    )
    return scores


def main() -> None:
    """`python -m rag.grounding.evaluate [--no-embedding] [--out FILE.json]`: the table
    docs/results.md reports (eval/results/grounding_labels.json)."""
    import argparse
    import json

    from rag.grounding.model_checks import default_embedder

    parser = argparse.ArgumentParser(description="offline grounding checks on the labelled sentences")
    parser.add_argument("--no-embedding", action="store_true", help="skip the embedding checks")
    parser.add_argument("--out", type=Path, help="write the scores as JSON here")
    args = parser.parse_args()
    items = load_labels()
    embedder = None if args.no_embedding else default_embedder()
    print(f"{len(items)} sentences, {sum(i.label == 'unsupported' for i in items)} unsupported")
    print("| check | precision | recall | F1 | tp/fp/fn/tn |\n|---|---|---|---|---|")
    scores = evaluate_checks(items, embedder)
    for s in scores:
        counts = f"{s.tp}/{s.fp}/{s.fn}/{s.tn}"
        print(f"| {s.check} | {s.precision:.2f} | {s.recall:.2f} | {s.f1:.2f} | {counts} |")
    if args.out:
        rows = [{"check": s.check, "tp": s.tp, "fp": s.fp, "fn": s.fn, "tn": s.tn,
                 "precision": s.precision, "recall": s.recall, "f1": s.f1,
                 "flag_rate_by_kind": dict(s.flag_rate_by_kind)} for s in scores]
        report = {"labels": str(LABELS_PATH.relative_to(LABELS_PATH.parents[1])), "sentences": len(items),
                  "unsupported": sum(i.label == "unsupported" for i in items), "checks": rows}
        args.out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
