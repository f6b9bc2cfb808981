"""Training data of the learned injection detector: public injection/jailbreak prompts and benign
messages shipped inside PyPI packages (pinned in requirements.txt), plus the repo's benign pool's
dev half. Nothing from the garak scanner, nothing built from SQLite's or Git's documentation.

- bastioncorpus 0.6.0: malicious and benign rows;
- jailbreak-corpus-mini-py 0.1.0: jailbreak fixtures;
- prompt-armor 0.9.1 (Apache-2.0), data/attacks/known_attacks.jsonl: 25,160 attack prompts
  gathered from public sets (in-the-wild jailbreaks, jackhhao/jailbreak, deepset and ProtectAI
  injection sets, Lakera's Gandalf, the SaTML 2024 CTF, LLMail-Inject), by category; and its
  80 benign hard negatives (benign_exemplars.jsonl: "ignore the typos above" in several languages);
- oubliette-shield 1.2.0 (Apache-2.0), data/injection_train.json: 812 malicious and 553 benign
  messages;
- the seen blind sets datasets/guard_blind_2026_12 and guard_blind_2026_12b (development data
  since their one run each): half of each trains, half validates;
- benign hard negatives written from templates for this detector (hard_negatives.py: questions
  about base64, hex dumps, step-by-step instructions, "confidential information"), split by hash.

Each row gets a split by a hash of its text (train 60 % / validation 20 % / test 20 %); caps per
source keep the SaTML CTF chat lines and LLMail e-mails (documents, not questions) from swamping
the rest. Sampling is seeded, so the rows are the same on every machine."""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources

from eval.guard_detector.benign import load_pool
from eval.guard_detector.hard_negatives import hard_negatives
from rag.injection import detect
from rag.paths import PROJECT_ROOT

# rows kept per prompt-armor source (None: all); the SaTML CTF chat lines are left out (many are
# ordinary chat labelled by the game they came from: they cost false positives on validation),
# the LLMail e-mails are documents, not questions
ARMOR_CAPS: dict[str, int | None] = {"satml-ctf-2024": 0, "llmail-inject": 400}
ARMOR_DEFAULT_CAP = 1500
MAX_CHARS = 2000  # the guard's own limit on a question
SEED = 13


@dataclass(frozen=True)
class Row:
    text: str
    label: int  # 1 = injection / jailbreak
    source: str
    split: str


def part(text: str) -> str:
    share = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if share < 0.6 else "val" if share < 0.8 else "test"


def _lines(package: str, *path: str) -> list[dict[str, object]]:
    file = resources.files(package).joinpath(*path)
    return [json.loads(line) for line in file.read_text("utf-8").splitlines() if line.strip()]


def bastion_rows() -> list[Row]:
    rows = [Row(str(r["text"]), int(r["label"] == "malicious"), "bastioncorpus", part(str(r["text"])))
            for r in _lines("bastioncorpus", "corpus", "injections.jsonl")]
    mini = json.loads((resources.files("jailbreak_corpus_mini") / "corpus.json").read_text("utf-8"))
    return rows + [Row(r["prompt"], 1, "jailbreak-corpus-mini", part(r["prompt"])) for r in mini]


def armor_rows() -> list[Row]:
    by_source: dict[str, list[str]] = defaultdict(list)
    for r in _lines("prompt_armor", "data", "attacks", "known_attacks.jsonl"):
        text = str(r["text"]).strip()
        if 12 <= len(text) <= MAX_CHARS:
            by_source[str(r.get("source", "?"))].append(text)
    rng = random.Random(SEED)
    rows = []
    for source, texts in sorted(by_source.items()):
        texts = sorted(set(texts))
        cap = ARMOR_CAPS.get(source, ARMOR_DEFAULT_CAP)
        if cap == 0:
            continue
        if cap is not None and len(texts) > cap:
            texts = rng.sample(texts, cap)
        rows += [Row(t, 1, f"prompt-armor:{source}", part(t)) for t in texts]
    benign = _lines("prompt_armor", "data", "attacks", "benign_exemplars.jsonl")
    return rows + [Row(str(r["text"]), 0, "prompt-armor:benign", part(str(r["text"]))) for r in benign]


def oubliette_rows() -> list[Row]:
    file = resources.files("oubliette_shield").joinpath("data", "injection_train.json")
    data = json.loads(file.read_text("utf-8"))
    return [Row(r["message"], int(r["label"]), "oubliette-shield", part(r["message"])) for r in data]


def pool_rows() -> list[Row]:
    dev = [r for r in load_pool() if r["split"] == "dev"]
    return [Row(r["text"], 0, f"pool:{r['domain']}", "val" if part(r["text"]) == "val" else "train")
            for r in dev]


BLIND = PROJECT_ROOT / "datasets" / "guard_blind_2026_12"
BLIND_B = PROJECT_ROOT / "datasets" / "guard_blind_2026_12b"  # seen since its one run (guard2's estimate)
AUGMENTED = 1500  # questions with an attack appended (train only)


def blind_half(text: str) -> str:
    """The seen blind set (datasets/guard_blind_2026_12, run once as a held-out set before this
    detector) is development data now: half trains, half validates (chooses the threshold)."""
    share = int(hashlib.sha256(("blind" + text).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "train" if share < 0.5 else "val"


def blind_rows() -> list[Row]:
    rows = []
    for folder, tag in ((BLIND, "blind"), (BLIND_B, "blind_b")):
        for name, label in (("attacks.jsonl", 1), ("benign.jsonl", 0)):
            for line in (folder / name).read_text("utf-8").splitlines():
                if line.strip():
                    text = json.loads(line)["text"]
                    rows.append(Row(text, label, f"{tag}:{name.split('.')[0]}", blind_half(text)))
    return rows


_HOSTED = ("injection_in_question", "encoded", "smuggled")


def host_rows() -> list[Row]:
    """The benign question an attack of the seen blind sets was wrapped in ("How do I reset my
    password? ```system override …```"), as a benign row of the attack's half: without it the
    host question's n-grams only ever appear in attacks and "reset my password" alone scores high."""
    rows = []
    for folder in (BLIND, BLIND_B):
        for line in (folder / "attacks.jsonl").read_text("utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            text, end = row.get("text", ""), row.get("text", "").find("?")
            host = text[: end + 1]
            wrapped = row.get("category") in _HOSTED and 15 <= end < 150 and text[end + 1:].strip()
            if wrapped and not detect(host):
                rows.append(Row(host, 0, "host:blind", blind_half(text)))
    return rows


def hard_negative_rows() -> list[Row]:
    """Template-written benign questions with an attack's words; train or validation by hash."""
    return [Row(t, 0, "hard_negatives", "val" if part(t) == "val" else "train") for t in hard_negatives()]


def augmented(rows: list[Row], n: int = AUGMENTED) -> list[Row]:
    """"Injection inside a question": a benign training question with a training attack after it
    (a space, a new line, "Also," …), so a polite question in front does not hide what follows."""
    rng = random.Random(SEED)
    questions = sorted(r.text for r in rows if r.split == "train" and r.label == 0
                       and len(r.text) < 200 and r.text.rstrip().endswith("?"))
    attacks = sorted(r.text for r in rows if r.split == "train" and r.label == 1 and len(r.text) < 300)
    joins = (" ", "\n", "\n\n", " Also, ", " Then ")
    return [Row(rng.choice(questions) + rng.choice(joins) + rng.choice(attacks), 1, "augmented", "train")
            for _ in range(n)] if questions and attacks else []


def all_rows() -> list[Row]:
    """Every training/validation/test row, duplicates (same text) kept once."""
    seen: set[str] = set()
    rows = []
    for row in (bastion_rows() + armor_rows() + oubliette_rows() + pool_rows() + blind_rows() + host_rows()
                + hard_negative_rows()):
        key = row.text.strip().lower()
        if key not in seen:
            seen.add(key)
            rows.append(row)
    return rows + augmented(rows)
