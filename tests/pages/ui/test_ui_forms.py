from typing import Literal

from pydantic import BaseModel, Field

from pages.ui.forms import field_specs


class Example(BaseModel):
    size: int = Field(512, ge=16, le=8000, description="characters per chunk")
    overlap: int = Field(50, ge=0, lt=1000)
    ratio: float = Field(0.3, gt=0, le=1)
    mode: Literal["a", "b"] = "b"
    keep: bool = True
    label: str = "x"
    limit: int | None = None
    separators: list[str] = Field(default_factory=lambda: ["\n\n", "\n"])


def test_fields_become_specs_with_bounds_and_kinds() -> None:
    specs = {s.name: s for s in field_specs(Example)}
    assert list(specs) == ["size", "overlap", "ratio", "mode", "keep", "label", "limit"]
    assert (specs["size"].kind, specs["size"].minimum, specs["size"].maximum) == ("int", 16, 8000)
    assert specs["size"].help == "characters per chunk"
    assert specs["overlap"].maximum == 999  # lt on an int is an inclusive max one lower
    assert (specs["ratio"].kind, specs["ratio"].minimum) == ("float", 0)
    assert specs["mode"].choices == ("a", "b") and specs["mode"].default == "b"
    assert specs["keep"].kind == "bool" and specs["label"].kind == "text"
    assert specs["limit"].nullable and specs["limit"].kind == "int"


def test_unsupported_types_are_left_out() -> None:
    assert "separators" not in {s.name for s in field_specs(Example)}
