"""Screenshot a running streamlit app in headless chromium over the DevTools protocol (a tool, not a test).

    streamlit run app.py --server.headless true --server.port 8599 &
    python tests/screenshot.py http://localhost:8599/retrieval /tmp/shots/retrieval.png \
        --wait-text "Fused" [--choose "Document=notes.md"] [--click "Build sample collection"]
        [--full-page]

Waits until the text is shown, the "Running…" status widget is gone and no element is stale,
then captures a PNG. Needs `chromium` (apt) and `websocket-client` (pip).
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
    "--remote-debugging-port=0",
)
# True when the app has finished a run: nothing stale, no running indicator, no skeletons.
SETTLED_JS = """(() => {
  const running = document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
  const stale = document.querySelector('[data-stale="true"]');
  const skeleton = document.querySelector('[data-testid="stSkeleton"]');
  const app = document.querySelector('[data-testid="stApp"]');
  return Boolean(app) && !running && !stale && !skeleton;
})()"""
# Centre of the first button / tab / label showing %s (material icons render as ligature text
# inside buttons, so a label that ends with the text counts too).
CLICK_JS = """((label) => {
  const items = [...document.querySelectorAll('button, [role="tab"], label')];
  const hit = items.find(b => b.innerText.trim() === label)
    || items.find(b => b.innerText.trim().endsWith(label));
  if (!hit) return null;
  hit.scrollIntoView({block: 'center'});
  const r = hit.getBoundingClientRect();
  return [r.x + Math.min(r.width / 2, 20), r.y + r.height / 2];
})(%s)"""
# Centre of the selectbox / multiselect whose label is %s, or of the open list's option %s (for --choose).
SELECTBOX_JS = """((label) => {
  const inputs = '[data-testid="stSelectbox"] input, [data-testid="stMultiSelect"] input';
  const input = [...document.querySelectorAll(inputs)]
    .find(i => i.getAttribute('aria-label') === label);
  if (!input) return null;
  input.scrollIntoView({block: 'center'});
  const r = input.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
})(%s)"""
OPTION_JS = """((text) => {
  const opt = [...document.querySelectorAll('[role="option"]')].find(o => o.innerText.trim() === text);
  if (!opt) return null;
  opt.scrollIntoView({block: 'center'});
  const r = opt.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
})(%s)"""
HEIGHT_JS = """(() => {
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  return Math.max(main.scrollHeight, document.body.scrollHeight);
})()"""


class DevTools:
    """A minimal synchronous CDP session on one page target."""

    def __init__(self, ws_url: str) -> None:
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.ids = itertools.count(1)

    def call(self, method: str, **params: object) -> dict:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def click_at(self, point: list[float]) -> None:
        """A real mouse click (press + release) at viewport coordinates."""
        x, y = point
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def evaluate(self, expression: str) -> object:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


def _start_chromium(binary: str, profile: Path, width: int, height: int) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
         "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    port_file = profile / "DevToolsActivePort"
    for _ in range(200):  # chromium writes its port here once listening
        if port_file.exists() and port_file.read_text().strip():
            return proc, int(port_file.read_text().split()[0])
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("chromium did not open a DevTools port")


def _page_ws_url(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
        targets = json.load(resp)
    return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")


def wait_until_settled(tab: DevTools, texts: list[str], timeout: float) -> None:
    """Poll until every text is on the page and the app stays settled for two polls in a row."""
    deadline, streak = time.monotonic() + timeout, 0
    checks = " && ".join(f"document.body.innerText.includes({json.dumps(t)})" for t in texts)
    expression = f"({SETTLED_JS}) && ({checks or 'true'})"
    while time.monotonic() < deadline:
        streak = streak + 1 if tab.evaluate(expression) else 0
        if streak >= 3:
            return
        time.sleep(0.5)
    raise TimeoutError(f"page did not settle with {texts} within {timeout:.0f}s")


def screenshot(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="shot-profile-") as profile:
        proc, port = _start_chromium(args.chromium, Path(profile), args.width, args.height)
        try:
            tab = DevTools(_page_ws_url(port))
            tab.call("Page.enable")
            tab.call("Emulation.setDeviceMetricsOverride", width=args.width, height=args.height,
                     deviceScaleFactor=1, mobile=False)
            tab.call("Page.navigate", url=args.url)
            time.sleep(1.0)
            wait_until_settled(tab, args.wait_text, args.timeout)
            for choice in args.choose:
                label, _, option = choice.partition("=")
                box = tab.evaluate(SELECTBOX_JS % json.dumps(label))
                if not box:
                    raise RuntimeError(f"no selectbox labelled {label!r}")
                tab.click_at(box)
                tab.evaluate("document.activeElement.select()")
                tab.call("Input.insertText", text=option)  # typing filters and opens the list
                time.sleep(0.7)
                item = tab.evaluate(OPTION_JS % json.dumps(option))
                if not item:
                    raise RuntimeError(f"selectbox {label!r} has no option {option!r}")
                tab.click_at(item)
                for kind in ("keyDown", "keyUp"):  # a multiselect stays open: close it
                    tab.call("Input.dispatchKeyEvent", type=kind, key="Escape", code="Escape",
                             windowsVirtualKeyCode=27)
                time.sleep(1.0)
                wait_until_settled(tab, args.wait_text, args.timeout)
            for label in args.click:
                point = tab.evaluate(CLICK_JS % json.dumps(label))
                if not point:
                    raise RuntimeError(f"no button labelled {label!r}")
                tab.click_at(point)
                time.sleep(1.0)
                wait_until_settled(tab, args.wait_text, args.timeout)
            if args.upload:
                root = tab.call("DOM.getDocument")["root"]["nodeId"]
                node = tab.call("DOM.querySelector", nodeId=root, selector='input[type="file"]')
                if not node.get("nodeId"):
                    raise RuntimeError("no file input on the page")
                files = [str(Path(f).resolve()) for f in args.upload]
                tab.call("DOM.setFileInputFiles", nodeId=node["nodeId"], files=files)
                time.sleep(2.0)
                wait_until_settled(tab, args.wait_text, args.timeout)
            if args.full_page:
                height = int(tab.evaluate(HEIGHT_JS) or args.height)
                tab.call("Emulation.setDeviceMetricsOverride", width=args.width,
                         height=min(height + 40, 12000), deviceScaleFactor=1, mobile=False)
                time.sleep(1.5)  # let plotly re-layout at the new size
            png = tab.call("Page.captureScreenshot", format="png")["data"]
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_bytes(base64.b64decode(png))
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("out")
    parser.add_argument("--wait-text", action="append", default=[], help="text that must appear")
    parser.add_argument("--choose", action="append", default=[], metavar="LABEL=OPTION",
                        help="pick OPTION in the (multi)select labelled LABEL (before --click)")
    parser.add_argument("--click", action="append", default=[],
                        help="button, tab, checkbox or toggle label to press")
    parser.add_argument("--upload", action="append", default=[], metavar="FILE",
                        help="file for the page's file uploader (after --click)")
    parser.add_argument("--width", type=int, default=1500)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--full-page", action="store_true")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    screenshot(args)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
