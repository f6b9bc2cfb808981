"""Command-line dispatcher: each module in COMMANDS provides `add_parser(subparsers)`, `run(args)`."""

from __future__ import annotations

import argparse
import importlib
import sys

# command name -> module under rag.cli; a new command is a module plus an entry here.
COMMANDS = {"chunk": "rag.cli.chunk", "ingest": "rag.cli.ingest", "query": "rag.cli.query",
            "llm": "rag.cli.llm"}


def build_parser(prog: str, commands: dict[str, str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog)
    sub = parser.add_subparsers(dest="command", required=True)
    for module_name in commands.values():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # command not built yet
        module.add_parser(sub)
    return parser


def dispatch(prog: str, commands: dict[str, str], argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # a named command imports only its own module: `query` must not pay for ingest's parsers
    named = {argv[0]: commands[argv[0]]} if argv and argv[0] in commands else commands
    args = build_parser(prog, named).parse_args(argv)
    module = importlib.import_module(commands[args.command])
    from rag.index.store_lease import StoreBusyError  # late: imports qdrant-client

    try:
        return int(module.run(args) or 0)
    # user errors and a store another process keeps busy: one clear line, no traceback
    except (ValueError, FileNotFoundError, StoreBusyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    return dispatch("python -m rag", COMMANDS, argv)
