"""The README stays a front door: short, with CI's exact test command, and every image it shows
present (docs/make_screenshots.py regenerates them)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_at_most_250_lines() -> None:
    assert len(README.splitlines()) <= 250


def test_readme_test_command_is_exactly_what_ci_runs() -> None:
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("pip install")]
    assert len(ci) == 1, "the CI script has one command line"
    assert ci[0] in README.splitlines(), "README's test command differs from .ci/run"


def test_every_image_the_readme_shows_exists() -> None:
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert images, "the tour shows screenshots"
    missing = [path for path in images if not (ROOT / path).is_file()]
    assert not missing, missing


def test_every_docs_file_the_readme_names_and_exists_has_a_title() -> None:
    for path in sorted(set(re.findall(r"\]\((docs/[\w-]+\.md)\)", README))):
        doc = ROOT / path
        if doc.is_file():  # pages other helpers write land later; the link waits for them
            assert doc.read_text(encoding="utf-8").startswith("# "), path
