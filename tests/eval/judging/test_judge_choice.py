"""Judge (b), the frozen MiniLM cross-encoder with a head trained on the labels, and the choice
between it and the feature judge: the pair vector ranks an answering passage above an unrelated
one, the head learns from a handful of labels, the better κ is kept (a tie keeps the feature
judge) and the choice round-trips through the collection's judging folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from eval.judging.cross_judge import DIM, cross_validate_head, fit_probabilities, pair_vectors
from eval.judging.judge_choice import (
    CROSS,
    FEATURES,
    JudgeChoice,
    better,
    choice_path,
    load_choice,
    save_choice,
)
from eval.judging.learned_judge import Agreement

QUESTIONS = ["How do I install a package?", "How do I change the keyboard layout?",
             "Where are log files kept?", "How do I add a user account?",
             "How do I set the time zone?", "How do I mount a USB stick?"]
ANSWERS = ["Install a package with apt install followed by the package name.",
           "Change the keyboard layout with dpkg-reconfigure keyboard-configuration.",
           "Log files are kept under /var/log, for example /var/log/syslog.",
           "Add a user account with adduser and the new user's name.",
           "Set the time zone with timedatectl set-timezone followed by the zone.",
           "Mount a USB stick with mount /dev/sdb1 /mnt after plugging it in."]


def _pairs() -> tuple[list[tuple[str, str]], list[int], list[str]]:
    pairs, labels, groups = [], [], []
    for i, q in enumerate(QUESTIONS):
        for j, a in enumerate(ANSWERS):
            pairs.append((q, a))
            labels.append(int(i == j))
            groups.append(f"q{i}")
    return pairs, labels, groups


def test_the_pair_vector_compares_question_and_passage() -> None:
    pairs, _, _ = _pairs()
    v = pair_vectors(pairs)
    assert v.shape == (len(pairs), DIM)
    maxsim = v[:, -1]  # the best match of a question token among the passage's tokens
    for i in range(len(QUESTIONS)):
        row = maxsim[i * len(ANSWERS):(i + 1) * len(ANSWERS)]
        assert int(np.argmax(row)) == i  # each question's own answer matches best
    mean = v[:, -3]  # MaxSim's mean over the question's tokens: right on most of them
    assert sum(int(np.argmax(mean[i * 6:(i + 1) * 6])) == i for i in range(6)) >= 4


def test_the_head_learns_from_the_labels_and_is_cross_validated_by_question() -> None:
    pairs, labels, groups = _pairs()
    v = pair_vectors(pairs)
    probs = fit_probabilities(v, dict(enumerate(labels)))
    assert probs is not None
    y = np.array(labels)
    assert probs[y == 1].mean() > probs[y == 0].mean() + 0.2
    agreement = cross_validate_head(v, labels, groups, folds=3)
    assert agreement is not None and agreement.model == CROSS and agreement.folds == 3
    assert fit_probabilities(v, {0: 1, 1: 0}) is None  # too few labels: no judge


def _agreement(model: str, kappa: float) -> Agreement:
    return Agreement(model, 40, 10, 5, kappa, 0.5, 0.5)


def test_the_better_kappa_is_kept_and_a_tie_keeps_the_feature_judge() -> None:
    assert better({FEATURES: _agreement(FEATURES, 0.4), CROSS: _agreement(CROSS, 0.6)}) == CROSS
    assert better({FEATURES: _agreement(FEATURES, 0.6), CROSS: _agreement(CROSS, 0.6)}) == \
        FEATURES
    assert better({CROSS: _agreement(CROSS, 0.1)}) == CROSS


def test_the_choice_is_stored_with_the_collection(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    assert load_choice("mine") is None
    choice = JudgeChoice(CROSS, {FEATURES: _agreement(FEATURES, 0.3),
                                 CROSS: _agreement(CROSS, 0.5)}, "mined", 40, "2026-01-01")
    save_choice("mine", choice)
    assert choice_path("mine").parent.name == "judging"
    assert load_choice("mine") == choice
    assert "kept: cross-encoder κ 0.50" in choice.describe()
    choice_path("mine").write_text("{not json", encoding="utf-8")
    assert load_choice("mine") is None  # a broken file: compared again, nothing raised
