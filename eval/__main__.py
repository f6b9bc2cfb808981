"""`python -m eval <command>`: run, sweep, bench. Each command is a module in eval/cli/."""

from eval.cli import main

raise SystemExit(main())
