"""Streamlit inputs generated from a pydantic settings model: one widget per field, no if-chains
per strategy. Returns the raw values; the caller validates them with the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st
from pydantic import BaseModel

from pages.ui.forms import FieldSpec, field_specs


def _label(spec: FieldSpec) -> str:
    return spec.name.replace("_", " ")


def field_widget(spec: FieldSpec, key: str, value: Any) -> Any:
    """Draw the input for one field, starting at `value`."""
    label, help_text = _label(spec), spec.help or None
    if spec.kind == "bool":
        return st.checkbox(label, value=bool(value), key=key, help=help_text)
    if spec.kind == "choice":
        options = list(spec.choices) + ([None] if spec.nullable else [])
        index = options.index(value) if value in options else 0
        return st.selectbox(label, options, index=index, key=key, help=help_text)
    if spec.kind == "text":
        text = st.text_input(label, value="" if value is None else str(value), key=key,
                             help=help_text)
        return None if spec.nullable and not text else text
    if spec.kind == "int":
        return st.number_input(
            label,
            min_value=None if spec.minimum is None else int(spec.minimum),
            max_value=None if spec.maximum is None else int(spec.maximum),
            value=None if value is None else int(value),
            step=1, key=key, help=help_text,
        )
    return st.number_input(
        label,
        min_value=None if spec.minimum is None else float(spec.minimum),
        max_value=None if spec.maximum is None else float(spec.maximum),
        value=None if value is None else float(value),
        step=0.05, key=key, help=help_text,
    )


def settings_widgets(
    model: type[BaseModel], key_prefix: str, values: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """One widget per editable field of `model`; keys are `{key_prefix}{field}`."""
    values = values or {}
    return {
        spec.name: field_widget(spec, f"{key_prefix}{spec.name}", values.get(spec.name, spec.default))
        for spec in field_specs(model)
    }
