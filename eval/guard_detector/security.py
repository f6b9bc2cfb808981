"""Measure the guard for docs/security.md: each attack class with its block rate and Wilson 95 %
interval, encoded and smuggled variants of the attack texts (eval/guard_detector/encoders.py),
latent-injection documents, false positives on real benign questions and clean passages, and
the learned detector on its own.

    python -m eval.guard_detector.security [--passages CORPUS.jsonl ...] \
        --out eval/results/guard_security.json

Splits: guard_attacks.jsonl (both its splits) was in view while the detectors were written:
`dev`. guard_heldout_2026_11/ was written blind before this work and is `test`; its rows
seed the test variants. Benign: the `test` split of datasets/guard_benign_pool.jsonl (the
learned detector trained on the dev split) and guard_heldout_2026_11/benign.jsonl.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from eval.guard_detector.benign import load_pool
from eval.guard_detector.encoders import ENCODED, SMUGGLED, variants
from eval.guard_detector.latent import INJECTIONS, planted
from eval.scoring.guard import ATTACKS, HELDOUT_ATTACKS, HELDOUT_BENIGN, load_prompts, rate_of
from rag.context.screen import passage_findings
from rag.paths import PROJECT_ROOT
from rag.query.guard import guard
from rag.settings.query import GuardConfig

RESULTS = PROJECT_ROOT / "eval" / "results" / "guard_security.json"
CORPUS = PROJECT_ROOT / "datasets" / "beir_sample" / "corpus.jsonl"


def _blocked(text: str, cfg: GuardConfig) -> bool:
    return not guard(text, cfg).allowed


def attack_classes(cfg: GuardConfig) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for split, path in (("dev", ATTACKS), ("test", HELDOUT_ATTACKS)):
        by: dict[str, list[bool]] = defaultdict(list)
        for p in load_prompts(path):
            by[p.category].append(_blocked(p.text, cfg))
        out[split] = {"all": rate_of(f for flags in by.values() for f in flags),
                      **{name: rate_of(flags) for name, flags in sorted(by.items())}}
    return out


def variant_rates(cfg: GuardConfig) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for split, path in (("dev", ATTACKS), ("test", HELDOUT_ATTACKS)):
        by: dict[str, list[bool]] = defaultdict(list)
        for i, p in enumerate(load_prompts(path)):
            for name, text in variants(p.text, i).items():
                by[name].append(_blocked(text, cfg))
        out[split] = {
            "encoded_all": rate_of(f for n in ENCODED for f in by[n]),
            "smuggled_all": rate_of(f for n in SMUGGLED for f in by[n]),
            **{name: rate_of(flags) for name, flags in by.items()},
        }
    return out


def benign_rates(cfg: GuardConfig) -> dict[str, object]:
    pool = [r for r in load_pool() if r["split"] == "test"]
    by: dict[str, list[bool]] = defaultdict(list)
    alarms = []
    for row in pool:
        hit = _blocked(row["text"], cfg)
        by[row["domain"]].append(hit)
        if hit:
            alarms.append(row["text"])
    heldout = [_blocked(p.text, cfg) for p in load_prompts(HELDOUT_BENIGN)]
    return {"pool_test": rate_of(f for flags in by.values() for f in flags),
            **{f"pool_test:{d}": rate_of(flags) for d, flags in sorted(by.items())},
            "guard_heldout_2026_11_benign": rate_of(heldout), "pool_test_false_alarms": alarms}


def _corpus(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def document_rates(passages: list[Path]) -> dict[str, object]:
    carriers = _corpus(CORPUS)
    out: dict[str, object] = {}
    for split in INJECTIONS:
        rows = planted(carriers, split)
        out[f"latent_{split}"] = rate_of(bool(passage_findings(doc)) for _, doc in rows)
        out[f"latent_{split}_missed"] = sorted({t for t, doc in rows if not passage_findings(doc)})
    clean = {"beir_sample": carriers} | {p.parent.name: _corpus(p) for p in passages}
    for name, texts in clean.items():
        flagged = [t for t in texts if passage_findings(t)]
        out[f"clean:{name}"] = rate_of(bool(passage_findings(t)) for t in texts)
        out[f"clean:{name}:flagged"] = [t[:200] for t in flagged]
    return out


def learned_alone() -> dict[str, object]:
    cfg = GuardConfig(rate_limit=None)  # the learned verdict is read; whether it blocks is not
    learned = {}
    for split, path in (("dev", ATTACKS), ("test", HELDOUT_ATTACKS)):
        verdicts = [guard(p.text, cfg).learned for p in load_prompts(path)]
        learned[f"attacks_{split}"] = rate_of(bool(v and v.flagged) for v in verdicts)
    pool = [r for r in load_pool() if r["split"] == "test"]
    learned["benign_pool_test"] = rate_of(bool((v := guard(r["text"], cfg).learned) and v.flagged)
                                        for r in pool)
    return learned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=Path, action="append", default=[],
                        help="a BEIR corpus.jsonl of clean passages, for document false alarms (repeatable)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    cfg = GuardConfig(rate_limit=None)
    report = {
        "command": " ".join(["python -m eval.guard_detector.security",
                             *(f"--passages {p}" for p in args.passages)]),
        "attack_classes": attack_classes(cfg), "variants": variant_rates(cfg),
        "benign": benign_rates(cfg), "documents": document_rates(args.passages),
        "learned_detector_flags": learned_alone(),
    }
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
