"""The one error a parser raises: what is wrong with the file and what the user can do about it."""

from __future__ import annotations


class DocumentError(ValueError):
    """A file that cannot become a Document; `problem` and `action` go straight into the ingest report."""

    def __init__(self, problem: str, action: str) -> None:
        super().__init__(f"{problem}; {action}")
        self.problem = problem
        self.action = action
