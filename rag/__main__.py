"""`python -m rag <command>`: chunk, ingest, query. Each command is a module in rag/cli/."""

from rag.cli import main

raise SystemExit(main())
