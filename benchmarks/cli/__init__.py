"""`python -m benchmarks SUITE … --out FILE.json`: the research benchmarks (speed, scale, roofline,
LLM replies). Each suite's options live in a module of this package; `suites.py` routes them."""

from __future__ import annotations

import sys

from benchmarks.cli.suites import build_parser, run


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return int(run(args) or 0)
    except (ValueError, FileNotFoundError) as exc:  # user errors: one clear line, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
