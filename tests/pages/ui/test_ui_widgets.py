"""Inputs generated from a settings model: one widget of the right kind per field."""

from streamlit.testing.v1 import AppTest


def _app() -> None:
    from typing import Literal

    import streamlit as st
    from pydantic import BaseModel, Field

    from pages.ui.widgets import settings_widgets

    class Demo(BaseModel):
        size: int = Field(512, ge=1, le=4000)
        ratio: float = Field(0.5, ge=0, le=1)
        unit: Literal["chars", "sentences"] = "chars"
        strip: bool = True
        tokenizer: str | None = None

    values = settings_widgets(Demo, "demo_")
    st.session_state["demo_values"] = values


def test_each_field_gets_its_widget_and_values_round_trip() -> None:
    at = AppTest.from_function(_app).run()
    assert not at.exception
    assert at.number_input(key="demo_size").value == 512
    assert at.number_input(key="demo_ratio").value == 0.5
    assert at.selectbox(key="demo_unit").options == ["chars", "sentences"]
    assert at.checkbox(key="demo_strip").value is True
    assert at.session_state["demo_values"]["tokenizer"] is None  # empty text means "not set"

    at.number_input(key="demo_size").set_value(300)
    at.selectbox(key="demo_unit").select("sentences")
    at.checkbox(key="demo_strip").uncheck()
    at.text_input(key="demo_tokenizer").input("/models/minilm").run()
    assert at.session_state["demo_values"] == {
        "size": 300, "ratio": 0.5, "unit": "sentences", "strip": False,
        "tokenizer": "/models/minilm",
    }


def test_bounds_come_from_the_constraints() -> None:
    at = AppTest.from_function(_app).run()
    size = at.number_input(key="demo_size")
    assert (size.min, size.max, size.step) == (1, 4000, 1)
