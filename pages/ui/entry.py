"""Every page runs through app.py (calls streamlit).

Because the page folder is called `pages/`, Streamlit starts in its old pages-folder mode and
stays there until app.py calls st.navigation. A page opened by its address as the first visit
after the server starts (a bookmark, a restored tab) then runs alone: no sidebar, no preset.
Each page calls `through_app()` first: in that mode it switches the old mode off (as
st.navigation does) and starts the run again, now through app.py. Only on a session's first run:
a later run carries widget events (a click) that a rerun would drop.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

FIRST_RUN_DONE = "entry_first_run_done"


def through_app() -> None:
    if st.session_state.get(FIRST_RUN_DONE):
        return
    st.session_state[FIRST_RUN_DONE] = True
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
