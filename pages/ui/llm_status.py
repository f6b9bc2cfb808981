"""The sidebar line saying which LLM the LLM stages talk to (model from the endpoint's
/v1/models), or that there is none and answers are extractive."""

from __future__ import annotations

import os

import streamlit as st

from rag.llm import ConnectedLLM, connected_llm


@st.cache_data(ttl=30, show_spinner=False)  # one /models call per endpoint per 30 s
def _connected(base_url: str | None, api_key: str | None) -> ConnectedLLM:
    env = {k: v for k, v in (("OPENAI_BASE_URL", base_url), ("OPENAI_API_KEY", api_key)) if v}
    return connected_llm(env)


def llm_status() -> ConnectedLLM:
    found = _connected(os.environ.get("OPENAI_BASE_URL"), os.environ.get("OPENAI_API_KEY"))
    if found.model:
        st.caption(f"LLM: **{found.model}** at {found.base_url}")
    else:
        st.caption(f"LLM: none — {found.detail}")
    return found
