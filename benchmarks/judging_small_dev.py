"""Judging orders and fills compared on development sets cut to few questions (issue 35, goal
5, judge5): the regime where the filled scores erred most on the reported sets (20 questions).
Each set is subsampled to `--questions` questions (`--subsets` draws, seeds 100, 101, …), plus
the whole set with `--full`; per draw, order and budget the simulation of
`python -m eval simulate-judging` runs (eval.judging.simulate: the full labels play the person,
the learned judge fills the rest) and the file keeps τ, separated pairs kept, the largest
|Δ nDCG@10|, its mean sign (bias) and the relevant passages found.

    python -m benchmarks.judging_small_dev --dataset datasets/build/beir_dev_harden \
        datasets/build/beir_dev_install --subsets 6 --full --budget 0.1 0.2 0.3 \
        --method answer_seek judge_uncertainty ndcg_gain --out FILE.json

A method is ORDER[:FILL[:FB]] (FB fb, fbr, fbk, fba or fbd: the judge with that variant of the
relevance-feedback features of benchmarks.judging_feedback; without it, without them; the rows
keep the out-of-fold κ on the labels given without and with them, fb unless FB is given): ORDER
a registered strategy or a candidate below (`seek_R_P` with R
in gain/flip/var, the answer prior P; `seekb_R_P` its Bayesian form P·w/(T − P·J); `seekx_P_B`
a prior B also for questions whose answer is found; `seeksq_P` squared discounts; `explore_K`
every question's K heaviest passages first, then judge_uncertainty); FILL threshold (default),
expected (p as a graded gain), platt or isotonic (p recalibrated out of fold on the labels, then
as a graded gain), or (judge7) KIND-CAL: KIND `ideal` (the threshold fill, each question's ideal
DCG grown by the expected relevant still unjudged, Σ p over its unfilled passages), `count`
(classify and count made to match: the top round(Σ p) unjudged passages filled relevant) or
`countideal` (both); CAL raw (default), platt or isotonic (p recalibrated out of fold first), or
oracle (the full labels: a bound on what a perfect estimate of the missed count could do);
`ht` with the order `tail_R`: the threshold fill, each relevant passage of the uniform random
tail weighted 1/π (Horvitz and Thompson 1952; the sampling estimators of statAP, Aslam & Pavlu
2006, and infAP, Yilmaz & Aslam 2006).
Development sets only: never the reported sets, SQLite or Git.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.judging_feedback import VECTORS, feedback_features
from eval.judging.features import context_features
from eval.judging.learned_judge import LearnedJudge, agreement_of, can_learn, out_of_fold
from eval.judging.sim_pool import JudgingPool
from eval.judging.simulate import (
    Truth,
    compare,
    draws,
    fill_probabilities,
    judge_agreement,
    ndcg_table,
    reference,
)
from eval.judging.strategies.base import STRATEGIES, JudgingState, Strategy, make_strategy
from eval.judging.strategies.impact import ideal_dcg

CLIP = 0.02


def judge_rows(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int],
               feedback: bool | str = False) -> np.ndarray:
    """The learned judge's features as the product builds them (item features and the
    question context), plus the relevance-feedback variant `feedback` (fb when True)."""
    x = np.column_stack([feats, context_features(pool, judged)])
    if not feedback:
        return x
    variant = feedback if isinstance(feedback, str) else "fb"
    return np.column_stack([x, feedback_features(pool, judged, variant)])


def fill_with(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int], seed: int,
              feedback: bool | str) -> np.ndarray | None:
    """eval.judging.simulate.fill_probabilities (logistic judge), with or without feedback."""
    if not feedback:
        return fill_probabilities(pool, feats, judged, "logistic", seed)
    idx = list(judged)
    y = [judged[i] for i in idx]
    if not can_learn(y):
        return None
    x = judge_rows(pool, feats, judged, feedback)
    return LearnedJudge("logistic", seed).fit(x[idx], y).probabilities(x)


class Seek:
    """Candidate family around answer_seek: value = risk(max(p, prior)) · impact / IDCG_q."""

    def __init__(self, pool: JudgingPool, risk: str = "gain", prior: float = 0.5,
                 bayes: bool = False, beta: float = 0.0, square: bool = False,
                 sim_t: float = 2.0, sim_b: float = 0.0, sim_scale: float = 0.0) -> None:
        self.risk, self.prior, self.bayes, self.beta, self.square = risk, prior, bayes, beta, square
        self.pool, self.sim_t, self.sim_b, self.sim_scale = pool, sim_t, sim_b, sim_scale
        self.depth = pool.depth
        self.question = np.zeros(len(pool), dtype=int)
        for q, idx in enumerate(pool.by_question.values()):
            self.question[list(idx)] = q
        self.nq = len(pool.by_question)
        self.lin = pool.weights
        self.sq = np.array([sum((1.0 / np.log2(r + 1)) ** 2 for r in it.ranks.values())
                            for it in pool.items])

    def pick(self, state: JudgingState) -> int | None:
        n = len(self.question)
        if n == 0:
            return None
        if state.probabilities is None:
            p, expected = np.full(n, 0.5), np.zeros(n)
        else:
            expected = np.asarray(state.probabilities, dtype=np.float64).copy()
            p = np.clip(expected, CLIP, 1 - CLIP)
        judged, found = np.zeros(n, dtype=bool), np.zeros(self.nq)
        for i, label in state.judged.items():
            judged[i], expected[i] = True, float(label)
            found[self.question[i]] += label
        open_w = np.bincount(self.question, weights=np.where(judged, 0.0, self.lin),
                             minlength=self.nq)[self.question]
        if self.bayes:
            total = np.bincount(self.question, weights=self.lin, minlength=self.nq)[self.question]
            denom = total - self.prior * (total - open_w)
        else:
            denom = open_w
        unanswered = found[self.question] == 0
        prior = np.where(unanswered, self.prior, self.beta) * self.lin / np.maximum(denom, 1e-9)
        pe = np.maximum(p, np.minimum(prior, 1 - CLIP))
        if self.sim_b or self.sim_scale:  # more like the relevant ones found (feedback order)
            near = feedback_features(self.pool, state.judged)[:, 0]
            pe = np.maximum(pe, np.where(near >= self.sim_t, self.sim_b, 0.0))
            pe = np.maximum(pe, np.minimum(self.sim_scale * near, 1 - CLIP))
        risk = {"gain": pe, "flip": np.minimum(pe, 1 - pe), "var": pe * (1 - pe)}[self.risk]
        rel = np.bincount(self.question, weights=expected, minlength=self.nq)
        ideal = ideal_dcg(np.maximum(rel, 1.0), self.depth)[self.question]
        value = risk * (self.sq / ideal ** 2 if self.square else self.lin / ideal)
        value[judged] = -1.0
        best = int(np.argmax(value))
        return best if value[best] >= 0 and best not in state.judged else None

    def tell(self, item: int, relevant: bool) -> None:
        """Stateless."""


class Explore:
    """Every question's `floor` heaviest passages first (round robin), then `inner`."""

    def __init__(self, pool: JudgingPool, inner: Strategy, floor: int) -> None:
        self.inner, self.floor = inner, floor
        w = pool.weights
        self.order = [sorted(idx, key=lambda i: -w[i]) for idx in pool.by_question.values()]

    def pick(self, state: JudgingState) -> int | None:
        for k in range(1, self.floor + 1):
            for order in self.order:
                if sum(1 for i in order if i in state.judged) < k:
                    nxt = next((i for i in order if i not in state.judged), None)
                    if nxt is not None:
                        return nxt
        return self.inner.pick(state)

    def tell(self, item: int, relevant: bool) -> None:
        self.inner.tell(item, relevant)


def chooser(name: str, pool: JudgingPool, seed: int) -> Strategy:
    if name in STRATEGIES.names():
        return make_strategy(name, pool, seed)
    kind, *args = name.split("_")
    if kind in ("seek", "seekb"):
        return Seek(pool, args[0], float(args[1]), bayes=kind == "seekb")
    if kind == "seekx":
        return Seek(pool, prior=float(args[0]), beta=float(args[1]))
    if kind == "seeksim":  # seeksim_T_B: p at least B where the TF-IDF cosine to a found
        return Seek(pool, sim_t=float(args[0]), sim_b=float(args[1]))  # relevant one ≥ T
    if kind == "seekscale":  # seekscale_S: p at least S × that cosine
        return Seek(pool, sim_scale=float(args[0]))
    if kind == "seeksq":
        return Seek(pool, prior=float(args[0]), square=True)
    if kind == "explore":
        return Explore(pool, make_strategy("judge_uncertainty", pool, seed), int(args[0]))
    raise ValueError(f"unknown order {name!r}")


def load(dataset: str) -> tuple[JudgingPool, Truth, np.ndarray]:
    from eval.data.evalsets import load_eval_set
    from eval.judging.features import item_features
    from eval.judging.pool import DEFAULT_SYSTEMS
    from eval.judging.sim_runs import labelled_pool
    from rag.config import load_preset
    from rag.embed import get_embedder

    pool, truth = labelled_pool(load_eval_set(dataset), list(DEFAULT_SYSTEMS), 10, {})
    embedder = get_embedder(load_preset("dense").embedding)
    texts = [item.text for item in pool.items]
    VECTORS.update(zip(texts, np.asarray(embedder.embed_documents(texts)), strict=True))
    return pool, truth, item_features(pool, embedder).matrix


def subset(pool: JudgingPool, truth: Truth, feats: np.ndarray, qids: Sequence[str],
           ) -> tuple[JudgingPool, Truth, np.ndarray]:
    """The pool, labels and features of `qids` only (features as computed on the whole set)."""
    keep = [i for q in qids for i in pool.by_question[q]]
    remap = {old: new for new, old in enumerate(keep)}
    runs = {s: {q: tuple(remap[i] for i in pool.runs[s].get(q, ())) for q in qids}
            for s in pool.systems}
    sub = JudgingPool({q: pool.questions[q] for q in qids},
                      {q: pool.answers.get(q, "") for q in qids}, pool.systems,
                      tuple(pool.items[i] for i in keep), runs, pool.depth, pool.unit)
    wanted = set(qids)
    return sub, Truth(truth.labels[keep], {q: truth.outside.get(q, 0) for q in qids},
                      tuple(q for q in truth.queries if q in wanted)), feats[keep]


SAMPLED: dict[int, float] = {}  # the last `tail_R` run's random picks: item -> 1/inclusion


def spend(pool: JudgingPool, truth: Truth, feats: np.ndarray, name: str, budget: float,
          seed: int, feedback: bool | str | None = None) -> tuple[dict[int, int], np.ndarray | None]:
    """As eval.judging.simulate.run_strategy, for any order of this module. `tail_R`:
    answer_seek for a share 1 − R of the budget, then R of it drawn uniformly from the passages
    still unjudged (their inclusion probability kept in SAMPLED for the `ht` fill)."""
    total = round(budget * len(pool))
    SAMPLED.clear()
    if name.startswith("tail_"):
        share = float(name.split("_")[1])
        judged, _ = spend(pool, truth, feats, "answer_seek", budget * (1 - share), seed, feedback)
        rest = [i for i in range(len(pool)) if i not in judged]
        k = min(len(rest), total - len(judged))
        picks = np.random.default_rng(seed).choice(rest, k, replace=False) if k > 0 else []
        for i in picks:
            judged[int(i)] = int(truth.labels[i])
            SAMPLED[int(i)] = len(rest) / k
        return judged, fill_with(pool, feats, judged, seed, feedback or False)
    order = chooser(name, pool, seed)
    judged = {}
    probs = None
    every = next_fit = max(10, total // 20)
    while len(judged) < total:
        item = order.pick(JudgingState(pool, judged, probs))
        if item is None:
            break
        judged[item] = int(truth.labels[item])
        order.tell(item, bool(judged[item]))
        if len(judged) >= next_fit:
            probs = fill_with(pool, feats, judged, seed, feedback or False)
            next_fit += every
    return judged, fill_with(pool, feats, judged, seed, feedback or False)


def agreement(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int], seed: int,
              feedback: bool | str) -> float | None:
    """The judge's out-of-fold κ (folds by question) on the labels given, with or without the
    feedback features."""
    idx = list(judged)
    x = judge_rows(pool, feats, judged, feedback)
    done = out_of_fold(x[idx], [judged[i] for i in idx], [pool.items[i].qid for i in idx],
                       "logistic", 5, seed)
    if done is None:
        return None
    return round(agreement_of(done[0], [judged[i] for i in idx], done[1], "logistic").kappa, 4)


def recalibrated(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int],
                 probs: np.ndarray, seed: int, how: str) -> np.ndarray:
    """p mapped by a Platt or isotonic fit of the labels on the judge's out-of-fold p."""
    idx = list(judged)
    y = np.array([judged[i] for i in idx])
    x = np.column_stack([feats, context_features(pool, judged)])
    done = out_of_fold(x[idx], y, [pool.items[i].qid for i in idx], "logistic", 5, seed)
    if done is None:
        return probs
    oof = done[0]
    if how == "platt":
        from sklearn.linear_model import LogisticRegression

        def logit(p: np.ndarray) -> np.ndarray:
            q = np.clip(p, 1e-4, 1 - 1e-4)
            return np.log(q / (1 - q))[:, None]
        return LogisticRegression(C=1e6).fit(logit(oof), y).predict_proba(logit(probs))[:, 1]
    from sklearn.isotonic import IsotonicRegression

    return IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(oof, y).predict(probs)


def unjudged_p(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int],
               probs: np.ndarray, seed: int, calibrate: str,
               truth: np.ndarray | None = None) -> np.ndarray:
    """The judge's p on every item, recalibrated out of fold when `calibrate` is platt or
    isotonic, or the full labels themselves with `oracle` (a bound, not a method); judged
    items 0 (their labels are known)."""
    if calibrate == "oracle" and truth is not None:
        q = truth
    elif calibrate == "raw":
        q = probs
    else:
        q = recalibrated(pool, feats, judged, probs, seed, calibrate)
    q = np.asarray(q, dtype=np.float64).copy()
    q[list(judged)] = 0.0
    return q


def missing_mass(pool: JudgingPool, judged: dict[int, int], p: np.ndarray,
                 filled: np.ndarray) -> dict[str, float]:
    """Per question, the expected relevant passages among the unjudged ones the fill leaves
    not relevant: Σ p over them (what eval.judging.stopping shows summed over the pool)."""
    rest = np.where(filled > 0, 0.0, p)
    rest[list(judged)] = 0.0
    return {q: float(rest[list(idx)].sum()) for q, idx in pool.by_question.items()}


def count_matched(judged: dict[int, int], p: np.ndarray) -> np.ndarray:
    """Classify and count made to match (Forman 2008): the top round(Σ p) unjudged passages by
    p are filled relevant, instead of those with p ≥ 0.5."""
    out = np.zeros(len(p))
    rest = np.array([i for i in range(len(p)) if i not in judged], dtype=int)
    n = round(float(p[rest].sum())) if len(rest) else 0
    if n:
        out[rest[np.argsort(-p[rest], kind="stable")[:n]]] = 1.0
    for i, label in judged.items():
        out[i] = label
    return out


def scored(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int],
           probs: np.ndarray | None, seed: int, fill: str, queries: Sequence[str],
           truth: np.ndarray | None = None) -> np.ndarray:
    """(systems, queries) nDCG@10 under `fill`: the older fills of `gains`, or KIND-CAL with
    KIND ideal (threshold fill, the ideal grown by the expected missing relevant), count
    (count-matched fill) or countideal (both), CAL raw, platt, isotonic or oracle (the full
    labels: ideal-oracle adds the exact count of relevant passages missed per question)."""
    kind, _, cal = fill.partition("-")
    if kind == "ht":  # Horvitz-Thompson: a random pick found relevant stands for 1/π of them
        labels = draws(judged, probs, len(pool), seed, "threshold")[0]
        for i, weight in SAMPLED.items():
            labels[i] *= weight
        return ndcg_table(pool, labels, queries)
    if kind not in ("ideal", "count", "countideal") or probs is None:
        return ndcg_table(pool, gains(pool, feats, judged, probs, seed, fill), queries)
    p = unjudged_p(pool, feats, judged, probs, seed, cal or "raw", truth)
    labels = count_matched(judged, p) if kind.startswith("count") \
        else draws(judged, probs, len(pool), seed, "threshold")[0]
    extra = missing_mass(pool, judged, p, labels) if kind.endswith("ideal") else None
    return ndcg_table(pool, labels, queries, extra)


def gains(pool: JudgingPool, feats: np.ndarray, judged: dict[int, int],
          probs: np.ndarray | None, seed: int, fill: str) -> np.ndarray:
    if fill in ("platt", "isotonic") and probs is not None:
        return draws(judged, recalibrated(pool, feats, judged, probs, seed, fill), len(pool),
                     seed, "expected")
    return draws(judged, probs, len(pool), seed, "expected" if fill != "threshold" else fill)


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(float(np.mean(kept)), 4) if kept else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", nargs="+", required=True)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--subsets", type=int, default=6)
    parser.add_argument("--full", action="store_true", help="also the whole set")
    parser.add_argument("--budget", type=float, nargs="+", default=[0.2])
    parser.add_argument("--method", nargs="+", required=True, help="ORDER[:FILL]")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    runs: dict[str, Any] = {}
    for dataset in args.dataset:
        pool, truth, feats = load(dataset)
        qs = list(truth.queries)
        draws_ = [(f"s{k}", sorted(np.random.default_rng(100 + k).choice(
            len(qs), min(args.questions, len(qs)), replace=False).tolist()))
            for k in range(args.subsets)]
        if args.full:
            draws_.append(("full", list(range(len(qs)))))
        for tag, cols in draws_:
            sub, tr, fx = subset(pool, truth, feats, [qs[i] for i in cols])
            ref = reference(sub, tr, 0)
            spent: dict[tuple[str, float, bool | str], Any] = {}  # fills of one order share it
            for method in args.method:
                order, _, fill = method.partition(":")
                fill, _, judge = fill.partition(":")
                feedback = judge or False
                for budget in args.budget:
                    key = (order, budget, feedback)
                    if key not in spent:
                        judged, probs = spend(sub, tr, fx, order, budget, 0, feedback)
                        spent[key] = (judged, probs, dict(SAMPLED),
                                      agreement(sub, fx, judged, 0, False),
                                      agreement(sub, fx, judged, 0, feedback or True))
                    judged, probs, sampled, kappa, kappa_fb = spent[key]
                    SAMPLED.clear()
                    SAMPLED.update(sampled)
                    sim = scored(sub, fx, judged, probs, 0, fill or "threshold", tr.queries,
                                 tr.labels)
                    figures = compare(sim, ref, seed=0)
                    signed = sim.mean(axis=1) - ref.full.mean(axis=1)
                    row = {"questions": len(tr.queries), "pool": len(sub),
                           "kappa_oof": kappa, "kappa_oof_feedback": kappa_fb,
                           "judge_on_unjudged": judge_agreement(probs, tr, judged),
                           "tau": figures["tau"], "split_half_tau": round(ref.split_half, 4),
                           "separated_pairs": figures["separated_pairs"],
                           "separated_pairs_kept": figures["separated_pairs_kept"],
                           "max_abs_error": figures["max_abs_error"],
                           "bias": round(float(signed.mean()), 4),
                           "relevant_found": round(sum(judged.values())
                                                   / max(1.0, float(tr.labels.sum())), 4)}
                    runs.setdefault(Path(dataset).name, {}).setdefault(tag, {}) \
                        .setdefault(method, {})[f"{budget:g}"] = row
                    print(Path(dataset).name, tag, method, budget, row, file=sys.stderr)
    summary: dict[str, Any] = {}
    for method in args.method:
        for budget in args.budget:
            b = f"{budget:g}"
            rows = [v[method][b] for d in runs.values() for t, v in d.items() if t != "full"]
            errors = np.array([r["max_abs_error"] for r in rows])
            summary.setdefault(method, {})[b] = {
                "subsets": len(rows), "mean_max_abs_error": round(float(errors.mean()), 4),
                "worst_max_abs_error": round(float(errors.max()), 4),
                "share_within_0.02": round(float((errors <= 0.02).mean()), 4),
                "mean_tau": round(float(np.mean([r["tau"] or 0.0 for r in rows])), 4),
                "mean_kappa_oof": _mean([r["kappa_oof"] for r in rows]),
                "mean_kappa_oof_feedback": _mean([r["kappa_oof_feedback"] for r in rows]),
                "mean_fill_kappa_unjudged": _mean([r["judge_on_unjudged"]["kappa"]
                                                   for r in rows]),
                "min_pairs_kept": min((r["separated_pairs_kept"] for r in rows
                                       if r["separated_pairs_kept"] is not None), default=None),
                "full_sets_max_abs_error": {d: v["full"][method][b]["max_abs_error"]
                                            for d, v in runs.items() if "full" in v}}
            print(method, b, summary[method][b], file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({
        "command": "python -m benchmarks.judging_small_dev " + " ".join(sys.argv[1:]),
        "questions": args.questions, "subsets": args.subsets, "summary": summary,
        "runs": runs}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
