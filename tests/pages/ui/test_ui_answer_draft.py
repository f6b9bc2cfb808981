"""The Answer page streams an answer as a marked draft, and a declined draft leaves the chat at
once instead of standing there, read as an answer, until the page reloads."""

import pytest
from streamlit.testing.v1 import AppTest


def _app() -> None:
    import streamlit as st

    from pages.ui.answer import settle_draft, stream_draft

    draft = stream_draft(iter(["The Trash keeps ", "notes for 30 days. [Source 1]"]))
    settle_draft(draft, st.session_state["declined"])


@pytest.mark.parametrize("declined", [False, True])
def test_a_declined_draft_leaves_the_chat_and_a_kept_one_stays_marked_as_a_draft(declined: bool) -> None:
    at = AppTest.from_function(_app)
    at.session_state["declined"] = declined
    at.run()
    assert not at.exception
    shown = " ".join([*(str(m.value) for m in at.markdown), *(c.value for c in at.caption)])
    assert ("notes for 30 days" in shown) is not declined
    assert ("Draft" in shown) is not declined
