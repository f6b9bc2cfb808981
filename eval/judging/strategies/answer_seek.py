"""Judge next the unjudged passage most likely to be relevant, weighted by how much its label
moves the question's nDCG@10, and keep looking in questions where no relevant passage has been
found yet. The value of an unjudged passage i of question q is

    max(p_i, a_i) · Σ_s d_s(i) / IDCG_q,

where d_s(i) = 1/log2(rank + 1) is its discount in system s's top 10 (0 when s did not rank
it), p_i the learned judge's P(relevant) (clipped to [0.02, 0.98]; 0.5 before a judge exists,
so the first labels go to the top of many rankings), IDCG_q the question's ideal DCG@10 for the
relevant passages expected so far (labelled + Σ p over its unjudged, at least one), and a_i the
answer prior: while q has no passage labelled relevant, PRIOR · w_i / Σ_open w, i.e. half the
chance that this passage is the question's answer if the answer is among q's unjudged passages
in proportion to their weight w (Σ_s d_s) — 0 once one relevant passage of q is found.

Why the prior: on twenty-question sets the error of the filled scores came from questions where
judging found nothing relevant (the judge, fitted on other questions' labels, gave their
relevant passages p ≈ 0.01, so every system scored 0 there while the full labels gave some of
them 0.3–0.5; on 20 questions one such question moves a system's mean nDCG@10 by 0.02–0.03).
A question whose answer is found is left to the judge; one still without an answer keeps asking
for its heaviest passages. Normalizing by IDCG_q (linear, not squared as `ndcg_gain`) makes a
passage of a question with one relevant passage count more than one of a question with six,
as it does in the systems' mean nDCG. Chosen on development sets only (the Securing Debian
Manual and the Debian installation guide, subsampled to 20 questions; docs/judging.md, "judge5").
"""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import STRATEGIES, JudgingState
from eval.judging.strategies.impact import CLIP, ValueOrder

PRIOR = 0.5  # share of an unanswered question's answer chance given to its open passages


class AnswerSeek(ValueOrder):
    def __init__(self, pool: JudgingPool, prior: float = PRIOR) -> None:
        super().__init__(pool)
        self.prior = prior
        self.weights = pool.weights

    def values(self, state: JudgingState) -> np.ndarray:
        """Each item's worth now (judged items: -1)."""
        p, expected, judged = self.beliefs(state)
        found = np.bincount(self.question, weights=np.where(judged, expected, 0.0),
                            minlength=self.questions)
        open_weight = np.bincount(self.question, weights=np.where(judged, 0.0, self.weights),
                                  minlength=self.questions)[self.question]
        answer = np.where(found[self.question] == 0,
                          self.prior * self.weights / np.maximum(open_weight, 1e-12), 0.0)
        chance = np.maximum(p, np.minimum(answer, 1.0 - CLIP))
        value = chance * self.weights / self.ideal(expected)
        value[judged] = -1.0
        return value


@STRATEGIES.register("answer_seek")
def answer_seek(pool: JudgingPool, rng: np.random.Generator) -> AnswerSeek:
    return AnswerSeek(pool)
