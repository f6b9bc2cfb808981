"""Regenerate the measured parts of docs/architecture.md: the floors of rag/'s import graph
(tests/test_rag_floors.py's measure), the config sections (rag/settings/) and, per stage, the
sections it reads. Each sits between `<!-- name:begin -->` and `<!-- name:end -->`.

    python docs/make_architecture.py          # rewrite the blocks
    python docs/make_architecture.py --check  # exit 1 if the file is out of date
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def floors_block() -> str:
    from test_rag_floors import measure

    found = measure()
    floors = found["floors"]
    assert isinstance(floors, dict)
    by_floor: dict[int, list[str]] = {}
    for unit, floor in floors.items():
        by_floor.setdefault(floor, []).append(unit.removeprefix("rag."))
    lines = ["```", *(f"{floor:>2}  {'  '.join(sorted(units))}"
                      for floor, units in sorted(by_floor.items(), reverse=True)), "```", ""]
    back, knots = found["back_up_imports"], found["knots"]
    assert isinstance(back, list) and isinstance(knots, list)
    lines.append(f"{found['layers']} layers, {found['back_up']} import back up "
                 f"({', '.join(back) or 'none'}), import circles between units: "
                 f"{len(knots)} (typing and lazy imports counted). "
                 "`python tests/test_rag_floors.py` prints the figures.")
    return "\n".join(lines)


def sections_block() -> str:
    from rag.settings.pipeline import PipelineConfig
    from rag.stages import STAGE_ORDER, STAGES

    rows = ["| stage | its own section (the only one it reads) | earlier outputs it reads (`inputs=`) |",
            "|---|---|---|"]
    for name in STAGE_ORDER:
        spec = STAGES.find(name)
        assert spec is not None
        own = _own_section(spec.settings, PipelineConfig())
        inputs = ", ".join(f"{i.stage} ({i.kind.__name__})" for i in spec.inputs)
        rows.append(f"| {name} | {own or '—'} | {inputs or '—'} |")
    return "\n".join(rows)


def _own_section(settings: Callable[..., object] | None, config: object) -> str:
    """The section a stage's settings come from, found by identity with the config's."""
    if settings is None:
        return ""
    value = settings(config)
    for section in type(config).model_fields:  # type: ignore[attr-defined]
        held = getattr(config, section)
        if held is value:
            return section
        for sub in getattr(type(held), "model_fields", {}):
            if getattr(held, sub) is value:
                return f"{section}.{sub}"
    return _derived_from(settings)  # e.g. select's top_k, taken from retrieval


def _derived_from(settings: Callable[..., object]) -> str:
    """The sections a settings function looks up, when it builds a value of its own."""
    from rag.settings.pipeline import PipelineConfig

    seen: list[str] = []

    class Noting(PipelineConfig):
        def __getattribute__(self, name: str) -> object:
            if name in PipelineConfig.model_fields and name not in seen:
                seen.append(name)
            return super().__getattribute__(name)

    settings(Noting())
    return ", ".join(f"{name} (part)" for name in seen)


BLOCKS = {"floors": floors_block, "stage-sections": sections_block}


def render(text: str) -> str:
    for name, make in BLOCKS.items():
        pattern = re.compile(rf"(<!-- {name}:begin -->\n).*?(\n<!-- {name}:end -->)", re.S)
        if pattern.search(text) is None:
            raise SystemExit(f"{DOC.name} has no <!-- {name}:begin --> … <!-- {name}:end --> block")
        match = pattern.search(text)
        assert match is not None
        text = text[: match.start()] + match.group(1) + make() + match.group(2) + text[match.end():]
    return text


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    fresh = render(text)
    if "--check" in argv:
        if fresh != text:
            print(f"{DOC} is out of date: run python docs/make_architecture.py")
            return 1
        return 0
    DOC.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
