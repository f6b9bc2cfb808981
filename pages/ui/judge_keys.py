"""Keyboard judging that survives the widgets: after the question dropdown (or any select) is
used, the browser's focus stays in its search box, so a later "y" is typed there instead of
reaching the button's shortcut. A small script in the page (st.html with JavaScript) moves such
keys out of a closed select to the page body, and takes the focus off a select after each page
run."""

from __future__ import annotations

import streamlit as st

RUNS = "judge_key_runs"  # a counter: the script's text changes each run, so it runs again

_SCRIPT = """<script>
(() => {
  const doc = document;
  const keys = new Set(%(keys)s);
  const inClosedSelect = (el) => Boolean(el && el.getAttribute)
    && el.getAttribute('role') === 'combobox' && el.getAttribute('aria-expanded') !== 'true';
  const active = doc.activeElement;
  if (inClosedSelect(active)) active.blur();
  if (window.__judgeKeys) return;
  window.__judgeKeys = true;
  doc.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !keys.has(e.key.toLowerCase())) return;
    if (!inClosedSelect(e.target)) return;
    e.preventDefault();
    e.stopPropagation();
    e.target.blur();
    doc.body.dispatchEvent(new KeyboardEvent('keydown', {
      key: e.key, code: e.code, keyCode: e.keyCode, which: e.which, bubbles: true}));
  }, true);
})();
// run %(run)d
</script>"""


def keep_shortcuts(keys: str) -> None:
    """Install the key forwarding once per browser tab; blur a closed select on every run."""
    run = st.session_state.get(RUNS, 0) + 1
    st.session_state[RUNS] = run
    listed = "[" + ",".join(f'"{k.lower()}"' for k in keys) + "]"
    st.html(_SCRIPT % {"keys": listed, "run": run}, unsafe_allow_javascript=True)
