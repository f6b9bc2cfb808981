"""Draw the judging simulation's figure (eval.judging.sim_plot) from results files into a PNG,
rendered by Debian's headless Chromium through Playwright (plotly's own image export needs
kaleido, which is not installed here).

    python -m benchmarks.judging_plot benchmarks/results/judging/simulate_*.json \\
        --out docs/judging_budget.png
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from eval.judging.sim_plot import budget_figure

CHROMIUM = "/usr/bin/chromium"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    fig = budget_figure(args.results)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "figure.html"
        fig.write_html(page_file, include_plotlyjs=True, full_html=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": int(fig.layout.width) + 20,
                                              "height": int(fig.layout.height) + 20})
            page.goto(page_file.as_uri())
            page.wait_for_selector(".main-svg")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.locator(".plotly-graph-div").screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
