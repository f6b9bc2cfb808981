"""`python -m benchmarks SUITE …`: research benchmarks that write JSON (see benchmarks/cli)."""

from benchmarks.cli import main

raise SystemExit(main())
