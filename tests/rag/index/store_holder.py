"""A long-lived holder of the embedded store, like the app: opens a collection, queries it, and
then answers commands on stdin (tests/rag/index/test_store_sharing.py).

    count  -> "<documents> <points>" as this process sees them now (re-reading what others wrote)
    query  -> runs a query through the hybrid preset; prints "ok <n candidates>"
    hold S -> keeps a store session open for S seconds (others must wait), then prints "held"
    quit
"""

from __future__ import annotations

import sys
import time

from rag.config import load_preset, with_overrides
from rag.index import open_collection
from rag.index.qdrant_store import store_session
from rag.pipeline import ranked_candidates, run_query


def main(name: str) -> None:
    collection = open_collection(name)
    config = with_overrides(load_preset("hybrid"), {"index.collection": name})

    def query() -> str:
        trace = run_query("How long do deleted notes stay in the trash?", config, collection)
        return f"ok {len(ranked_candidates(trace))}"

    print(query(), flush=True)
    for line in sys.stdin:
        command, *rest = line.split()
        if command == "count":
            collection.refresh()
            print(len(collection.manifest.documents), collection.store.count(), flush=True)
        elif command == "query":
            print(query(), flush=True)
        elif command == "hold":
            with store_session():
                print("holding", flush=True)
                time.sleep(float(rest[0]))
            print("held", flush=True)
        elif command == "quit":
            return


if __name__ == "__main__":
    main(sys.argv[1])
