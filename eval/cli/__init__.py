"""Evaluation commands; each module provides `add_parser(subparsers)` and `run(args)`."""

from __future__ import annotations

from rag.cli import dispatch

COMMANDS = {"run": "eval.cli.run", "sweep": "eval.cli.sweep",
            "calibrate-abstention": "eval.cli.calibrate", "guard": "eval.cli.guard",
            "tune": "eval.cli.tune", "learned-fusion": "eval.cli.learned",
            "questions": "eval.cli.questions", "intents": "eval.cli.intents",
            "validate-testset": "eval.cli.validate", "testset-quality": "eval.cli.quality",
            "simulate-judging": "eval.cli.simulate", "runs": "eval.cli.runs",
            "compare": "eval.cli.compare", "compare-judges": "eval.cli.compare_judges"}


def main(argv: list[str] | None = None) -> int:
    return dispatch("python -m eval", COMMANDS, argv)
