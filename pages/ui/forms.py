"""Describe a pydantic settings model's fields as widget specs, so pages generate their inputs."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

FieldKind = Literal["int", "float", "bool", "choice", "text"]
_KINDS: dict[type, FieldKind] = {bool: "bool", int: "int", float: "float", str: "text"}


@dataclass(frozen=True)
class FieldSpec:
    """One editable setting: its kind, default, bounds (inclusive) and allowed choices."""

    name: str
    kind: FieldKind
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] = ()
    nullable: bool = False
    help: str = ""


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _bounds(info: FieldInfo, kind: FieldKind) -> tuple[float | None, float | None]:
    """Inclusive bounds from ge/gt/le/lt constraints (gt/lt on ints become ±1)."""
    step = 1.0 if kind == "int" else 0.0
    lo: float | None = None
    hi: float | None = None
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            lo = float(item.ge)  # type: ignore[arg-type]  # numbers here, by the field type
        elif isinstance(item, annotated_types.Gt):
            lo = float(item.gt) + step  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Le):
            hi = float(item.le)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Lt):
            hi = float(item.lt) - step  # type: ignore[arg-type]
    return lo, hi


def field_spec(name: str, info: FieldInfo) -> FieldSpec | None:
    """The widget spec for one field, or None for types a simple widget cannot edit."""
    annotation, nullable = _unwrap_optional(info.annotation)
    default = info.get_default(call_default_factory=True)
    help_text = info.description or ""
    if typing.get_origin(annotation) is Literal:
        return FieldSpec(name, "choice", default, choices=typing.get_args(annotation),
                         nullable=nullable, help=help_text)
    kind = _KINDS.get(annotation)
    if kind is None:
        return None
    lo, hi = _bounds(info, kind)
    return FieldSpec(name, kind, default, lo, hi, nullable=nullable, help=help_text)


def field_specs(model: type[BaseModel]) -> list[FieldSpec]:
    """Specs for every simply-editable field of `model`, in declaration order."""
    specs = (field_spec(name, info) for name, info in model.model_fields.items())
    return [spec for spec in specs if spec is not None]
